import Foundation
import GRDB

/// Which feed of a library a page belongs to.
public enum FeedKind: String, Codable, Sendable, DatabaseValueConvertible {
    /// The library's root feed (the URL it was added with).
    case root
    /// The crawlable feed of the whole collection, when the root links one, or a feed found by crawling a
    /// navigation root (keyed by its URL like every page).
    case catalog
    /// The patron's loans and holds.
    case loans

    /// How messages name it: "the catalog", "the loans feed".
    public var name: String { self == .loans ? "loans feed" : "catalog" }
}

/// How a sync run ended, or that it is still running.
public enum SyncStatus: String, Codable, Sendable, DatabaseValueConvertible {
    case running, ok, failed
}

/// One fetched page of a feed: its validators and where it led (table `feed_page`).
struct FeedPageRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "feed_page"
    var id: Int64?
    var libraryID: Int64
    var kind: FeedKind
    var url: String
    /// 1-based place within its feed.
    var position: Int
    var etag: String?
    var lastModified: String?
    var nextURL: String?
    var entryCount: Int
    var fetchedAt: Double
    /// The feeds the page links to that a crawl follows, one URL a line (nil when none).
    var navigation: String?
    /// A digest of the ids the page held, in order, when last read whole (`FeedFetcher.stalePages`).
    var idsDigest: Int64?

    enum CodingKeys: String, CodingKey {
        case id, libraryID = "library_id", kind, url, position, etag, lastModified = "last_modified", nextURL = "next_url"
        case entryCount = "entry_count", fetchedAt = "fetched_at", navigation, idsDigest = "ids_digest"
    }

    /// Every page a library's last sync read.
    static func all(_ db: Database, libraryID: Int64) throws -> [FeedPageRecord] {
        try filter(Column("library_id") == libraryID).fetchAll(db)
    }

    /// Records a page fetched now with its validators, keeping its row (and so its editions' link to it) when it
    /// was read before; returns its id.
    static func fetched(
        _ db: Database, libraryID: Int64, kind: FeedKind, url: String, position: Int, etag: String?, lastModified: String?,
        at now: Double
    ) throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO feed_page (library_id, kind, url, position, etag, last_modified, fetched_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (library_id, kind, url) DO UPDATE SET position = excluded.position,
                etag = excluded.etag, last_modified = excluded.last_modified, fetched_at = excluded.fetched_at
            """, arguments: [libraryID, kind, url, position, etag, lastModified, now])
        return try Int64.fetchOne(
            db, sql: "SELECT id FROM feed_page WHERE library_id = ? AND kind = ? AND url = ?", arguments: [libraryID, kind, url])!
    }

    /// Sets a page's validators (the root's, written once its held-back entries are applied).
    static func validators(_ db: Database, id: Int64, etag: String?, lastModified: String?) throws {
        try db.execute(sql: "UPDATE feed_page SET etag = ?, last_modified = ? WHERE id = ?", arguments: [etag, lastModified, id])
    }

    /// What a page read to its end led to (its next page, the feeds a crawl follows), and how many entries it held.
    static func finished(
        _ db: Database, id: Int64, next: String?, entries: Int, navigation: [String] = [], idsDigest: Int64? = nil
    ) throws {
        try db.execute(
            sql: "UPDATE feed_page SET next_url = ?, entry_count = ?, navigation = ?, ids_digest = ? WHERE id = ?",
            arguments: [next, entries, navigation.isEmpty ? nil : navigation.joined(separator: "\n"), idsDigest, id])
    }

    /// A page the server said is unchanged (304): still part of its feed, perhaps at another place.
    static func unchanged(_ db: Database, id: Int64, position: Int, at now: Double) throws {
        try db.execute(sql: "UPDATE feed_page SET fetched_at = ?, position = ? WHERE id = ?", arguments: [now, position, id])
    }

    /// Forgets pages a sync that started at `started` did not visit: they are no longer part of the feed.
    static func forgetUnvisited(_ db: Database, libraryID: Int64, before started: Double) throws {
        try db.execute(sql: "DELETE FROM feed_page WHERE library_id = ? AND fetched_at < ?", arguments: [libraryID, started])
    }
}

/// One run of `shelf sync` and what it changed (table `sync_run`).
struct SyncRunRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "sync_run"
    var id: Int64?
    var libraryID: Int64
    var startedAt: Double
    var finishedAt: Double?
    var status: SyncStatus
    var pages = 0
    var pagesNotModified = 0
    var entries = 0
    var added = 0
    var changed = 0
    var removed = 0
    var message: String?

    enum CodingKeys: String, CodingKey {
        case id, libraryID = "library_id", startedAt = "started_at", finishedAt = "finished_at", status, pages
        case pagesNotModified = "pages_not_modified", entries, added, changed, removed, message
    }

    init(libraryID: Int64, startedAt: Double, status: SyncStatus, finishedAt: Double? = nil, message: String? = nil) {
        self.libraryID = libraryID
        self.startedAt = startedAt
        self.status = status
        self.finishedAt = finishedAt
        self.message = message
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The last run of a library that ended well.
    static func lastOK(_ db: Database, libraryID: Int64) throws -> Int64? {
        try Int64.fetchOne(
            db, sql: "SELECT id FROM sync_run WHERE library_id = ? AND status = ? ORDER BY id DESC LIMIT 1",
            arguments: [libraryID, SyncStatus.ok])
    }
}

extension Store {
    /// Records a sync that failed, in its own short transaction: the run, and the library's last-sync fields.
    func recordFailedSync(libraryID: Int64, startedAt: Date, message: String) throws {
        try write { db in
            let now = Date().timeIntervalSince1970
            var run = SyncRunRecord(
                libraryID: libraryID, startedAt: startedAt.timeIntervalSince1970, status: .failed, finishedAt: now,
                message: message)
            try run.insert(db)
            try db.execute(sql: """
                UPDATE library SET last_sync_at = ?, last_sync_status = ?, last_sync_message = ? WHERE id = ?
                """, arguments: [now, SyncStatus.failed, message, libraryID])
        }
    }

    /// Records what a sync learnt of the library's feeds and that it ended well.
    static func recordSyncedLibrary(
        _ db: Database, libraryID: Int64, catalogTitle: String?, crawlableURL: String?, shelfURL: String?,
        authDocumentURL: String?, annotationsURL: String?, message: String
    ) throws {
        let now = Date().timeIntervalSince1970
        try db.execute(sql: """
            UPDATE library SET catalog_title = COALESCE(?, catalog_title), crawlable_url = ?,
                shelf_url = COALESCE(?, shelf_url), auth_document_url = COALESCE(?, auth_document_url),
                annotations_url = COALESCE(?, annotations_url), last_sync_at = ?, last_sync_ok_at = ?, last_sync_status = ?,
                last_sync_message = ?
            WHERE id = ?
            """, arguments: [catalogTitle, crawlableURL, shelfURL, authDocumentURL, annotationsURL, now, now, SyncStatus.ok,
                             message, libraryID])
    }
}
