import Foundation

/// A chapter an audio file declares about itself.
public struct EmbeddedChapter: Sendable, Equatable {
    /// The chapter's title; "Chapter n" when the file gives none.
    public var title: String
    /// Seconds from the start of the file.
    public var start: Double
    /// Seconds from the start of the file where the chapter ends (the next chapter's start, or the file's end).
    public var end: Double

    /// A chapter from its parts.
    public init(title: String, start: Double, end: Double) {
        self.title = title
        self.start = start
        self.end = end
    }
}

/// Reads the chapters inside one audio file: m4b/mp4 chapter atoms, ID3v2 CHAP/CTOC frames in an mp3, and
/// Vorbis/Opus `CHAPTERxx` comments in an ogg, through libavformat.
public enum EmbeddedChapters {
    /// The file's chapters in order of their start, each ending where the next starts (the last at the file's end);
    /// empty when the file declares none. Throws `PlaybackError` when FFmpeg cannot open the file.
    public static func read(_ file: URL) throws -> [EmbeddedChapter] {
        let (found, duration) = try FFmpegChapters.read(path: file.path)
        let sorted = found.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
        var chapters: [EmbeddedChapter] = []
        for (position, item) in sorted.enumerated() {
            let (_, chapter) = item
            let next = position + 1 < sorted.count ? sorted[position + 1].element.start : nil
            let end = chapter.end ?? next ?? duration ?? chapter.start
            let title = chapter.title?.trimmingCharacters(in: .whitespacesAndNewlines)
            chapters.append(EmbeddedChapter(
                title: title.flatMap { $0.isEmpty ? nil : $0 } ?? "Chapter \(position + 1)",
                start: max(0, chapter.start), end: max(chapter.start, end)))
        }
        return chapters
    }
}

/// The cover picture inside one audio file, through libavformat.
public enum EmbeddedPicture {
    /// The picture's bytes as the file holds them (PNG or JPEG, mostly), or nil when it carries none. Throws
    /// `PlaybackError` when FFmpeg cannot open the file.
    public static func read(_ file: URL) throws -> Data? {
        try FFmpegPicture.read(path: file.path).map { Data($0) }
    }
}
