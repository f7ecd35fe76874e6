import Foundation
import ShelfCore
import Synchronization

/// What the player and its background download share: which parts to fetch first, and the parts that failed
/// while the others still download. Safe from either thread.
final class ListenDownload: Sendable {
    let priority = PartPriority()
    private let failures = Mutex<[Int: String]>([:])
    /// Where the session starts, asked once the parts are known (a title never downloaded before).
    private let startParts = Mutex<(@Sendable () -> [Int])?>(nil)

    /// Once the download has recorded the parts, puts first the ones `parts` names, before any is asked for.
    func preferOnceRecorded(_ parts: @escaping @Sendable () -> [Int]) {
        startParts.withLock { $0 = parts }
    }

    /// The downloader's settings that report here.
    var settings: DownloadSettings {
        var settings = DownloadSettings()
        settings.priority = priority
        settings.partsRecorded = { [weak self] in
            guard let self, let parts = self.startParts.withLock({ $0 }) else { return }
            self.priority.prefer(parts())
        }
        settings.partFinished = { [weak self] index, result in
            if case .failed(let reason) = result { self?.failures.withLock { $0[index] = reason } }
        }
        return settings
    }

    /// The parts that failed since the last call, with why; clears them.
    func takeFailures() -> [Int: String] {
        failures.withLock { failures in
            defer { failures.removeAll() }
            return failures
        }
    }
}

extension ListenSession {
    /// Where the download should start: where the session will begin, as far as the store and the options tell
    /// before the library is asked (`run` refines it).
    static func firstParts(_ book: Audiobook, records: ListenRecords, options: ListenOptions) -> [Int] {
        guard !book.parts.isEmpty else { return [] }
        if let chapter = options.chapter, ChapterNumbers(book: book).entry(numbered: chapter) == nil { return [] }
        guard let saved = try? records.listeningState() else { return [] }
        let timeline = Timeline(book: book, measureNow: false)
        let start = ListenMachine.startingPoint(
            options: options, saved: saved, timeline: timeline, chapters: book.chapters, remote: { nil })
        return [start.position.part, start.position.part + 1]
    }
}
