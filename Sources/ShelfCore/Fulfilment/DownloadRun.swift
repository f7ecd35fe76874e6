import Foundation
import GRDB

/// What one title's turn in a download run came to.
public struct DownloadOutcome: Sendable {
    public enum Result: Sendable {
        /// Complete on disk.
        case downloaded
        /// Started, but parts (or the whole) did not complete: `report.failures` says why; running again resumes.
        case stopped
        /// The patron declined the large-download question.
        case declined
        /// Left out: it would take the library's downloads past `--max-size`.
        case overBudget
        /// Not tried: it failed again and again and waits its turn (`shelf download ID` tries at once).
        case backingOff
        /// Not tried: another shelf is downloading it now. Its outcome is that process's to record.
        case busy(any ShelfFailure)
        /// It could not be downloaded at all.
        case failed(any ShelfFailure)
    }

    public var edition: EditionRef
    public var title: String
    /// The id the patron names the title by (`shelf download ID`).
    public var shortID: String
    public var result: Result
    /// The download's report (none when it failed before one was made).
    public var report: DownloadReport?
    /// The line that says what happened (the event's text when there is one).
    public var line: String
}

/// How a run downloads and records: one rule for `shelf download ID`, `download --all` and the downloads at the end
/// of a sync. Which titles are wanted (`wanted`), the queue's order, the budget and the keep rule, and one way of
/// recording each outcome as an event (told at once when the patron is at the command, by the sync's event lines
/// otherwise) all live here.
public final class DownloadRun {
    let store: Store
    let home: Home
    let library: Library
    let service: FulfilmentService
    let stopSignal: (@Sendable () -> Int32?)?
    /// The patron is at the command: outcomes are told now (the events record them as told), and a title named by
    /// hand is tried at once whatever its failure streak.
    public var attended: Bool
    /// Asked before a download larger than 500 MB; false declines it.
    public var confirmLarge: ((Int64) -> Bool)?

    public init(store: Store, home: Home, library: Library, configuration: HTTPConfiguration,
                settings: DownloadSettings = DownloadSettings(), attended: Bool) throws {
        self.store = store
        self.home = home
        self.library = library
        self.attended = attended
        stopSignal = settings.stopSignal
        service = try FulfilmentService(
            store: store, home: home, library: library, configuration: configuration, settings: settings)
    }

    /// Progress of the title under way.
    public var progress: ((DownloadProgress) -> Void)? {
        get { service.progress }
        set { service.progress = newValue }
    }

    // MARK: what is wanted

    /// The titles a policy wants downloaded that are not complete on disk: audiobooks on loan (not expired) and
    /// Updated editions the patron may have; under `all`, the free titles of followed authors and series too. A title
    /// the patron (or the keep rule) archived is never wanted: the patron's word wins over every policy.
    public func wanted(_ policy: DownloadPolicy, now: Date = Date()) throws -> [EditionRef] {
        try wanted(policy, now: now, archived: store.archivedIDs(in: library.id))
    }

    private func wanted(_ policy: DownloadPolicy, now: Date, archived: Set<String>) throws -> [EditionRef] {
        guard policy != .none else { return [] }
        let followed = policy == .all ? try store.read { db in
            Set(try String.fetchAll(db, sql: """
                SELECT DISTINCT e.entry_id FROM follow_title t JOIN edition e ON e.id = t.edition_id WHERE e.library_id = ?
                """, arguments: [library.id]))
        } : []
        func wanted(_ edition: EditionSummary) -> Bool {
            guard edition.medium == "audiobook", edition.protection == nil, edition.state != .clearing,
                !archived.contains(edition.id)
            else { return false }
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

    /// How many of the library's titles on loan were archived on purpose (what `download --all` leaves out).
    public func archivedCount() throws -> Int { try store.archivedIDs(in: library.id).count }

    // MARK: running

    /// Downloads one title the patron named, at once: whatever its failure streak, and even when it was archived
    /// (downloading it is the patron taking it back). A removal a killed process left half-way is finished first.
    public func named(_ edition: EditionRef, priority: QueuePriority = .normal) throws -> DownloadOutcome {
        try LocalFiles(store: store, home: home).finishClearing(library)
        let queue = DownloadQueue(store: store, library: library)
        try queue.enqueue(edition, priority: priority)
        service.honourBackoff = false
        var budget = Budget(limit: nil, used: 0)
        return try turn(edition, try store.summary(of: edition), queue: queue, budget: &budget)
    }

    /// Queues what `policy` wants and drains the queue in its order: `download --all` and the downloads at the end
    /// of a sync. A title that keeps failing waits its turn; `--max-size` leaves out what would go past the budget.
    /// `each` sees every outcome as it comes. Throws only when interrupted (Ctrl-C, SIGTERM) or when the store fails.
    @discardableResult
    public func drain(
        _ policy: DownloadPolicy, now: Date = Date(), each: (DownloadOutcome) -> Void = { _ in }
    ) throws -> [DownloadOutcome] {
        try LocalFiles(store: store, home: home).finishClearing(library)
        let queue = DownloadQueue(store: store, library: library)
        let archived = try store.archivedIDs(in: library.id)
        for edition in try wanted(policy, now: now, archived: archived) { try queue.enqueue(edition) }
        service.honourBackoff = true
        var budget = Budget(limit: library.maxBytes, used: try bytesOnDisk())
        var outcomes: [DownloadOutcome] = []
        for edition in try queue.editions() {
            if archived.contains(edition.entryID) {
                // Queued before the patron archived it: archiving was the later word.
                try queue.remove(edition)
                continue
            }
            // A signal caught between two titles starts no more.
            if let signal = stopSignal?() { throw DownloadError.interrupted(signal: signal) }
            let summary = try store.summary(of: edition)
            if let until = summary.availableUntil, summary.entitlement == .loan, until <= now { continue }
            let outcome = try turn(edition, summary, queue: queue, budget: &budget)
            each(outcome)
            outcomes.append(outcome)
        }
        return outcomes
    }

    private struct Budget {
        var limit: Int64?
        var used: Int64
    }

    /// One title's download, settled in the queue and recorded as an event.
    private func turn(
        _ edition: EditionRef, _ summary: EditionSummary, queue: DownloadQueue, budget: inout Budget
    ) throws -> DownloadOutcome {
        var overBudget = false
        var declined = false
        let used = budget.used
        let limit = budget.limit
        let large = FulfilmentService.largeDownload
        service.largeThreshold = limit == nil ? large : 0
        // Sizes are asked for (HEAD, for parts the manifest gives no length) only when a budget or a question needs them.
        service.confirmLarge = limit == nil && confirmLarge == nil ? nil : { [confirmLarge] size in
            if let limit, used + size > limit {
                overBudget = true
                return false
            }
            guard size > large, let confirmLarge else { return true }
            declined = !confirmLarge(size)
            return !declined
        }
        let attempt = Swift.Result { try service.download(edition) }
        // Ctrl-C or SIGTERM: the title is back where it was, with its parts kept; nothing more is started.
        if case .failure(let error as DownloadError) = attempt, case .interrupted = error { throw error }
        // Another shelf downloading it now records its own outcome: this run leaves it alone, with no event.
        if case .failure(let error as FulfilmentError) = attempt, case .busy = error {
            return DownloadOutcome(edition: edition, title: summary.title, shortID: summary.shortID, result: .busy(error), report: nil,
                                   line: "\(summary.title): \(error.description)")
        }
        if overBudget { try queue.remove(edition) } else { try? queue.settle(edition, after: attempt) }
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        switch attempt {
        case .success(let report) where report.isBackingOff:
            // Told when it failed, not again every run.
            return DownloadOutcome(edition: edition, title: summary.title, shortID: summary.shortID, result: .backingOff, report: report,
                                   line: report.message)
        case .success(let report) where overBudget:
            let line = "\(summary.title): not downloaded: it would take \(library.name)'s downloads past the "
                + "\(FulfilmentService.megabytes(library.maxBytes ?? 0)) budget (raise it with `shelf library set \(library.name) --max-size SIZE`, "
                + "or download it by name: `shelf download \(summary.shortID)`)"
            try record(.downloadFailed, edition, key: "budget:\(summary.id)", line)
            return DownloadOutcome(edition: edition, title: summary.title, shortID: summary.shortID, result: .overBudget, report: report, line: line)
        case .success(let report) where declined:
            return DownloadOutcome(edition: edition, title: summary.title, shortID: summary.shortID, result: .declined, report: report,
                                   line: report.message)
        case .success(let report) where report.state == .downloaded:
            budget.used += report.bytes
            // The publisher's new files are a happening of their own, not the first download told again.
            let what = summary.state == .updated ? "downloaded the update" : "downloaded"
            let line = "\(summary.title): \(what) (\(FulfilmentService.megabytes(report.bytes)))"
            try record(.downloaded, edition, key: "downloaded:\(summary.id):\(stamp)", line)
            return DownloadOutcome(edition: edition, title: summary.title, shortID: summary.shortID, result: .downloaded, report: report,
                                   line: attended ? report.message : line)
        case .success(let report):
            let why = report.failures.first ?? report.message
            let line = "\(summary.title): download failed: \(why)"
            try record(.downloadFailed, edition, key: "failed:\(summary.id):\(why)", line)
            return DownloadOutcome(edition: edition, title: summary.title, shortID: summary.shortID, result: .stopped, report: report,
                                   line: attended ? report.message : line)
        case .failure(let error):
            guard let failure = error as? ShelfFailure else { throw error }
            let line = "\(summary.title): download failed: \(failure.description)"
            try record(.downloadFailed, edition, key: "failed:\(summary.id):\(failure.description)", line)
            return DownloadOutcome(edition: edition, title: summary.title, shortID: summary.shortID, result: .failed(failure), report: nil,
                                   line: line)
        }
    }

    /// One outcome as an event: once per download, once per distinct failure (the same failure every cron run is
    /// told once).
    private func record(_ kind: NoticeKind, _ edition: EditionRef, key: String, _ text: String) throws {
        try store.recordNotice(
            kind: kind, libraryID: library.id, editionID: edition.rowID, key: key, text: text, told: attended)
    }

    // MARK: keep

    /// Archives the oldest finished downloaded titles beyond the library's `--keep`, never one in progress or being
    /// played; each is an event of its own ("archived to keep N titles") and is not downloaded again by any policy.
    @discardableResult
    public func keepFinished() throws -> [String] {
        guard let keep = library.keepFinished else { return [] }
        let downloaded = try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, entry_id, title FROM edition WHERE library_id = ? AND in_catalog IN (0, 1) AND state = 'downloaded'
                """,
                             arguments: [library.id])
        }
        let finished = try store.finishedAt(in: library.id)
        let oldestFirst = downloaded.compactMap { row -> (EditionRef, String, Date)? in
            guard let at = finished[row[0]] else { return nil }
            return (EditionRef(libraryID: library.id, rowID: row[0], entryID: row[1]), row[2], at)
        }.sorted { $0.2 < $1.2 }
        var archived: [String] = []
        for (edition, title, _) in oldestFirst.dropLast(keep) {
            let shown = try store.summary(of: edition).shortID
            // One being listened to again stays until the player quits; a later sync archives it.
            do { _ = try service.archive(edition, by: .keep) } catch PlayingError.playing { continue }
            try store.recordNotice(
                kind: .archived, libraryID: library.id, editionID: edition.rowID,
                key: "kept:\(edition.entryID):\(Int(Date().timeIntervalSince1970 * 1000))",
                text: "\(title): archived to keep \(keep) finished title\(keep == 1 ? "" : "s") "
                    + "(`shelf download \(shown)` gets it back)",
                told: attended)
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
