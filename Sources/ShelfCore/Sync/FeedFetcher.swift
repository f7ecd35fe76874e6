import Foundation
import Synchronization

/// What the last sync learnt about one page: its row, validators and where it led.
struct KnownPage: Sendable {
    var id: Int64
    var etag: String?
    var lastModified: String?
    var nextURL: String?
    /// How many entries the page held.
    var entries = 0
    /// The feeds the page links to that a crawl follows.
    var navigation: [String] = []
    /// A digest of the ids it held, in order (nil when read before the digest was kept).
    var idsDigest: Int64?

    static func key(kind: FeedKind, url: String) -> String { kind.rawValue + " " + url }
}

/// What the fetcher hands to the thread that writes the store, in feed order.
enum FetchEvent: Sendable {
    /// A page answered 200; its entries follow. `staged` is the file its entries were kept in (`SyncStage`); nil when
    /// the stage hands it on again.
    case page(kind: FeedKind, url: String, position: Int, etag: String?, lastModified: String?, staged: URL?)
    /// Entries already flattened and hashed, so the writing thread only compares and writes.
    case entries([EntryRecord])
    /// The page's feed-level metadata, known once the whole document has been read, and the feeds it links to
    /// that a crawl follows.
    case pageEnd(OPDSFeedInfo, count: Int, navigation: [String], idsDigest: Int64)
    /// A page answered 304: what the store has for it is still current.
    case notModified(kind: FeedKind, url: String, position: Int)
    /// Every page was read; `crawlable` is the crawlable feed's URL when the root linked one, `shelf` the loans
    /// feed's URL when the patron's loans were read, `crawl` what crawling a navigation root found.
    case finished(crawlable: String?, shelf: String?, crawl: CrawlReport?)
    case failed(any Error)
}

/// A bounded, blocking queue between the fetching thread (the one producer) and the writing thread (the one
/// consumer): a semaphore counts free slots, another the events waiting, and a mutex guards the events.
final class FetchChannel: Sendable {
    private struct Queue {
        /// An event taken is nil: its slot is kept until 64 are taken, but not what it held (64 batches of a page's
        /// entries, held until then, were 12 MB of a sync's memory).
        var items: [FetchEvent?] = []
        var head = 0
        var cancelled = false
    }

    private let queue = Mutex(Queue())
    private let free: DispatchSemaphore
    private let waiting = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        // Made at 0 and raised to the capacity: libdispatch traps when a semaphore is freed below the value it was
        // made with, which a channel given up with events never taken (a failure while applying) would be.
        free = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { free.signal() }
    }

    /// Waits for room; false when the reader has gone away.
    func put(_ event: FetchEvent) -> Bool {
        if queue.withLock({ $0.cancelled }) { return false }
        free.wait()
        let added = queue.withLock { queue in
            guard !queue.cancelled else { return false }
            queue.items.append(event)
            return true
        }
        if added { waiting.signal() }
        return added
    }

    /// Waits for the next event.
    func take() -> FetchEvent {
        waiting.wait()
        let event = queue.withLock { queue in
            let event = queue.items[queue.head].take()!
            queue.head += 1
            if queue.head > 64 {
                queue.items.removeFirst(queue.head)
                queue.head = 0
            }
            return event
        }
        free.signal()
        return event
    }

    /// Tells a waiting writer to stop.
    func cancel() {
        queue.withLock { $0.cancelled = true }
        // Wakes the producer if it waits for room; it sees the flag and stops.
        free.signal()
    }
}

/// Fetches and parses a library's catalog pages on its own thread, so parsing overlaps the store's writes.
///
/// It never touches the database: what it needs from the last sync is handed to it up front.
final class FeedFetcher: Sendable {
    private let http: HTTPClient
    private let known: [String: KnownPage]
    private let storedCrawlable: String?
    private let scratch: URL
    private let maxPages: Int
    /// Entries handed to the writer at a time.
    static let batchSize = 64
    let log: (@Sendable (String) -> Void)?
    private let session: LibrarySession?
    private let storedShelf: String?
    /// When a page that failed on the way (429, 5xx, a dropped connection) is asked for again.
    private let retry: RetryPolicy
    let bounds: CrawlBounds
    /// The root feed: crawls stay on its scheme, host and port.
    let root: URL
    /// Every page URL read this sync (and the root's aliases once a crawl begins).
    let visited = Mutex<Set<String>>([])
    /// The ids of every entry read this sync, in a fixed 1 MB (`SeenFilter`): a page that brings none new is stale.
    private let seenIDs = Mutex(SeenFilter())
    /// Whether no entry read before in this sync had this id (and from now on one has).
    func firstSeen(_ id: String) -> Bool {
        var hash = FNV1a()
        hash.combine(id)
        collected.withLock { collected in
            guard collected != nil, collected?.only.map({ $0.contains(hash.signed) }) ?? true else { return }
            collected?.ids.insert(hash.signed)
        }
        return seenIDs.withLock { $0.insert(hash.value) }
    }

    /// While set, the hashes of the ids of the entries read (`collecting`), of those in `only` when it is set.
    private let collected = Mutex<(ids: Set<Int64>, only: Set<Int64>?)?>(nil)
    /// While set, pages are asked for without the last sync's validators: read whole, never 304.
    private let readingWhole = Mutex(false)

    /// Runs `body`, gathering the hashes of the ids of the entries its pages held (those answering 304 hold none;
    /// with `only`, just those among it, so a feed of every title is compared with a sample without keeping every
    /// id), with the pages read whole when `whole`.
    func collecting<T>(whole: Bool = false, only: Set<Int64>? = nil, _ body: () throws -> T) rethrows -> (T, Set<Int64>) {
        collected.withLock { $0 = ([], only) }
        readingWhole.withLock { $0 = whole }
        defer { readingWhole.withLock { $0 = false } }
        let result = try body()
        return (result, collected.withLock { collected in
            defer { collected = nil }
            return collected?.ids ?? []
        })
    }

    /// Digests of the id lists of the pages read this sync (`KnownPage.idsDigest` for those answering 304).
    private let seenPages = Mutex<Set<Int64>>([])
    /// The catalog itself is behind the sign-in (Codex's is): once a page answered 401 without credentials, every
    /// page goes with them.
    private let catalogGuarded = Mutex(false)

    /// Feeds whose paging was stopped for bringing nothing new (`CrawlReport.stalled`).
    let stalled = Mutex<[String]>([])
    /// Pages in a row of one feed that bring no title not seen this sync, after which its `next` links are no
    /// longer followed: a server paging for ever (a new `next` on every page) ends here, not at `maxPages`.
    static let stalePages = 3
    /// Where the pages' entries are kept for the sync to apply once every page was read.
    private let stage: SyncStage
    /// Which of a section's links the check of a navigation catalog's complete feed follows
    /// (`crawlNavigation`): a different one each sync (the library's last sync run's number), so over time every
    /// section is looked at.
    let sampleSeed: Int
    /// The last sync found the navigation root's feed of every title lacking titles its sections hold (its guard
    /// `SyncGuard.crawlFallback` holds): every section is crawled until a sync finds it whole again.
    let routeLacked: Bool

    init(
        http: HTTPClient, known: [String: KnownPage], storedCrawlable: String?, storedShelf: String?,
        session: LibrarySession?, scratch: URL, maxPages: Int, root: URL, bounds: CrawlBounds,
        retry: RetryPolicy = .pages, stage: SyncStage, sampleSeed: Int = 0, routeLacked: Bool = false,
        log: (@Sendable (String) -> Void)?
    ) {
        self.stage = stage
        self.sampleSeed = sampleSeed
        self.routeLacked = routeLacked
        self.retry = retry
        self.root = root
        self.bounds = bounds
        self.http = http
        self.known = known
        self.storedCrawlable = storedCrawlable
        self.storedShelf = storedShelf
        self.session = session
        self.scratch = scratch
        self.maxPages = maxPages
        self.log = log
    }

    /// Walks the root feed and, when it links one, the crawlable feed, or else the feeds its navigation leads
    /// to; every outcome goes into `channel`.
    func run(into channel: FetchChannel) {
        do {
            guard let firstInfo = try chain(start: root, kind: .root, channel: channel) else { return }
            let crawlable = firstInfo.info?.crawlable?.href ?? (firstInfo.info == nil ? storedCrawlable : nil)
            var report: CrawlReport?
            if let crawlable, let url = URL(string: crawlable) {
                guard try chain(start: url, kind: .catalog, channel: channel) != nil else { return }
            } else if !firstInfo.navigation.isEmpty {
                // A navigation root (calibre, COPS, Kavita…): the books are in the feeds it leads to, all of them
                // in one when it has a feed of every title.
                guard let crawled = try crawlNavigation(rootWalk: firstInfo, channel: channel) else { return }
                report = crawled
            }
            // The patron's loans and holds, when signed in: a feed of its own, read with their credentials.
            var shelf: String?
            if let session, session.isSignedIn,
                let href = firstInfo.info?.shelf?.href ?? storedShelf, let url = URL(string: href)
            {
                guard try chain(start: url, kind: .loans, channel: channel) != nil else { return }
                shelf = href
            }
            let stalled = self.stalled.withLock { $0 }
            if !stalled.isEmpty {
                report = report ?? CrawlReport()
                report?.stalled = stalled
            }
            _ = channel.put(.finished(crawlable: crawlable, shelf: shelf, crawl: report))
        } catch {
            _ = channel.put(.failed(error))
        }
    }

    /// What following one feed's pages found.
    struct Walk {
        /// The first page's feed info; nil when it answered 304.
        var info: OPDSFeedInfo?
        /// The feeds its pages link to that a crawl follows, in document order.
        var navigation: [String] = []
        /// Entries its pages held (those of pages that answered 304 as the last sync counted them).
        var entries = 0
        /// Pages read (or answering 304).
        var pages = 0
    }

    /// Follows `next` links from `start`. Returns nil when the writer has gone away.
    ///
    /// In a crawl (`crawling`), a page another feed already read ends this feed quietly: feeds may share pages.
    func chain(start: URL, kind: FeedKind, channel: FetchChannel, crawling: Bool = false) throws -> Walk? {
        var walk = Walk()
        var next: URL? = start
        var position = 0
        var own: Set<String> = []
        var stale = 0
        while let url = next {
            position += 1
            let key = url.absoluteString
            let feed = kind.name
            let seen = visited.withLock { $0.contains(key) }
            if seen && (!crawling || own.contains(key)) {
                throw SyncError.paginationLoop(feed: feed, page: position - 1, url: key)
            }
            if seen { break }
            if position > maxPages { throw SyncError.tooManyPages(feed: feed, limit: maxPages) }
            _ = visited.withLock { $0.insert(key) }
            own.insert(key)
            // The loans feed holds titles the catalog had, and a crawl's feeds list each other's: neither is judged
            // by whether its pages bring titles not seen this sync.
            let judged = kind != .loans && !crawling
            guard let page = try fetch(url: url, kind: kind, position: position, judgesStale: judged, channel: channel)
            else { return nil }
            if position == 1 { walk.info = page.info }
            walk.pages += 1
            walk.entries += page.entries
            walk.navigation += page.navigation
            next = page.next.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
            // A page answering 304 brought titles when the last sync read it (one that did not is not remembered).
            stale = judged && !page.notModified && page.fresh == 0 ? stale + 1 : 0
            if stale >= Self.stalePages, let following = next {
                let note = "\(feed) page \(position + 1) (\(Redaction.url(following.absoluteString)))"
                log?("\(feed): \(Self.stalePages) pages in a row brought no title not seen this sync; not following \(note)")
                stalled.withLock { $0.append(note) }
                break
            }
        }
        return walk
    }

    struct Page {
        var info: OPDSFeedInfo?
        var next: String?
        var navigation: [String]
        var entries: Int
        /// Entries whose id no page read before in this sync had.
        var fresh = 0
        var notModified = false
    }


    /// Reads one page into `channel`; `judgesStale` when its feed is one whose paging stops once pages bring
    /// nothing new (`stalePages`).
    func fetch(url: URL, kind: FeedKind, position: Int, judgesStale: Bool, channel: FetchChannel) throws -> Page? {
        let address = url.absoluteString
        let feed = kind.name
        // The loans feed is small and the patron's own: always read whole, never from validators.
        var stored = kind == .loans || readingWhole.withLock({ $0 }) ? nil : known[KnownPage.key(kind: kind, url: address)]
        // A navigation root is read whole (it is small): its links' titles and relations choose the crawl's route.
        if kind == .root, position == 1, let root = stored, root.entries == 0, !root.navigation.isEmpty { stored = nil }
        let validators = stored.map { CacheValidators(etag: $0.etag, lastModified: $0.lastModified) }
        log?("fetching \(feed) page \(position): \(Redaction.url(address))")
        let accept = ["Accept": FeedDocument.accept]
        let outcome = try retry.run(retrying: { failure, wait in
            let reason = failure.networkError(url: Redaction.url(address))
            log?("\(feed) page \(position): \(reason); trying again in \(String(format: "%.1f", wait)) s")
        }) {
            do {
                if let session, kind == .loans || session.usesHTTPLogin || catalogGuarded.withLock({ $0 }) {
                    // A plain HTTP login guards the whole catalog, so every page goes with it.
                    return try session.send(url, headers: accept, validators: validators, spillingTo: scratch)
                }
                let answer = try http.get(url, headers: accept, validators: validators, spillingTo: scratch)
                if answer.status == 401, let session, session.isSignedIn, session.isLibraryHost(url) {
                    catalogGuarded.withLock { $0 = true }
                    return try session.send(url, headers: accept, validators: validators, spillingTo: scratch)
                }
                return answer
            } catch let error as CirculationError {
                // Stored credentials the library refused were erased: that is about the library, not this page.
                throw error
            } catch let error as NetworkError where error.isTransient {
                throw error
            } catch let error as ShelfFailure {
                throw SyncError.page(feed: feed, page: position, url: address, reason: error)
            }
        }
        let response: HTTPResponse
        switch outcome {
        case .answered(let answer):
            response = answer
        case .spent(let attempts, let waited, let last):
            let reason = last.networkError(url: Redaction.url(address))
            if attempts == 1 { throw SyncError.page(feed: feed, page: position, url: address, reason: reason) }
            throw SyncError.gaveUp(
                feed: feed, page: position, url: address, attempts: attempts, waited: waited, reason: reason)
        }
        if response.status == 304, let stored {
            guard channel.put(.notModified(kind: kind, url: address, position: position)) else { return nil }
            if let digest = stored.idsDigest { _ = seenPages.withLock { $0.insert(digest) } }
            return Page(
                info: nil, next: stored.nextURL, navigation: stored.navigation, entries: stored.entries, notModified: true)
        }
        guard (200..<300).contains(response.status) else {
            if let session, !session.isSignedIn, let needed = SignIn.needed(by: response, library: session.library.name) {
                throw needed
            }
            let reason: any ShelfFailure = response.status == 304
                ? FeedError.status(304) : NetworkError.httpStatus(url: Redaction.url(address), status: response.status)
            throw SyncError.page(feed: feed, page: position, url: address, reason: reason)
        }
        if response.isHTML {
            throw SyncError.page(feed: feed, page: position, url: address, reason: FeedError.html)
        }
        let base = URL(string: response.url) ?? url
        let contentType = response.header("content-type")
        let (etag, lastModified) = (response.header("etag"), response.header("last-modified"))
        // The page is parsed once, here: its entries are kept as they were read, for the sync to apply them.
        let kept = try stage.entriesFile()
        let read: (info: OPDSFeedInfo, count: Int, fresh: Int, digest: Int64)
        do {
            read = try Self.read(
                StagedDocument(file: response.bodyFile, baseURL: base, contentType: contentType), body: response.body,
                kind: kind, bounds: bounds, keeping: kept, isNew: firstSeen)
        } catch let error as OPDSParseError {
            throw SyncError.page(feed: feed, page: position, url: address, reason: FeedError.parse(error))
        }
        try kept.finish()
        let (info, count, fresh, digest) = read
        // A page holding exactly the titles of one read before this sync (perhaps answering 304) brings nothing.
        let brought = seenPages.withLock { $0.insert(digest).inserted } ? fresh : 0
        // A page that brought no title not seen this sync is not remembered (no validators): the next sync reads it
        // whole and judges it again, so endless paging stops at the same page every time. (A first page without
        // entries, a navigation root's, is remembered: it is not paging.)
        let remembered = !judgesStale || brought > 0 || (position == 1 && count == 0)
        guard channel.put(.page(
            kind: kind, url: address, position: position, etag: remembered ? etag : nil,
            lastModified: remembered ? lastModified : nil, staged: kept.url))
        else { return nil }
        let navigation = crawlLinks(info)
        guard channel.put(.pageEnd(info, count: count, navigation: navigation, idsDigest: digest)) else { return nil }
        return Page(info: info, next: info.next?.href, navigation: navigation, entries: count, fresh: brought)
    }

    /// Parses one page, keeping its entries in `file`, and with `isNew`, counting those it says no page before had.
    static func read(
        _ document: StagedDocument, body: Data = Data(), kind: FeedKind, bounds: CrawlBounds,
        keeping file: EntriesFile, isNew: ((String) -> Bool)? = nil
    ) throws -> (info: OPDSFeedInfo, count: Int, fresh: Int, digest: Int64) {
        var parser = FeedDocument(baseURL: document.baseURL)
        // A crawl follows at most `bounds.feeds` feeds: more links than that are never needed, whatever the feed holds.
        parser.maxNavigation = kind == .loans ? 0 : bounds.feeds + 1
        var count = 0
        var fresh = 0
        var ids = FNV1a()
        let onEntry: (OPDSEntry) throws -> Void = { entry in
            count += 1
            ids.combine(entry.id)
            if let isNew, isNew(entry.id) { fresh += 1 }
            try file.append(entry)
        }
        let info: OPDSFeedInfo
        if let path = document.file {
            info = try parser.parse(file: path, contentType: document.contentType, onEntry: onEntry)
        } else {
            info = try parser.parse(data: body, contentType: document.contentType, onEntry: onEntry)
        }
        return (info, count, fresh, ids.signed)
    }
}
