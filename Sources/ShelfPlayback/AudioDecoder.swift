/// The one PCM format the player works in: interleaved signed 16-bit stereo at 44100 Hz.
public enum PCM {
    public static let sampleRate = 44_100
    public static let channels = 2
}

/// A run of decoded PCM and where it sits in its source.
public struct AudioChunk: Sendable, Equatable {
    /// Source time of the first frame, in seconds from the stream's timestamps.
    public var time: Double
    /// Interleaved samples in the `PCM` format.
    public var samples: [Int16]
    /// Number of frames (samples per channel).
    public var frames: Int { samples.count / PCM.channels }
    /// Length in seconds at the PCM rate.
    public var duration: Double { Double(frames) / Double(PCM.sampleRate) }

    public init(time: Double, samples: [Int16]) {
        self.time = time
        self.samples = samples
    }
}

/// Decodes one audio file (MP3, AAC/M4A, Opus, FLAC, WAV…) to `PCM`, skipping corrupt frames.
public final class AudioDecoder {
    private let input: FFmpegAudioInput

    /// Opens `path` and picks its best audio stream.
    public init(path: String) throws {
        input = try FFmpegAudioInput(path: path)
    }

    /// The stream's duration in seconds, when the container says.
    public var duration: Double? { input.duration }

    /// How many packets or frames the decoder rejected and skipped so far.
    public var skippedFrames: Int { input.skippedFrames }

    /// The next chunk of audio, or nil at the end of the file (a truncated file ends where it breaks off).
    public func next() throws -> AudioChunk? {
        guard let (time, samples) = try input.next() else { return nil }
        return AudioChunk(time: time, samples: samples)
    }

    /// Moves so the next chunk starts at `seconds`.
    public func seek(to seconds: Double) throws {
        try input.seek(to: max(0, seconds))
    }

    /// Decodes to the end and returns every chunk joined, with the time of the first.
    public func decodeAll() throws -> AudioChunk {
        var all = AudioChunk(time: 0, samples: [])
        var first = true
        while let chunk = try next() {
            if first { all.time = chunk.time; first = false }
            all.samples += chunk.samples
        }
        return all
    }
}
