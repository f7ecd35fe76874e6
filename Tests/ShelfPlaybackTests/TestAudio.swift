import Foundation
import ShelfSpawn
import Testing

/// Short sine tones generated with the ffmpeg CLI into a temp dir, one per container the player reads.
enum TestAudio {
    static let formats: [(ext: String, codec: [String])] = [
        ("mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]),
        ("m4a", ["-c:a", "aac", "-b:a", "128k"]),
        ("ogg", ["-c:a", "libopus", "-b:a", "96k"]),
        ("flac", ["-c:a", "flac"]),
        ("wav", ["-c:a", "pcm_s16le"]),
    ]

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-playback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes a `seconds`-long sine at `frequency` Hz (48 kHz mono source, so the player must resample).
    @discardableResult
    static func tone(
        _ ext: String, frequency: Int = 440, seconds: Double = 2, in directory: URL, name: String? = nil
    ) throws -> URL {
        let codec = formats.first { $0.ext == ext }!.codec
        let url = directory.appendingPathComponent("\(name ?? "tone-\(frequency)").\(ext)")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments =
            ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
             "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=\(seconds)"] + codec + [url.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return url
    }

    /// Dominant frequency of the left channel by counting zero crossings.
    static func frequency(_ samples: ArraySlice<Int16>) -> Double {
        var crossings = 0
        var previous = Int16(0)
        var frames = 0
        var index = samples.startIndex
        while index < samples.endIndex {
            let sample = samples[index]
            if (previous < 0 && sample >= 0) || (previous >= 0 && sample < 0 && frames > 0) { crossings += 1 }
            previous = sample
            frames += 1
            index += 2
        }
        return Double(crossings) / 2 / (Double(frames) / 44_100)
    }

    static func frequency(_ samples: [Int16]) -> Double { frequency(samples[...]) }

    /// Interleaved samples with leading and trailing silence cut (the disk driver pads with silence).
    static func trimmedSilence(_ samples: [Int16]) -> ArraySlice<Int16> {
        guard let first = samples.firstIndex(where: { abs(Int($0)) > 200 }),
            let last = samples.lastIndex(where: { abs(Int($0)) > 200 })
        else { return [] }
        return samples[(first & ~1)...(last | 1)]
    }
}
