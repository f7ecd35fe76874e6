import Foundation
import ShelfSpawn

/// What ffprobe (FFmpeg's own tool, not shelf's code) says about a file.
struct FFprobe {
    var duration: Double
    var chapterTitles: [String]
    var chapterStarts: [Double]
    var codecs: [String]
    var tags: [String: String]

    /// ffprobe's whole answer (format, streams, chapters), as JSON.
    static func json(_ file: URL) throws -> [String: Any] {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "-show_chapters", file.path]
        process.standardError = FileHandle.nullDevice
        let data = try process.runReadingOutput()
        guard process.terminationStatus == 0, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ProbeFailure(file: file.path) }
        return json
    }

    static func read(_ file: URL) throws -> FFprobe {
        let json = try json(file)
        guard let format = json["format"] as? [String: Any] else { throw ProbeFailure(file: file.path) }
        let chapters = json["chapters"] as? [[String: Any]] ?? []
        let streams = json["streams"] as? [[String: Any]] ?? []
        let rawTags = format["tags"] as? [String: Any] ?? [:]
        return FFprobe(
            duration: Double(format["duration"] as? String ?? "") ?? 0,
            chapterTitles: chapters.map { ($0["tags"] as? [String: Any])?["title"] as? String ?? "" },
            chapterStarts: chapters.map { Double($0["start_time"] as? String ?? "") ?? -1 },
            codecs: streams.compactMap { $0["codec_name"] as? String },
            tags: Dictionary(uniqueKeysWithValues: rawTags.compactMap { key, value in
                (value as? String).map { (key.lowercased(), $0) }
            }))
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        var file: String
        var description: String { "ffprobe could not read \(file)" }
    }
}
