import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// A book's parts laid end to end: turns a place in a part into seconds of the book and back, and finds chapters.
/// Lengths come from the files themselves once they are on disk, else from the manifest.
struct Timeline {
    private(set) var durations: [Double]
    private(set) var starts: [Double]
    private var chapters: [Audiobook.Chapter]
    private var probed: Set<Int> = []
    /// Parts whose files last a different time from what the manifest says.
    private(set) var notes: [String] = []

    /// A timeline from the manifest's lengths; the files on disk are measured now when `measureNow`, else only
    /// those the manifest gives no length for (the rest can be measured on another thread and `apply`'d).
    init(book: Audiobook, measureNow: Bool) {
        self.init(book: book, measuringThrough: measureNow ? .infinity : nil)
    }

    /// A timeline from the manifest's lengths, with the files the manifest gives no length for measured now, and
    /// with `time` (a place in book time, as `--from` gives) the parts before it and the one it falls in, so the
    /// place is exact and a place past the end is known to be one. Measuring opens each file: a book of fifty
    /// parts started at `--from 0:30` opens one, not fifty, before the first sound.
    init(book: Audiobook, measuringThrough time: Double?) {
        durations = book.parts.map { $0.duration ?? 0 }
        starts = []
        chapters = book.chapters
        var lengths = Self.measure(book.parts.filter { ($0.duration ?? 0) <= 0 })
        if let time {
            var end = 0.0
            for part in book.parts where end <= time {
                let measured = lengths[part.index] ?? Self.measure([part])[part.index]
                if let measured { lengths[part.index] = measured }
                end += measured.flatMap { $0 > 0 ? $0 : nil } ?? part.duration ?? 0
            }
        }
        apply(lengths, book: book)
    }

    /// Whether every part's file has been measured.
    var isMeasured: Bool { probed.count == durations.count }

    /// The parts not measured yet: those whose files had not arrived at the last `apply`.
    func unmeasured(in book: Audiobook) -> [Audiobook.Part] {
        book.parts.filter { !probed.contains($0.index) }
    }

    /// The lengths of those of `parts` whose files are on disk, by part index. Opens each file: for a long book
    /// this is worth doing on a thread of its own.
    static func measure(_ parts: [Audiobook.Part]) -> [Int: Double] {
        var lengths: [Int: Double] = [:]
        for part in parts where FileManager.default.fileExists(atPath: part.file.path) {
            lengths[part.index] = (try? AudioDecoder(path: part.file.path))?.duration ?? 0
        }
        return lengths
    }

    /// Takes measured lengths in (a zero means the file could not say), noting parts whose files last a
    /// different time from what the manifest says.
    mutating func apply(_ lengths: [Int: Double], book: Audiobook) {
        var mismatched: [String] = []
        for (index, measured) in lengths.sorted(by: { $0.key < $1.key }) where !probed.contains(index) {
            guard durations.indices.contains(index) else { continue }
            probed.insert(index)
            guard measured > 0 else { continue }
            if let stated = book.parts[index].duration, abs(stated - measured) > max(2, stated * 0.02) {
                mismatched.append("part \(index + 1) lasts \(Clock.format(measured)), not the \(Clock.format(stated)) "
                                  + "its manifest says")
            }
            durations[index] = measured
        }
        if let first = mismatched.first {
            let more = mismatched.count > 1 ? " (and \(mismatched.count - 1) more parts)" : ""
            notes.append(first + more + "; shelf goes by the files")
        }
        chapters = book.chapters
        var running = 0.0
        starts = durations.map { duration in
            defer { running += duration }
            return running
        }
    }

    /// The book's length in seconds.
    var total: Double { (starts.last ?? 0) + (durations.last ?? 0) }

    func bookTime(_ position: PlaybackPosition) -> Double {
        guard starts.indices.contains(position.part) else { return 0 }
        return starts[position.part] + position.seconds
    }

    /// The place `seconds` into the book falls on.
    func place(_ seconds: Double) -> PlaybackPosition {
        let time = max(0, seconds)
        // Within a millisecond of a part's start is its start: sums of part lengths do not round-trip exactly.
        for index in durations.indices.reversed() where starts[index] <= time + 0.001 && (durations[index] > 0 || index == 0) {
            return PlaybackPosition(part: index, seconds: min(max(0, time - starts[index]), max(0, durations[index])))
        }
        return PlaybackPosition(part: 0, seconds: 0)
    }

    /// A saved position as a place in this book, or nil when it names a part the book does not have.
    func position(of saved: ListeningPosition) -> PlaybackPosition? {
        guard durations.indices.contains(saved.part), saved.seconds >= 0 else { return nil }
        let length = durations[saved.part]
        return PlaybackPosition(part: saved.part, seconds: length > 0 ? min(saved.seconds, length) : saved.seconds)
    }

    func chapterStart(_ index: Int) -> Double {
        guard chapters.indices.contains(index) else { return index < 0 ? 0 : total }
        let chapter = chapters[index]
        return (starts.indices.contains(chapter.part) ? starts[chapter.part] : 0) + chapter.offset
    }

    func chapterEnd(_ index: Int) -> Double { index + 1 < chapters.count ? chapterStart(index + 1) : total }

    /// The chapter a place is in (the last one starting at or before it).
    func chapter(at position: PlaybackPosition) -> Int {
        let time = bookTime(position) + 0.001
        var found = 0
        for index in chapters.indices where chapterStart(index) <= time { found = index }
        return found
    }
}
