import Foundation
import GRDB

/// Why a sync stopped. The store is left as it was before the sync began.
public enum SyncError: ShelfFailure {
    /// Another `shelf sync` holds the lock.
    case busy(pid: Int32?)
    /// A page could not be fetched or read; `page` is 1-based within its feed.
    case page(feed: String, page: Int, url: String, reason: any ShelfFailure)
    /// A page kept failing in a way worth another try (429, 5xx, a dropped connection) until the retry policy's
    /// attempts or time ran out.
    case gaveUp(feed: String, page: Int, url: String, attempts: Int, waited: TimeInterval, reason: any ShelfFailure)
    /// A page's `next` link leads back to a page already read.
    case paginationLoop(feed: String, page: Int, url: String)
    case tooManyPages(feed: String, limit: Int)
    /// The root holds no titles, and no feed it links to within the crawl's bounds does; `sections` is how many
    /// feeds the root links to (0: none at all).
    case noWayToBooks(library: String, url: String, sections: Int, bounds: CrawlBounds, limit: CrawlLimit?)
    /// Not tried: the library failed `failures` times in a row and its next try is at `until` (`sync --now`
    /// tries anyway). Not a failure of this run: it exits 0, so cron stays quiet.
    case backingOff(library: String, until: Date, failures: Int, reason: String)

    public var exitCode: ShelfExit {
        switch self {
        case .backingOff: .success
        case .busy: .busy
        case .page(_, _, _, let reason), .gaveUp(_, _, _, _, _, let reason): reason.exitCode
        case .paginationLoop, .tooManyPages: .badData
        case .noWayToBooks: .notACatalog
        }
    }

    public var description: String {
        switch self {
        case .backingOff(let library, let until, let failures, _):
            "\(library) failed \(failures) times in a row; not trying again before "
                + "\(SyncError.localTime(until)) (`shelf sync --now` tries now)"
        case .busy(let pid):
            "another shelf sync is running\(pid.map { " (pid \($0))" } ?? ""); try again when it finishes"
        case .page(let feed, let page, _, let reason as NetworkError) where reason.namesURL:
            "sync stopped at page \(page) of the \(feed): \(reason); nothing was changed"
        case .page(let feed, let page, let url, let reason):
            "sync stopped at page \(page) of the \(feed) (\(Redaction.url(url))): \(reason); nothing was changed"
        case .gaveUp(let feed, let page, let url, let attempts, let waited, let reason):
            "sync stopped at page \(page) of the \(feed) (\(Redaction.url(url))) after \(attempts) attempts over "
                + "\(Int(waited.rounded())) s: \(reason); nothing was changed"
        case .paginationLoop(let feed, let page, let url):
            "sync stopped: page \(page) of the \(feed) links back to \(Redaction.url(url)) (a pagination loop); nothing was changed"
        case .tooManyPages(let feed, let limit):
            "sync stopped: the \(feed) has more than \(limit) pages; nothing was changed (`shelf sync --max-pages N` "
                + "reads more)"
        case .noWayToBooks(let library, let url, 0, _, _):
            "\(Redaction.url(url)) holds no titles and links to no feed that does; check that it is the library's "
                + "OPDS catalog URL (shelf library remove \(library), then add the right one)"
        case .noWayToBooks(let library, let url, let sections, let bounds, let limit):
            "\(Redaction.url(url)) is a navigation feed whose \(sections) section\(sections == 1 ? "" : "s") led to no "
                + "titles within \(bounds.depth) link\(bounds.depth == 1 ? "" : "s") and \(bounds.feeds) feed\(bounds.feeds == 1 ? "" : "s")"
                + (limit == nil
                    ? "; check that it is the library's OPDS catalog URL"
                    : "; read further with `shelf library set \(library) --crawl-depth N --crawl-feeds N`")
        }
    }
}

extension SyncError {
    /// `2026-11-23 21:40`, in local time.
    public static func localTime(_ date: Date) -> String { LocalTime.timestamp(date) }
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
    /// Feeds read by crawling a navigation root (the root not counted); 0 when the root is not one.
    public var crawledFeeds = 0
    /// The bound that stopped the crawl early: titles not seen were kept, not removed.
    public var crawlLimit: CrawlLimit?
    /// The feed of every title a navigation root's titles were read through (`"By Newest" (url)`), when one was
    /// trusted; nil when every section was crawled (or the root is not a navigation feed).
    public var crawlRoute: String?
    /// Whether the patron's loans feed was read (they are signed in).
    public var loansRead = false
    public var loans: Int = 0
    public var holds: Int = 0
    /// Holds that became ready, loans due soon, loans that ended.
    public var notices: [ShelfNotice] = []
    public var warnings: [String] = []
    /// New titles by followed authors or in followed series.
    public var followed = 0
    /// What the downloads after the sync did (none with `--no-download` or the policy `none`).
    public var downloads: AutoDownloadReport?
    /// The events this sync told (each is told once, by the first sync that sees it).
    public var events: [Notice] = []
    /// Listening positions and bookmarks pushed to the library's annotation service after the feeds were stored.
    public var positionsPushed = 0
    /// Those still queued (offline, not signed in); the next sync or `listen` pushes them.
    public var positionsPending = 0
    /// The end of a failure streak (`recovered`), when this sync ended one.
    public var transition: FailureTransition?
    public var seconds: Double = 0
    /// Not tried: the library is backed off after failing again and again (`--json` says so, with `nextTryAt`).
    public var skipped: Bool?
    /// When a skipped library is tried again.
    public var nextTryAt: Date?
    /// Why a library was skipped, in one line.
    public var skipReason: String?

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
    /// The most pages read of one feed: 10,000 pages hold a million titles at 100 a page (Palace's crawlable feed),
    /// 250,000 at calibre's 25. Endless paging usually ends well before (`FeedFetcher.stalePages`).
    public var maxPages = SyncOptions.defaultMaxPages
    public static let defaultMaxPages = 10_000
    /// Crawl bounds for this run, over the library's own (`shelf sync --crawl-depth/--crawl-feeds`).
    public var crawlDepth: Int?
    public var crawlFeeds: Int?
    /// Accept a loans feed that comes back empty while loans are stored (normally kept, with a warning).
    public var acceptEmptyLoans = false
    /// Skip a library whose failure streak says its next try is later (`shelf sync` under cron); `--now` clears it.
    public var honourBackoff = false
    /// When a catalog or loans page that failed on the way (429, 5xx, a dropped connection) is asked for again.
    public var retry = RetryPolicy.pages
    public var http = HTTPConfiguration()
    /// Progress lines (`-v`); never carries credentials.
    public var log: (@Sendable (String) -> Void)?
    /// Called once every page was read and kept, before the catalog's write lock is taken to apply them: where a
    /// test puts what the patron does while a sync runs.
    package var afterFetch: (@Sendable () throws -> Void)?
    /// Called after each step of applying was committed and before the next begins (no lock held), with its number
    /// (from 1): where a test sees what a sync killed at that point leaves on disk, or lets the patron act.
    package var afterStep: (@Sendable (Int) throws -> Void)?
    /// Called as each step after the first begins, holding the write lock, with the number of the step before it:
    /// where a test makes the patron's write meet a step under way.
    package var stepBegan: (@Sendable (Int) throws -> Void)?
    /// How long one step of applying holds the write lock, about (a test makes every page a step).
    package var stepLength = SyncEngine.stepLength
    /// The caller prints the summary's warnings (a terminal, not `--quiet`): a guard's first event is told already.
    public var printsWarnings = true

    public init() {}
}

/// Fetches a library's catalog, page by page, into a stage on disk, then applies it to the store in short steps.
public final class SyncEngine {
    private let store: Store
    private let home: Home
    private let options: SyncOptions
    private let http: HTTPClient
    /// What the last `sync` changed about the library's failure streak, whether it succeeded, failed or was
    /// skipped: the caller reports it (once when a library starts failing, once when it recovers).
    public private(set) var lastTransition: FailureTransition?

    public init(store: Store, home: Home, options: SyncOptions = SyncOptions()) {
        self.store = store
        self.home = home
        self.options = options
        self.http = HTTPClient(configuration: options.http)
    }

    /// Syncs one library. A failure while fetching changes nothing in the store but the record of the failed run.
    public func sync(_ library: Library) throws -> SyncSummary {
        lastTransition = nil
        if options.honourBackoff, let streak = try store.failureStreak(libraryID: library.id), streak.nextTryAt > Date() {
            lastTransition = .backingOff(until: streak.nextTryAt, failures: streak.failures, reason: streak.lastReason)
            throw SyncError.backingOff(
                library: library.name, until: streak.nextTryAt, failures: streak.failures, reason: streak.lastReason)
        }
        guard let lock = try FileLock.acquire(home.syncLock, timeout: options.lockTimeout) else {
            throw SyncError.busy(pid: FileLock.holder(of: home.syncLock))
        }
        defer { withExtendedLifetime(lock) {} }
        let started = Date()
        try home.prepare()
        let scratch = home.temporary.appendingPathComponent("page-\(getpid()).xml")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            // What a sync killed while applying wrote is undone first, and an interrupted removal finished.
            let undone = try store.undoUnfinished(Self.journal)
            if undone != StepJournal.Undone() {
                options.log?("undid \(undone.steps) steps of a sync killed while applying (kept \(undone.kept) the patron acted on)")
            }
            try LocalFiles(store: store, home: home).finishClearing(library)
            let session = try LibrarySession(
                library: library, credentialStore: CredentialStore(home: home), configuration: options.http)
            // Every page is read and kept on disk before the catalog's write lock is taken: the patron's commands
            // never wait for the network, and a sync that fails or is killed while fetching changes nothing. The
            // apply's steps are journaled: one that fails is undone at once, one killed by the next sync.
            let stage = try SyncStage(home: home)
            let (fetcher, known) = try fetch(library, session: session, stage: stage, scratch: scratch)
            try options.afterFetch?()
            let applying = Date()
            // A library's first sync adds every title: its undo is to remove them, not to record each one.
            let first = try store.read { db in
                try Bool.fetchOne(
                    db, sql: "SELECT NOT EXISTS (SELECT 1 FROM edition WHERE library_id = ?)", arguments: [library.id]) ?? true
            }
            var summary = try store.writeInSteps(journal: Self.journal, firstSyncOf: first ? library.id : nil) { db, step in
                try self.run(library, stage: stage, fetcher: fetcher, known: known, db: db, step: step, started: started)
            }
            options.log?(String(format: "applied %d pages in %.2f s (the write lock taken in steps of about 150 ms)", stage.pages.count,
                                Date().timeIntervalSince(applying)))
            try LocalFiles(store: store, home: home).finishClearing(library)
            pushPositions(library, into: &summary)
            if let ended = try? store.endFailureStreak(libraryID: library.id) {
                summary.transition = .recovered(failures: ended.failures, since: ended.firstFailedAt)
                lastTransition = summary.transition
            }
            summary.seconds = Date().timeIntervalSince(started)
            return summary
        } catch let error as ShelfFailure {
            recordFailure(library, started: started, message: error.description)
            if Self.backsOff(error), let streak = try? store.noteFailure(libraryID: library.id, reason: error.description) {
                lastTransition = streak.failures == 1
                    ? .startedFailing(reason: error.description)
                    : .stillFailing(failures: streak.failures, nextTry: streak.nextTryAt, reason: error.description)
            }
            throw error
        }
    }

    /// Whether a failure is the library server's own (a 5xx, no answer, a reset), the only kind that starts or extends
    /// a back-off. A sign-in wanted, a wrong password, a full disk or anything else on this computer is the patron's
    /// to fix, and the first sync after the fix must not be skipped on its account.
    static func backsOff(_ failure: any ShelfFailure) -> Bool {
        switch failure.exitCode {
        case .offline, .serverError: true
        default: false
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
        try? positions.noteOffers()
        // The minutes heard, for libraries that count them (Palace's timeTracking links).
        if let playtime = try? PlaytimeReporter(store: store, home: home, library: library, configuration: options.http) {
            let report = playtime.pushPending()
            summary.warnings += report.warnings
            if let failure = report.failure { options.log?("minutes heard stay queued: \(failure)") }
        }
    }

    private func recordFailure(_ library: Library, started: Date, message: String) {
        try? store.recordFailedSync(libraryID: library.id, startedAt: started, message: message)
    }

    /// The pages the library's catalog and loans come to, as the last sync left them.
    private static func knownPages(_ db: Database, libraryID: Int64) throws -> [String: KnownPage] {
        var known: [String: KnownPage] = [:]
        for page in try FeedPageRecord.all(db, libraryID: libraryID) {
            known[KnownPage.key(kind: page.kind, url: page.url)] = KnownPage(
                id: page.id!, etag: page.etag, lastModified: page.lastModified, nextURL: page.nextURL,
                entries: page.entryCount, navigation: page.navigation?.split(separator: "\n").map(String.init) ?? [],
                idsDigest: page.idsDigest)
        }
        return known
    }

    /// Reads every page of the catalog and the loans into `stage`, writing nothing: only reads of the store, which
    /// never wait for a writer.
    private func fetch(_ given: Library, session: LibrarySession, stage: SyncStage, scratch: URL) throws
        -> (FeedFetcher, [String: KnownPage])
    {
        // What the last sync learnt (the crawlable feed's URL) is read afresh, not taken from the caller's copy.
        let (library, known, lastRun, routeLacked) = try store.read { db in
            let library = try Store.library(db, name: given.name)
            let lastRun = try Int.fetchOne(
                db, sql: "SELECT COALESCE(MAX(id), 0) FROM sync_run WHERE library_id = ?", arguments: [library.id]) ?? 0
            let routeLacked = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM sync_guard WHERE library_id = ? AND key = ?)
                """, arguments: [library.id, SyncGuard.crawlFallback]) ?? false
            return (library, try Self.knownPages(db, libraryID: library.id), lastRun, routeLacked)
        }
        guard let rootURL = URL(string: library.url) else { throw NetworkError.unsupportedURL(library.url) }
        let bounds = CrawlBounds(
            depth: options.crawlDepth ?? library.crawlBounds.depth, feeds: options.crawlFeeds ?? library.crawlBounds.feeds)
        let fetcher = FeedFetcher(
            http: http, known: known, storedCrawlable: library.crawlableURL, storedShelf: library.shelfURL,
            session: session, scratch: scratch, maxPages: options.maxPages, root: rootURL,
            bounds: bounds, retry: options.retry, stage: stage, sampleSeed: lastRun,
            routeLacked: routeLacked, log: options.log)
        let channel = FetchChannel(capacity: 8)
        let fetching = Background { fetcher.run(into: channel) }
        defer {
            channel.cancel()
            _ = try? fetching.value()
        }
        while true {
            let event = channel.take()
            stage.note(event)
            switch event {
            // Only this sync writes pages, and it holds the sync lock: what was read here is what the apply finds.
            case .finished: return (fetcher, known)
            case .failed(let error): throw error
            default: continue
            }
        }
    }

    /// Applies the staged pages: reading their kept entries back runs on a thread of its own while this one writes,
    /// so the two overlap. The writes are committed in steps of about `stepLength`, each ending after a page (a page
    /// and its entries are always committed together), so the patron's commands never wait long for the write lock.
    /// What only the whole sync may decide (removing titles and ending loans not seen, the guards, forgetting pages,
    /// the library's record, the run's) is in the last step, whose commit is the sync's: until then the journal holds
    /// what undoes the steps before it (undone at once when the sync fails, by the next one when it was killed).
    private func run(
        _ given: Library, stage: SyncStage, fetcher: FeedFetcher, known: [String: KnownPage], db: Database,
        step: (_ between: () throws -> Void) throws -> Void, started: Date
    ) throws -> SyncSummary {
        let library = try Store.library(db, name: given.name)
        var run = SyncRunRecord(libraryID: library.id, startedAt: started.timeIntervalSince1970, status: .running)
        try run.insert(db)
        let syncID = run.id!
        // The steps write the title indexes at random places; with 4 MB of page cache each step read most of their
        // pages back from the log and wrote them again. 10 MB while applying (memory the queue of entries no longer
        // holds) takes a third off the kernel's time in a first sync of 100,000 titles; the peak stays as flat. (It
        // was 12 MB while the title indexes were a third larger: the store of 300,000 titles filled what a store
        // of 10,000 does not, and their peaks drew 7% apart.)
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -4096
        try db.execute(sql: "PRAGMA cache_size = \(Self.applyCache)")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
        let applier = try EntryApplier(db: db, libraryID: library.id, syncID: syncID, now: started)
        var summary = SyncSummary(library: library.name)
        let bounds = fetcher.bounds

        let channel = FetchChannel(capacity: 2)
        let fetching = Background { stage.replay(into: channel) }
        defer {
            channel.cancel()
            _ = try? fetching.value()
        }

        let loanApplier = try LoanApplier(
            db: db, libraryID: library.id, syncID: syncID, now: started, applier: applier)
        var entries = 0
        // Entries the catalog's pages held as served, a 304 counting what its page held when last read: a page that
        // came back empty and answers 304 since is still empty, however many titles the guard below kept.
        var served = 0
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
        var crawl: CrawlReport?
        var annotationService: String?
        let now = started.timeIntervalSince1970
        // The root page's validators are written with its held-back entries, at the end: a sync killed before would
        // otherwise leave a root that answers 304 next time with its entries never applied.
        var rootValidators: (etag: String?, lastModified: String?)?
        var stepStarted = ContinuousClock.now
        var longestStep = Duration.zero
        var steps = 0
        func stepIfDue() throws {
            let length = ContinuousClock.now - stepStarted
            guard length >= options.stepLength else { return }
            // The step's new titles get their short ids with it, not all at once at the end.
            try applier.finish()
            steps += 1
            try step { try options.afterStep?(steps) }
            try options.stepBegan?(steps)
            longestStep = max(longestStep, length)
            stepStarted = ContinuousClock.now
        }
        defer {
            let last = ContinuousClock.now - stepStarted
            options.log?("the longest step held the write lock \(max(longestStep, last)) (the last \(last))")
        }
        events: while true {
            switch channel.take() {
            case .page(let kind, let url, let position, let etag, let lastModified, _):
                summary.pages += 1
                onRootPage = kind == .root && position == 1
                onLoansPage = kind == .loans
                if onRootPage { rootValidators = (etag, lastModified) }
                pageID = try FeedPageRecord.fetched(
                    db, libraryID: library.id, kind: kind, url: url, position: position, etag: onRootPage ? nil : etag,
                    lastModified: onRootPage ? nil : lastModified, at: now)
                if onRootPage { rootPageID = pageID }
            case .entries(let batch):
                if onLoansPage {
                    for record in batch { try loanApplier.apply(record) }
                    loanEntries += batch.count
                } else if onRootPage {
                    rootEntries += batch
                } else {
                    for entry in batch { entries += count(try applier.apply(entry, pageID: pageID), into: &summary) }
                    // A page of thousands of titles is several steps: what waits for the lock waits for a batch.
                    try stepIfDue()
                }
            case .pageEnd(let info, let pageEntries, let navigation, let digest):
                try FeedPageRecord.finished(
                    db, id: pageID, next: info.next?.href, entries: pageEntries, navigation: navigation, idsDigest: digest)
                if !onRootPage && !onLoansPage { try applier.unlinkUnseen(fromPage: pageID) }
                if onRootPage { rootInfo = info }
                if !onLoansPage { served += pageEntries }
                annotationService = info.link(OPDSVocabulary.relAnnotations)?.href ?? annotationService
                warnings += info.warnings
                try stepIfDue()
            case .notModified(let kind, let url, let position):
                summary.pages += 1
                summary.pagesNotModified += 1
                guard let page = known[KnownPage.key(kind: kind, url: url)] else { continue }
                try FeedPageRecord.unchanged(db, id: page.id, position: position, at: now)
                entries += try applier.markPageSeen(page.id)
                if kind != .loans { served += page.entries }
                onRootPage = false
                try stepIfDue()
            case .finished(let crawlableURL, let shelfURL, let report):
                crawlable = crawlableURL
                shelfRead = shelfURL
                crawl = report
                break events
            case .failed(let error):
                throw error
            }
        }
        if crawlable == nil, let rootPageID {
            for entry in rootEntries { entries += count(try applier.apply(entry, pageID: rootPageID), into: &summary) }
        }
        if let rootPageID, let (etag, lastModified) = rootValidators {
            try FeedPageRecord.validators(db, id: rootPageID, etag: etag, lastModified: lastModified)
        }
        summary.entries = entries

        let catalogBefore = try applier.catalogCount()
        if crawlable == nil && entries == 0 && catalogBefore == 0 {
            // Nothing was ever reached: a URL that is not the catalog, or navigation that leads nowhere.
            throw SyncError.noWayToBooks(
                library: library.name, url: library.url, sections: crawl?.sections ?? 0, bounds: bounds,
                limit: crawl?.limit)
        }
        summary.crawledFeeds = crawl?.feeds ?? 0
        summary.crawlLimit = crawl?.limit
        var guards: [SyncGuard] = []
        if let limit = crawl?.limit {
            // A partial crawl says nothing about the titles it did not reach: they stay.
            let raise = limit == .depth
                ? "its depth bound of \(bounds.depth) link\(bounds.depth == 1 ? "" : "s") from the root (raise it with `shelf library set \(library.name) --crawl-depth \(bounds.depth * 2)`)"
                : "its bound of \(bounds.feeds) feed\(bounds.feeds == 1 ? "" : "s") (raise it with `shelf library set \(library.name) --crawl-feeds \(bounds.feeds * 2)`)"
            guards.append(SyncGuard(
                key: "crawl-bound", text: "the crawl stopped at \(raise); this sync was partial, so titles not seen were kept, not removed"))
        }
        for stalled in crawl?.stalled ?? [] {
            guards.append(SyncGuard(
                key: "stalled \(stalled)",
                text: "did not read the \(stalled): the \(FeedFetcher.stalePages) pages before it brought no title not "
                    + "seen this sync (a server paging for ever?); titles not seen were kept, and nothing was removed this sync"))
        }
        for skipped in crawl?.skipped ?? [] {
            guards.append(SyncGuard(
                key: "skipped-feed \(skipped)",
                text: "skipped the feed \(skipped); its titles were kept, and nothing was removed this sync"))
        }
        if !guards.isEmpty {
            // Partial: nothing is removed on account of what was not read.
        } else if (entries == 0 || served == 0) && catalogBefore > 1 {
            guards.append(SyncGuard(
                key: "empty-catalog",
                text: "the catalog came back empty; kept the \(catalogBefore) titles already stored (run sync again later)"))
        } else {
            let removed = try applier.removeUnseen()
            summary.removed = removed.count
        }
        // A feed of every title that lacked some was not trusted, but the crawl that replaced it was whole: said once,
        // after the removals it does not hold back.
        if let fallback = crawl?.fallback { guards.append(SyncGuard(key: SyncGuard.crawlFallback, text: fallback)) }
        summary.crawlRoute = crawl?.route
        summary.catalogTitles = try applier.catalogCount()
        try applier.finish()
        summary.warnings += warnings
        // The first sync finds the whole catalog: none of it is news.
        if library.lastSyncOKAt != nil {
            summary.followed = try Store.matchFollows(db, libraryID: library.id, since: now, now: started)
        }

        if shelfRead != nil {
            summary.loansRead = true
            let stored = try loanApplier.storedCount()
            // A loans feed that suddenly comes back empty is a known server failure that made other apps delete
            // patrons' books: keep everything unless the patron says the feed is right.
            if loanEntries == 0 && stored > 1 && !options.acceptEmptyLoans {
                guards.append(SyncGuard(
                    key: "empty-loans",
                    text: "the loans feed came back empty while \(stored) loans and holds are stored; kept them all "
                        + "(if you really returned everything, run `shelf sync --accept-empty-loans`)"))
            } else {
                _ = try loanApplier.endUnseen()
            }
            summary.notices = loanApplier.notices
        }
        (summary.loans, summary.holds) = try Store.shelfCounts(db, libraryID: library.id)
        // Each guard is a warning every run it holds, and an event the first run it does: cron hears of it once.
        summary.warnings = guards.map(\.text) + summary.warnings
        try SyncGuard.note(guards, db, library: library, told: options.printsWarnings, at: started)

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

    /// The page cache the apply writes through, as `PRAGMA cache_size` takes it (negative: KiB).
    static let applyCache = -10_240

    /// The undo journal of the apply's steps (one sync runs at a time: the sync lock).
    static let journal = "sync"

    /// How long one step of applying holds the write lock, about: a patron's command waits at most this long.
    static let stepLength = Duration.milliseconds(150)

    /// Counts what applying one entry did; returns 1, or 0 for a title already applied this sync.
    private func count(_ outcome: EntryOutcome, into summary: inout SyncSummary) -> Int {
        switch outcome {
        case .added: summary.added += 1
        case .changed: summary.changed += 1
        case .restored: summary.restored += 1
        case .refreshed, .unchanged: break
        case .duplicate: return 0
        }
        return 1
    }
}
