import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What goes into an exported m4b: the book's part files in reading order, its chapters and its tags.
public struct M4BBook: Sendable {
    /// Where a chapter starts: a part and seconds into it.
    public struct Chapter: Sendable, Equatable {
        public var title: String
        public var part: Int
        public var offset: Double

        /// A chapter `offset` seconds into part `part` (from 0).
        public init(title: String, part: Int, offset: Double) {
            self.title = title
            self.part = part
            self.offset = offset
        }
    }

    public var parts: [URL]
    /// The chapters in any order; none gives one per part.
    public var chapters: [Chapter]
    public var title: String
    public var author: String?
    public var narrator: String?
    /// The year the book was first published ("1813").
    public var year: String?
    /// A PNG or JPEG to attach as the cover.
    public var cover: URL?

    /// A book from its part files in order, its chapters and its tags.
    public init(
        parts: [URL], chapters: [Chapter], title: String, author: String? = nil, narrator: String? = nil,
        year: String? = nil, cover: URL? = nil
    ) {
        self.parts = parts
        self.chapters = chapters
        self.title = title
        self.author = author
        self.narrator = narrator
        self.year = year
        self.cover = cover
    }

    /// The tags an m4b carries, under the names FFmpeg's mp4 muxer turns into iTunes atoms (the narrator as the
    /// composer, as m4b taggers write it; media type 2 is an audiobook).
    var tags: [(String, String)] {
        var tags = [("title", title), ("album", title), ("genre", "Audiobook"), ("media_type", "2")]
        if let author, !author.isEmpty { tags += [("artist", author), ("album_artist", author)] }
        if let narrator, !narrator.isEmpty { tags.append(("composer", narrator)) }
        if let year, !year.isEmpty { tags.append(("date", year)) }
        return tags
    }
}

/// What an export wrote.
public struct M4BExport: Codable, Sendable, Equatable {
    /// How the audio got into the file.
    public enum Method: String, Codable, Sendable {
        /// Every part was AAC alike: its packets were copied, not decoded.
        case remuxed
        /// The parts were decoded and encoded with FFmpeg's AAC encoder.
        case encoded
    }

    /// A chapter as the file holds it.
    public struct Mark: Codable, Sendable, Equatable {
        public var title: String
        /// Seconds from the start of the book.
        public var start: Double
    }

    public var file: String
    public var bytes: Int64
    /// Seconds of audio.
    public var duration: Double
    public var chapters: [Mark]
    public var method: Method
    /// Whether a cover image is attached.
    public var cover: Bool
}

/// Why an export stopped before writing its file (FFmpeg's own failures are `PlaybackError`s).
public enum M4BExportError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file is there already and overwriting it was not asked for.
    case fileExists(path: String)
    /// The caller asked to stop (an interrupt).
    case interrupted
    /// The finished file could not be put in place.
    case cannotWrite(path: String, reason: String)
    /// A book with no parts has nothing to export.
    case noParts

    public var description: String {
        switch self {
        case .fileExists(let path): "\(path) already exists"
        case .interrupted: "interrupted"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .noParts: "the book has no parts"
        }
    }
}

/// Writes a book's parts as one m4b: packets copied when every part is AAC with the same setup, else encoded with
/// FFmpeg's AAC encoder. The file appears whole or not at all: it is written to `FILE.partial` beside it, synced
/// and renamed into place; any failure or interrupt removes the partial file.
public enum M4BExporter {
    /// Exports `book` to `file`. `progress` hears seconds written and the book's length; `shouldStop` is asked
    /// often, and true ends the export with `M4BExportError.interrupted`.
    public static func export(
        _ book: M4BBook, to file: URL, overwrite: Bool = false,
        progress: ((_ done: Double, _ total: Double) -> Void)? = nil, shouldStop: () -> Bool = { false }
    ) throws -> M4BExport {
        guard !book.parts.isEmpty else { throw M4BExportError.noParts }
        let target = file.standardizedFileURL
        if !overwrite && FileManager.default.fileExists(atPath: target.path) {
            throw M4BExportError.fileExists(path: target.path)
        }
        let partial = URL(fileURLWithPath: target.path + ".partial")
        try? FileManager.default.removeItem(at: partial)
        do {
            // Each part is looked at first and opened again when its turn comes: a book of a hundred parts never
            // holds a hundred demuxers at once.
            let parts = try book.parts.map { try FFmpegExportInput(path: $0.path).part }
            let total = parts.reduce(0) { $0 + $1.duration }
            let tick: (Double) throws -> Void = { done in
                if shouldStop() { throw M4BExportError.interrupted }
                progress?(min(done, total), total)
            }
            let writer = try FFmpegM4BWriter(path: partial.path, tags: book.tags)
            let method: M4BExport.Method = canRemux(parts) ? .remuxed : .encoded
            var encoder: FFmpegAACEncoder?
            if method == .remuxed {
                try writer.addAudio(copying: FFmpegExportInput(path: parts[0].path))
            } else {
                let channels = min(max(parts[0].channels, 1), 2)
                let made = try FFmpegAACEncoder(sampleRate: parts[0].sampleRate, channels: channels, bitRate: 64_000 * channels)
                try writer.addAudio(encodedBy: made)
                encoder = made
            }
            let cover = book.cover.map { writer.addCover(path: $0.path) } ?? false
            try writer.start()
            var starts: [Double] = []
            for part in parts {
                let input = try FFmpegExportInput(path: part.path)
                if let encoder {
                    starts.append(try encoder.encode(input, into: writer, tick: tick))
                } else {
                    starts.append(try writer.remux(input, tick: tick))
                }
            }
            try encoder?.finish(into: writer)
            let length = encoder?.seconds ?? writer.seconds
            let marks = chapterMarks(book, starts: starts, length: length)
            try writer.finish(chapters: marks.map { ($0.title, $0.start) }, length: length)
            if shouldStop() { throw M4BExportError.interrupted }
            try putInPlace(partial, at: target, overwrite: overwrite)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? NSNumber)?.int64Value ?? 0
            return M4BExport(file: target.path, bytes: bytes, duration: length, chapters: marks, method: method, cover: cover)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
    }

    /// Whether the parts can be copied into one AAC stream: all AAC, at one rate, with one channel count and the
    /// same codec setup.
    static func canRemux(_ parts: [ExportPart]) -> Bool {
        guard let first = parts.first, first.isAAC else { return false }
        return parts.allSatisfy {
            $0.isAAC && $0.sampleRate == first.sampleRate && $0.channels == first.channels
                && ($0.extradata.isEmpty || first.extradata.isEmpty || $0.extradata == first.extradata)
        }
    }

    /// The chapters in book time: each at its part's start plus its offset, in order, none past the end and no two
    /// at one place; one per part when the book names none.
    static func chapterMarks(_ book: M4BBook, starts: [Double], length: Double) -> [M4BExport.Mark] {
        let chapters = book.chapters.isEmpty
            ? book.parts.indices.map { M4BBook.Chapter(title: "Part \($0 + 1)", part: $0, offset: 0) }
            : book.chapters
        let placed = chapters.filter { starts.indices.contains($0.part) }
            .map { M4BExport.Mark(title: $0.title, start: max(0, starts[$0.part] + $0.offset)) }
            .filter { $0.start < length }
            .sorted { $0.start < $1.start }
        var marks: [M4BExport.Mark] = []
        for mark in placed where marks.last.map({ mark.start - $0.start >= 0.001 }) ?? true { marks.append(mark) }
        return marks
    }

    /// Syncs the finished file to disk and renames it over `target` (refusing to replace a file that appeared
    /// meanwhile, unless overwriting), then syncs the directory so the rename itself survives a crash.
    private static func putInPlace(_ partial: URL, at target: URL, overwrite: Bool) throws {
        let descriptor = open(partial.path, O_RDONLY)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw M4BExportError.cannotWrite(path: partial.path, reason: reason)
        }
        close(descriptor)
        if !overwrite && FileManager.default.fileExists(atPath: target.path) {
            throw M4BExportError.fileExists(path: target.path)
        }
        guard rename(partial.path, target.path) == 0 else {
            throw M4BExportError.cannotWrite(path: target.path, reason: String(cString: strerror(errno)))
        }
        let directory = open(target.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}
