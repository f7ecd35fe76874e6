import Foundation
import GRDB

/// Why a sync stopped. The store is left as it was before the sync began.
public enum SyncError: ShelfFailure {
    /// Another `shelf sync` holds the lock.
    case busy(pid: Int32?)
    /// A page could not be fetched or read; `page` is 1-based within its feed.
    case page(feed: String, page: Int, url: String, reason: any ShelfFailure)
    /// A page's `next` link leads back to a page already read.
    case paginationLoop(feed: String, page: Int, url: String)
    case tooManyPages(feed: String, limit: Int)

    public var exitCode: ShelfExit {
        switch self {
        case .busy: .busy
        case .page(_, _, _, let reason): reason.exitCode
        case .paginationLoop, .tooManyPages: .badData
        }
    }

    public var description: String {
        switch self {
        case .busy(let pid):
            "another shelf sync is running\(pid.map { " (pid \($0))" } ?? ""); try again when it finishes"
        case .page(let feed, let page, _, let reason as NetworkError) where reason.namesURL:
            "sync stopped at page \(page) of the \(feed): \(reason); nothing was changed"
        case .page(let feed, let page, let url, let reason):
            "sync stopped at page \(page) of the \(feed) (\(Redaction.url(url))): \(reason); nothing was changed"
        case .paginationLoop(let feed, let page, let url):
            "sync stopped: page \(page) of the \(feed) links back to \(Redaction.url(url)) (a pagination loop); nothing was changed"
        case .tooManyPages(let feed, let limit):
            "sync stopped: the \(feed) has more than \(limit) pages; nothing was changed"
        }
    }
}

/// What a sync did, for the summary line, `--json` and `shelf status`.
public struct SyncSummary: Codable, Sendable, Equatable {
    public var library: String
    public var pages: Int = 0
    public var pagesNotModified: Int = 0
    public var entries: Int = 0
    public var added: Int = 0
    public var changed: Int = 0
    public var removed: Int = 0
    public var restored: Int = 0
    public var catalogTitles: Int = 0
    /// Whether the patron's loans feed was read (they are signed in).
    public var loansRead = false
    public var loans: Int = 0
    public var holds: Int = 0
    /// Holds that became ready, loans due soon, loans that ended.
    public var notices: [ShelfNotice] = []
    public var warnings: [String] = []
    /// Listening positions and bookmarks pushed to the library's annotation service after the feeds were stored.
    public var positionsPushed = 0
    /// Those still queued (offline, not signed in); the next sync or `listen` pushes them.
    public var positionsPending = 0
    public var seconds: Double = 0

    public init(library: String) { self.library = library }

    /// `12 new, 3 updated, 1 removed`.
    public var line: String {
        var parts = ["\(added) new", "\(changed) updated", "\(removed) removed"]
        if restored > 0 { parts.append("\(restored) restored") }
        if loansRead {
            parts.append("\(loans) loan\(loans == 1 ? "" : "s")")
            parts.append("\(holds) hold\(holds == 1 ? "" : "s")")
        }
        return parts.joined(separator: ", ")
    }
}

/// Settings for one sync.
public struct SyncOptions: Sendable {
    /// How long to wait for another sync to finish before giving up.
    public var lockTimeout: TimeInterval = 10
    public var maxPages = 100_000
    /// Accept a loans feed that comes back empty while loans are stored (normally kept, with a warning).
    public var acceptEmptyLoans = false
    public var http = HTTPConfiguration()
    /// Progress lines (`-v`); never carries credentials.
    public var log: (@Sendable (String) -> Void)?

    public init() {}
}

/// Fetches a library's catalog, page by page, and applies it to the store in one transaction.
public final class SyncEngine {
    private let store: Store
    private let home: Home
    private let options: SyncOptions
    private let http: HTTPClient

    public init(store: Store, home: Home, options: SyncOptions = SyncOptions()) {
        self.store = store
        self.home = home
        self.options = options
        self.http = HTTPClient(configuration: options.http)
    }

    /// Syncs one library. On failure nothing in the store changes except the record of the failed run.
    public func sync(_ library: Library) throws -> SyncSummary {
        guard let lock = try FileLock.acquire(home.syncLock, timeout: options.lockTimeout) else {
            throw SyncError.busy(pid: FileLock.holder(of: home.syncLock))
        }
        defer { withExtendedLifetime(lock) {} }
        let started = Date()
        try home.prepare()
        let scratch = home.temporary.appendingPathComponent("page-\(getpid()).xml")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            // An interrupted removal from an earlier run is finished first.
            try LocalFiles(store: store, home: home).finishClearing(library)
            let session = try LibrarySession(
                library: library, credentialStore: CredentialStore(home: home), configuration: options.http)
            var summary = try store.write { db in
                try self.run(library, session: session, db: db, started: started, scratch: scratch)
            }
            try LocalFiles(store: store, home: home).finishClearing(library)
            pushPositions(library, into: &summary)
            summary.seconds = Date().timeIntervalSince(started)
            return summary
        } catch let error as ShelfFailure {
            recordFailure(library, started: started, message: error.description)
            throw error
        }
    }

    /// Pushes the positions and bookmarks queued while offline; a failure leaves them queued for next time.
    private func pushPositions(_ library: Library, into summary: inout SyncSummary) {
        guard let positions = try? PositionSync(store: store, home: home, library: library, configuration: options.http)
        else { return }
        let report = positions.pushPending()
        summary.positionsPushed = report.pushed
        summary.positionsPending = report.pending
        summary.warnings += report.warnings
        if let failure = report.failure { options.log?("listening positions stay queued: \(failure)") }
    }

    private func recordFailure(_ library: Library, started: Date, message: String) {
        try? store.recordFailedSync(libraryID: library.id, startedAt: started, message: message)
    }

    private func run(_ given: Library, session: LibrarySession, db: Database, started: Date, scratch: URL) throws
        -> SyncSummary
    {
        // What the last sync learnt (the crawlable feed's URL) is read afresh, not taken from the caller's copy.
        let library = try Store.library(db, name: given.name)
        var run = SyncRunRecord(libraryID: library.id, startedAt: started.timeIntervalSince1970, status: .running)
        try run.insert(db)
        let syncID = run.id!
        let applier = try EntryApplier(db: db, libraryID: library.id, syncID: syncID, now: started)
        var summary = SyncSummary(library: library.name)
        guard let rootURL = URL(string: library.url) else { throw NetworkError.unsupportedURL(library.url) }

        var known: [String: KnownPage] = [:]
        for page in try FeedPageRecord.all(db, libraryID: library.id) {
            known[KnownPage.key(kind: page.kind, url: page.url)] = KnownPage(
                id: page.id!, etag: page.etag, lastModified: page.lastModified, nextURL: page.nextURL)
        }

        // Fetching and parsing run on a thread of their own while this one writes, so the two overlap.
        let fetcher = FeedFetcher(
            http: http, known: known, storedCrawlable: library.crawlableURL, storedShelf: library.shelfURL,
            session: session, scratch: scratch, maxPages: options.maxPages, log: options.log)
        let channel = FetchChannel(capacity: 2)
        let fetching = Background { fetcher.run(root: rootURL, into: channel) }
        defer {
            channel.cancel()
            _ = try? fetching.value()
        }

        let loanApplier = try LoanApplier(
            db: db, libraryID: library.id, syncID: syncID, now: started, applier: applier)
        var entries = 0
        var loanEntries = 0
        var warnings: [String] = []
        var pageID: Int64 = 0
        var onRootPage = false
        var onLoansPage = false
        var shelfRead: String?
        // The root's own entries are a featured selection when it links a crawlable feed of everything,
        // so they are held back until the root's links (at the end of the document, in Palace feeds) are known.
        var rootEntries: [EntryRecord] = []
        var rootPageID: Int64?
        var rootInfo: OPDSFeedInfo?
        var crawlable: String?
        var annotationService: String?
        let now = started.timeIntervalSince1970
        events: while true {
            switch channel.take() {
            case .page(let kind, let url, let position, let etag, let lastModified):
                summary.pages += 1
                pageID = try FeedPageRecord.fetched(
                    db, libraryID: library.id, kind: kind, url: url, position: position, etag: etag,
                    lastModified: lastModified, at: now)
                onRootPage = kind == .root && position == 1
                onLoansPage = kind == .loans
                if onRootPage { rootPageID = pageID }
            case .entries(let batch):
                if onLoansPage {
                    for record in batch { try loanApplier.apply(record) }
                    loanEntries += batch.count
                } else if onRootPage {
                    rootEntries += batch
                } else {
                    for entry in batch { count(try applier.apply(entry, pageID: pageID), into: &summary) }
                    entries += batch.count
                }
            case .pageEnd(let info, let pageEntries):
                try FeedPageRecord.finished(db, id: pageID, next: info.next?.href, entries: pageEntries)
                if onRootPage { rootInfo = info }
                annotationService = info.link(OPDSVocabulary.relAnnotations)?.href ?? annotationService
                warnings += info.warnings
            case .notModified(let kind, let url, let position):
                summary.pages += 1
                summary.pagesNotModified += 1
                guard let page = known[KnownPage.key(kind: kind, url: url)] else { continue }
                try FeedPageRecord.unchanged(db, id: page.id, position: position, at: now)
                entries += try applier.markPageSeen(page.id)
                onRootPage = false
            case .finished(let crawlableURL, let shelfURL):
                crawlable = crawlableURL
                shelfRead = shelfURL
                break events
            case .failed(let error):
                throw error
            }
        }
        if crawlable == nil, let rootPageID {
            for entry in rootEntries { count(try applier.apply(entry, pageID: rootPageID), into: &summary) }
            entries += rootEntries.count
        }
        summary.entries = entries

        let catalogBefore = try applier.catalogCount()
        if entries == 0 && catalogBefore > 1 {
            summary.warnings.append(
                "the catalog came back empty; kept the \(catalogBefore) titles already stored (run sync again later)")
        } else {
            let removed = try applier.removeUnseen()
            summary.removed = removed.count
        }
        summary.catalogTitles = try applier.catalogCount()
        summary.warnings += warnings

        if shelfRead != nil {
            summary.loansRead = true
            let stored = try loanApplier.storedCount()
            // A loans feed that suddenly comes back empty is a known server failure that made other apps delete
            // patrons' books: keep everything unless the patron says the feed is right.
            if loanEntries == 0 && stored > 1 && !options.acceptEmptyLoans {
                summary.warnings.append(
                    "the loans feed came back empty while \(stored) loans and holds are stored; kept them all "
                        + "(if you really returned everything, run `shelf sync --accept-empty-loans`)")
            } else {
                _ = try loanApplier.endUnseen()
            }
            summary.notices = loanApplier.notices
        }
        (summary.loans, summary.holds) = try Store.shelfCounts(db, libraryID: library.id)

        // Pages not visited this time are no longer part of the feed.
        try FeedPageRecord.forgetUnvisited(db, libraryID: library.id, before: started.timeIntervalSince1970)
        let info = rootInfo
        try Store.recordSyncedLibrary(
            db, libraryID: library.id, catalogTitle: info?.title, crawlableURL: crawlable,
            shelfURL: info?.shelf?.href ?? shelfRead, authDocumentURL: info?.authDocument?.href,
            annotationsURL: annotationService, message: summary.line)
        run.finishedAt = Date().timeIntervalSince1970
        run.status = .ok
        (run.pages, run.pagesNotModified, run.entries) = (summary.pages, summary.pagesNotModified, summary.entries)
        (run.added, run.changed, run.removed, run.message) = (summary.added, summary.changed, summary.removed, summary.line)
        try run.update(db)
        return summary
    }

    private func count(_ outcome: EntryOutcome, into summary: inout SyncSummary) {
        switch outcome {
        case .added: summary.added += 1
        case .changed: summary.changed += 1
        case .restored: summary.restored += 1
        case .refreshed, .unchanged: break
        }
    }
}
