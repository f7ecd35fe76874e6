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
        case .page(let feed, let page, let url, let reason):
            "sync stopped at page \(page) of the \(feed) (\(Redaction.url(url))): \(reason); nothing was changed"
        case .paginationLoop(let feed, let page, let url):
            "sync stopped: page \(page) of the \(feed) links back to \(Redaction.url(url)) (a pagination loop); nothing was changed"
        case .tooManyPages(let feed, let limit):
            "sync stopped: the \(feed) has more than \(limit) pages; nothing was changed"
        }
    }
}

/// Why a document from the server could not be used.
public enum FeedError: ShelfFailure {
    case parse(OPDSParseError)
    case html
    case status(Int)

    public var exitCode: ShelfExit { .badData }

    public var description: String {
        switch self {
        case .html: "the server sent an HTML page, not an OPDS feed; check the library URL"
        case .status(let status): "unexpected status \(status)"
        case .parse(let error):
            switch error {
            case .malformed(let line, let column, let message):
                "malformed XML at line \(line), column \(column): \(message)"
            case .notAtom(let root): "not an OPDS/Atom feed (the document's root is <\(root)>)"
            case .entryTooLarge(let line, let limit):
                "an entry at line \(line) is larger than \(limit / 1_048_576) MB; refusing it"
            case .unreadable(let reason): "unreadable document: \(reason)"
            }
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
    public var warnings: [String] = []
    public var seconds: Double = 0

    public init(library: String) { self.library = library }

    /// `12 new, 3 updated, 1 removed`.
    public var line: String {
        var parts = ["\(added) new", "\(changed) updated", "\(removed) removed"]
        if restored > 0 { parts.append("\(restored) restored") }
        return parts.joined(separator: ", ")
    }
}

/// Settings for one sync.
public struct SyncOptions: Sendable {
    /// How long to wait for another sync to finish before giving up.
    public var lockTimeout: TimeInterval = 10
    public var maxPages = 100_000
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
        let scratch = home.temporary.appendingPathComponent("page-\(getpid()).xml")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            var summary = try store.write { db in
                try self.run(library, db: db, started: started, scratch: scratch)
            }
            summary.seconds = Date().timeIntervalSince(started)
            return summary
        } catch let error as ShelfFailure {
            recordFailure(library, started: started, message: error.description)
            throw error
        }
    }

    private func recordFailure(_ library: Library, started: Date, message: String) {
        _ = try? store.write { db in
            try db.execute(sql: """
                INSERT INTO sync_run (library_id, started_at, finished_at, status, message) VALUES (?, ?, ?, 'failed', ?)
                """, arguments: [library.id, started.timeIntervalSince1970, Date().timeIntervalSince1970, message])
            try db.execute(sql: """
                UPDATE library SET last_sync_at = ?, last_sync_status = 'failed', last_sync_message = ? WHERE id = ?
                """, arguments: [Date().timeIntervalSince1970, message, library.id])
        }
    }

    private func run(_ given: Library, db: Database, started: Date, scratch: URL) throws -> SyncSummary {
        // What the last sync learnt (the crawlable feed's URL) is read afresh, not taken from the caller's copy.
        let library = try Store.library(db, name: given.name)
        try db.execute(
            sql: "INSERT INTO sync_run (library_id, started_at, status) VALUES (?, ?, 'running')",
            arguments: [library.id, started.timeIntervalSince1970])
        let syncID = db.lastInsertedRowID
        let applier = try EntryApplier(db: db, libraryID: library.id, syncID: syncID, now: started)
        var summary = SyncSummary(library: library.name)
        var walk = Walk(db: db, libraryID: library.id, applier: applier, scratch: scratch, started: started)

        guard let rootURL = URL(string: library.url) else { throw NetworkError.unsupportedURL(library.url) }
        // The root's own entries are a featured selection when it links a crawlable feed of everything,
        // so they are held back until the root's links (at the end of the document, in Palace feeds) are known.
        var rootEntries: [OPDSEntry] = []
        let root = try fetchChain(
            start: rootURL, kind: "root", feedName: "catalog", walk: &walk, summary: &summary,
            firstPage: { entry in rootEntries.append(entry) })
        let crawlable = root.info?.crawlable?.href ?? (root.info == nil ? library.crawlableURL : nil)
        if let crawlable, let crawlableURL = URL(string: crawlable) {
            _ = try fetchChain(
                start: crawlableURL, kind: "catalog", feedName: "catalog", walk: &walk, summary: &summary,
                firstPage: nil)
        } else if let firstPageID = root.firstPageID {
            for entry in rootEntries { try count(applier.apply(entry, pageID: firstPageID), into: &summary) }
            walk.entries += rootEntries.count
        }
        summary.entries = walk.entries

        let catalogBefore = try applier.catalogCount()
        if walk.entries == 0 && catalogBefore > 1 {
            summary.warnings.append(
                "the catalog came back empty; kept the \(catalogBefore) titles already stored (run sync again later)")
        } else {
            let removed = try applier.removeUnseen()
            summary.removed = removed.count
        }
        summary.catalogTitles = try applier.catalogCount()
        summary.warnings += walk.warnings

        // Pages not visited this time are no longer part of the feed.
        try db.execute(sql: """
            DELETE FROM feed_page WHERE library_id = ? AND fetched_at < ?
            """, arguments: [library.id, started.timeIntervalSince1970])
        let info = root.info
        try db.execute(sql: """
            UPDATE library SET catalog_title = COALESCE(?, catalog_title), crawlable_url = ?,
                shelf_url = COALESCE(?, shelf_url), auth_document_url = COALESCE(?, auth_document_url),
                last_sync_at = ?, last_sync_ok_at = ?, last_sync_status = 'ok', last_sync_message = ?
            WHERE id = ?
            """, arguments: [
                info?.title, crawlable, info?.shelf?.href, info?.authDocument?.href, Date().timeIntervalSince1970,
                Date().timeIntervalSince1970, summary.line, library.id,
            ])
        try db.execute(sql: """
            UPDATE sync_run SET finished_at = ?, status = 'ok', pages = ?, pages_not_modified = ?, entries = ?,
                added = ?, changed = ?, removed = ?, message = ? WHERE id = ?
            """, arguments: [
                Date().timeIntervalSince1970, summary.pages, summary.pagesNotModified, summary.entries,
                summary.added, summary.changed, summary.removed, summary.line, syncID,
            ])
        return summary
    }

    /// State carried across the feeds of one sync.
    private struct Walk {
        let db: Database
        let libraryID: Int64
        let applier: EntryApplier
        let scratch: URL
        let started: Date
        var visited: Set<String> = []
        var entries = 0
        var warnings: [String] = []
    }

    private struct ChainResult {
        /// The first page's feed info, or nil when it was not modified.
        var info: OPDSFeedInfo?
        var firstPageID: Int64?
    }

    /// Follows `next` links from `start`, applying each page's entries; `firstPage` diverts the first page's
    /// entries (the root's featured list) to the caller instead.
    private func fetchChain(
        start: URL, kind: String, feedName: String, walk: inout Walk, summary: inout SyncSummary,
        firstPage: ((OPDSEntry) -> Void)?
    ) throws -> ChainResult {
        var result = ChainResult()
        var next: URL? = start
        var position = 0
        while let url = next {
            position += 1
            let key = url.absoluteString
            if walk.visited.contains(key) {
                throw SyncError.paginationLoop(feed: feedName, page: position - 1, url: key)
            }
            if position > options.maxPages { throw SyncError.tooManyPages(feed: feedName, limit: options.maxPages) }
            walk.visited.insert(key)
            let page = try fetchPage(
                url: url, kind: kind, position: position, feedName: feedName, walk: &walk, summary: &summary,
                divert: position == 1 ? firstPage : nil)
            if position == 1 {
                result.info = page.info
                result.firstPageID = page.id
            }
            next = page.next.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        }
        return result
    }

    private struct PageResult {
        var id: Int64
        var info: OPDSFeedInfo?
        var next: String?
    }

    private func fetchPage(
        url: URL, kind: String, position: Int, feedName: String, walk: inout Walk, summary: inout SyncSummary,
        divert: ((OPDSEntry) -> Void)?
    ) throws -> PageResult {
        let db = walk.db
        let stored = try Row.fetchOne(db, sql: """
            SELECT id, etag, last_modified, next_url FROM feed_page WHERE library_id = ? AND kind = ? AND url = ?
            """, arguments: [walk.libraryID, kind, url.absoluteString])
        let validators = stored.map { CacheValidators(etag: $0["etag"], lastModified: $0["last_modified"]) }
        options.log?("fetching \(feedName) page \(position): \(Redaction.url(url.absoluteString))")
        let response: HTTPResponse
        do {
            response = try http.get(
                url, headers: ["Accept": "application/atom+xml;profile=opds-catalog, application/atom+xml, application/xml;q=0.9, */*;q=0.5"],
                validators: validators, to: walk.scratch)
        } catch {
            throw SyncError.page(feed: feedName, page: position, url: url.absoluteString, reason: error)
        }
        summary.pages += 1
        let now = walk.started.timeIntervalSince1970

        if response.status == 304, let stored {
            let pageID: Int64 = stored["id"]
            summary.pagesNotModified += 1
            try db.execute(sql: "UPDATE feed_page SET fetched_at = ?, position = ? WHERE id = ?",
                           arguments: [now, position, pageID])
            walk.entries += try walk.applier.markPageSeen(pageID)
            return PageResult(id: pageID, info: nil, next: stored["next_url"])
        }
        guard (200..<300).contains(response.status) else {
            let reason: any ShelfFailure = response.status == 304
                ? FeedError.status(304) : NetworkError.httpStatus(url: url.absoluteString, status: response.status)
            throw SyncError.page(feed: feedName, page: position, url: url.absoluteString, reason: reason)
        }
        if let type = response.header("content-type")?.lowercased(), type.contains("text/html") {
            throw SyncError.page(feed: feedName, page: position, url: url.absoluteString, reason: FeedError.html)
        }

        try db.execute(sql: """
            INSERT INTO feed_page (library_id, kind, url, position, etag, last_modified, fetched_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (library_id, kind, url) DO UPDATE SET position = excluded.position, etag = excluded.etag,
                last_modified = excluded.last_modified, fetched_at = excluded.fetched_at
            """, arguments: [walk.libraryID, kind, url.absoluteString, position, response.header("etag"),
                             response.header("last-modified"), now])
        let pageID = try Int64.fetchOne(db, sql: "SELECT id FROM feed_page WHERE library_id = ? AND kind = ? AND url = ?",
                                        arguments: [walk.libraryID, kind, url.absoluteString])!

        let parser = OPDSParser(baseURL: URL(string: response.url) ?? url)
        var pageEntries = 0
        let applier = walk.applier
        var outcomes = summary
        let info: OPDSFeedInfo
        do {
            info = try parser.parse(file: walk.scratch) { entry in
                pageEntries += 1
                if let divert {
                    divert(entry)
                } else {
                    try count(applier.apply(entry, pageID: pageID), into: &outcomes)
                }
            }
        } catch let error as OPDSParseError {
            throw SyncError.page(feed: feedName, page: position, url: url.absoluteString, reason: FeedError.parse(error))
        }
        summary = outcomes
        if divert == nil { walk.entries += pageEntries }
        walk.warnings += info.warnings.map { "\(feedName) page \(position): \($0)" }
        try db.execute(sql: "UPDATE feed_page SET next_url = ?, entry_count = ? WHERE id = ?",
                       arguments: [info.next?.href, pageEntries, pageID])
        return PageResult(id: pageID, info: info, next: info.next?.href)
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
