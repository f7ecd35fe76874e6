import Foundation
import ShelfSpawn
import Testing

/// What ffprobe says about a file: its format, streams and chapters, and its audio packets.
struct Probe: Decodable {
    struct Format: Decodable {
        var duration: String?
        var tags: [String: String]?
    }

    struct Stream: Decodable {
        var codec_type: String
        var codec_name: String?
        var sample_rate: String?
        var channels: Int?
        var disposition: [String: Int]?
    }

    struct Chapter: Decodable {
        var start_time: String
        var end_time: String
        var tags: [String: String]?
    }

    var format: Format
    var streams: [Stream]
    var chapters: [Chapter]

    var duration: Double { Double(format.duration ?? "") ?? 0 }
    var audio: Stream? { streams.first { $0.codec_type == "audio" } }
    var titles: [String] { chapters.map { $0.tags?["title"] ?? "" } }
    var starts: [Double] { chapters.map { Double($0.start_time) ?? -1 } }
    /// The tags, by lower-cased name.
    var tags: [String: String] { Dictionary((format.tags ?? [:]).map { ($0.key.lowercased(), $0.value) }) { a, _ in a } }
    var hasCover: Bool { streams.contains { $0.codec_type == "video" && $0.disposition?["attached_pic"] == 1 } }

    /// Runs ffprobe on `file`.
    static func of(_ file: URL) throws -> Probe {
        let output = try FFtool.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "-show_chapters", file.path])
        return try JSONDecoder().decode(Probe.self, from: output)
    }

    /// Each audio packet's size and MD5, in order: equal lists mean the packets were copied bit for bit.
    static func packets(_ file: URL) throws -> [String] {
        struct Packets: Decodable {
            struct Packet: Decodable {
                var size: String
                var data_hash: String
            }
            var packets: [Packet]
        }
        let output = try FFtool.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "a", "-show_data_hash", "MD5", "-show_entries", "packet=size,data_hash",
             "-of", "json", file.path])
        return try JSONDecoder().decode(Packets.self, from: output).packets.map { "\($0.size) \($0.data_hash)" }
    }
}

/// Runs ffmpeg's command-line tools for tests.
enum FFtool {
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let data = try process.runReadingOutput()
        #expect(process.terminationStatus == 0, "\(tool) \(arguments.joined(separator: " "))")
        return data
    }

    /// Makes a `seconds`-long tone with ffmpeg: `codec` arguments decide the format (`-c:a aac` into .m4a…).
    @discardableResult
    static func tone(
        _ file: URL, frequency: Int, seconds: Double, rate: Int = 44_100, channels: Int = 2, codec: [String]
    ) throws -> URL {
        _ = try run(
            "/usr/bin/ffmpeg",
            ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
             "-i", "sine=frequency=\(frequency):sample_rate=\(rate):duration=\(seconds)", "-ac", "\(channels)"]
                + codec + [file.path])
        return file
    }
}
