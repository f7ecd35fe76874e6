import Foundation
import GRDB

/// What the downloads at the end of a sync did.
public struct AutoDownloadReport: Codable, Sendable, Equatable {
    public var downloaded: [DownloadReport] = []
    /// One line per title that failed or stopped short.
    public var failed: [String] = []
    /// Finished titles archived to stay within `--keep`.
    public var archived: [String] = []
    /// Titles left out because they would go past `--max-size`.
    public var overBudget: [String] = []

    public init() {}
}

/// Applies a library's download policy at the end of a sync: queues new loans (and, under `all`, followed authors'
/// and series' free titles) and Updated editions downloaded before, archives the oldest finished titles beyond
/// `--keep`, and drains the queue in its order, leaving out what would go past `--max-size`. Every outcome is
/// a notice, told once.
public final class AutoDownloader {
    let store: Store
    let home: Home
    let library: Library
    let service: FulfilmentService

    public init(store: Store, home: Home, library: Library, configuration: HTTPConfiguration,
                settings: DownloadSettings = DownloadSettings()) throws {
        self.store = store
        self.home = home
        self.library = library
        service = try FulfilmentService(
            store: store, home: home, library: library, configuration: configuration, settings: settings)
        // Unattended: a title whose download keeps failing waits its turn (`shelf download ID` tries at once).
        service.honourBackoff = true
    }

    /// Progress of the title under way (nil under `--quiet`).
    public var progress: ((DownloadProgress) -> Void)? {
        get { service.progress }
        set { service.progress = newValue }
    }

    /// Runs the policy; never throws for one title's failure (it becomes a notice and a line of the report).
    public func run(now: Date = Date()) throws -> AutoDownloadReport {
        var report = AutoDownloadReport()
        guard library.autoDownload != .none else { return report }
        let queue = DownloadQueue(store: store, library: library)
        for edition in try candidates(now: now) { try queue.enqueue(edition) }
        report.archived = try keepFinished()
        var used = try bytesOnDisk()
        for edition in try queue.editions() {
            let summary = try store.summary(of: edition)
            if let until = summary.availableUntil, summary.entitlement == .loan, until <= now { continue }
            var overBudget = false
            if let budget = library.maxBytes {
                service.largeThreshold = 0
                service.confirmLarge = { size in
                    overBudget = used + size > budget
                    return !overBudget
                }
            }
            let outcome = Result { try service.download(edition) }
            // Ctrl-C or SIGTERM: the title is back where it was, with its parts kept; nothing more is started.
            if case .failure(let error as DownloadError) = outcome, case .interrupted = error { throw error }
            try? queue.settle(edition, after: outcome)
            switch outcome {
            case .success(let skipped) where skipped.isBackingOff:
                // Failed before and waiting its turn: told when it failed, not again every run.
                continue
            case .success(let done) where done.state == .downloaded && !overBudget:
                used += done.bytes
                report.downloaded.append(done)
                // The publisher's new files are a happening of their own, not the first download told again.
                let what = summary.state == .updated ? "downloaded the update" : "downloaded"
                try record(.downloaded, edition, key: "downloaded:\(summary.id):\(Int(Date().timeIntervalSince1970 * 1000))",
                           "\(summary.title): \(what) (\(FulfilmentService.megabytes(done.bytes)))")
            case .success where overBudget:
                try queue.remove(edition)
                let budget = FulfilmentService.megabytes(library.maxBytes ?? 0)
                let line = "\(summary.title): not downloaded: it would take \(library.name)'s downloads past "
                    + "the \(budget) budget (shelf library set \(library.name) --max-size)"
                report.overBudget.append(line)
                try record(.downloadFailed, edition, key: "budget:\(summary.id)", line)
            case .success(let stopped):
                report.failed.append(stopped.message)
                try record(.downloadFailed, edition, key: "failed:\(summary.id):\(stopped.failures.first ?? stopped.message)",
                           "\(summary.title): download failed: \(stopped.failures.first ?? stopped.message)")
            case .failure(let error):
                let text = (error as? ShelfFailure)?.description ?? "\(error)"
                report.failed.append("\(summary.title): \(text)")
                try record(.downloadFailed, edition, key: "failed:\(summary.id):\(text)",
                           "\(summary.title): download failed: \(text)")
            }
        }
        return report
    }

    private func record(_ kind: NoticeKind, _ edition: EditionRef, key: String, _ text: String) throws {
        try store.recordNotice(kind: kind, libraryID: library.id, editionID: edition.rowID, key: key, text: text)
    }

    /// What the policy wants downloaded that is not complete on disk.
    private func candidates(now: Date) throws -> [EditionRef] {
        let followed = library.autoDownload == .all ? try store.read { db in
            Set(try String.fetchAll(db, sql: """
                SELECT DISTINCT e.entry_id FROM follow_title t JOIN edition e ON e.id = t.edition_id WHERE e.library_id = ?
                """, arguments: [library.id]))
        } : []
        func wanted(_ edition: EditionSummary) -> Bool {
            guard edition.medium == "audiobook", edition.protection == nil, edition.state != .clearing else { return false }
            if edition.state == .updated { return [.loan, .free].contains(edition.entitlement) }
            guard edition.state == .new || edition.state.isInProgress else { return false }
            if edition.entitlement == .loan { return edition.availableUntil.map { $0 > now } ?? true }
            return edition.entitlement == .free && followed.contains(edition.id)
        }
        // Streamed, keeping only the ids wanted: gathering every summary first took 70 MB at 100,000 titles, after
        // every sync.
        var playable: [String] = []
        try store.forEachEdition(of: library) { edition in
            if wanted(edition) { playable.append(edition.id) }
        }
        return try playable.map { try store.resolveEdition($0, in: library) }
    }

    /// Archives the oldest finished downloaded titles beyond the library's `--keep`; never one in progress.
    private func keepFinished() throws -> [String] {
        guard let keep = library.keepFinished else { return [] }
        let downloaded = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id, entry_id, title FROM edition WHERE library_id = ? AND state = 'downloaded'",
                             arguments: [library.id])
        }
        let finished = try store.finishedAt(in: library.id)
        let oldestFirst = downloaded.compactMap { row -> (EditionRef, String, Date)? in
            guard let at = finished[row[0]] else { return nil }
            return (EditionRef(libraryID: library.id, rowID: row[0], entryID: row[1]), row[2], at)
        }.sorted { $0.2 < $1.2 }
        var archived: [String] = []
        for (edition, title, _) in oldestFirst.dropLast(keep) {
            // One being listened to again stays until the player quits; a later sync archives it.
            do { _ = try service.archive(edition) } catch PlayingError.playing { continue }
            archived.append(title)
        }
        return archived
    }

    /// The bytes the library's downloaded titles take on disk, from the part records.
    private func bytesOnDisk() throws -> Int64 {
        try store.read { db in
            try Int64.fetchOne(db, sql: """
                SELECT COALESCE(SUM(p.bytes), 0) FROM part p JOIN edition e ON e.id = p.edition_id
                WHERE e.library_id = ? AND e.has_local_copy = 1 AND p.status = 'downloaded'
                """, arguments: [library.id]) ?? 0
        }
    }
}
