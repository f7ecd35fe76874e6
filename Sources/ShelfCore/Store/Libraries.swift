import Foundation
import GRDB

/// A library the patron has added: its catalog URL and what the last sync learnt about it.
public struct Library: Codable, Sendable, Equatable, FetchableRecord {
    public var id: Int64
    public var name: String
    public var url: String
    public var isDefault: Bool
    public var catalogTitle: String?
    public var crawlableURL: String?
    public var shelfURL: String?
    public var authDocumentURL: String?
    /// The library's annotation service (reading positions, bookmarks), when its feeds link one.
    public var annotationsURL: String?
    public var createdAt: Date
    public var lastSyncAt: Date?
    public var lastSyncOKAt: Date?
    public var lastSyncStatus: String?
    public var lastSyncMessage: String?
    /// How deep a sync crawls a navigation catalog, when the patron set it (else `CrawlBounds.standard`).
    public var crawlDepth: Int?
    /// How many feeds a sync crawls at most, when the patron set it.
    public var crawlFeeds: Int?

    /// What a sync downloads by itself (`loans` when the patron never said).
    public var autoDownload: DownloadPolicy
    /// How many finished downloaded titles to keep at most; the oldest finished are archived first.
    public var keepFinished: Int?
    /// A size budget for the library's downloaded titles, in bytes.
    public var maxBytes: Int64?
    /// Each sync sends a desktop notification per new event (`shelf library set NAME --notify on`).
    public var notify: Bool
    /// The patron's switch for syncing positions with the library (`library set --sync-positions`); nil: as the
    /// library's patron profile says, else on.
    public var syncPositions: Bool?
    /// The library's patron profile (Palace's `/patrons/me/`), and what its `simplified:synchronize_annotations`
    /// said at the last sync (nil: unset, or never read).
    public var profileURL: String?
    public var profileSyncAnnotations: Bool?

    /// Whether positions and bookmarks are read from and sent to the library: the patron's switch, else the
    /// profile's setting (only its `false` turns it off).
    public var positionsSynced: Bool { syncPositions ?? (profileSyncAnnotations != false) }

    /// The crawl bounds this library's syncs use.
    public var crawlBounds: CrawlBounds {
        CrawlBounds(depth: crawlDepth ?? CrawlBounds.standard.depth, feeds: crawlFeeds ?? CrawlBounds.standard.feeds)
    }

    /// A `library` row (this type is that table's record).
    public init(row: Row) {
        id = row["id"]
        name = row["name"]
        url = row["url"]
        isDefault = row["is_default"]
        catalogTitle = row["catalog_title"]
        crawlableURL = row["crawlable_url"]
        shelfURL = row["shelf_url"]
        authDocumentURL = row["auth_document_url"]
        annotationsURL = row["annotations_url"]
        createdAt = Date(timeIntervalSince1970: row["created_at"])
        lastSyncAt = row.date("last_sync_at")
        lastSyncOKAt = row.date("last_sync_ok_at")
        lastSyncStatus = row["last_sync_status"]
        lastSyncMessage = row["last_sync_message"]
        crawlDepth = row["crawl_depth"]
        crawlFeeds = row["crawl_feeds"]
        autoDownload = (row["auto_download"] as String?).flatMap(DownloadPolicy.init(rawValue:)) ?? .loans
        keepFinished = row["keep_finished"]
        maxBytes = row["max_bytes"]
        notify = row["notify"] ?? false
        syncPositions = row["sync_positions"]
        profileURL = row["profile_url"]
        profileSyncAnnotations = row["profile_sync_annotations"]
    }
}

/// What a sync downloads by itself, per library.
public enum DownloadPolicy: String, Codable, Sendable, CaseIterable {
    /// Nothing: `shelf download` by hand.
    case none
    /// Audiobooks on loan, and updates of titles downloaded before (the default).
    case loans
    /// Also the free titles of followed authors and series.
    case all
}

/// How far a sync crawls a catalog whose root is a navigation feed: how many links deep from the root, and how
/// many feeds at most (the root not counted).
public struct CrawlBounds: Codable, Sendable, Equatable {
    public var depth: Int
    public var feeds: Int

    /// The defaults named in shelf(1): 4 links deep, 200 feeds.
    public static let standard = CrawlBounds(depth: 4, feeds: 200)
    /// How many of a navigation root's other sections the check of its feed of every title looks into, and how
    /// many pages it reads for that at most (within the feeds bound: the feed itself is one).
    public static let routeCheckSections = 3
    public static let routeCheckPages = 6

    /// Creates the value from its parts.
    public init(depth: Int, feeds: Int) {
        self.depth = depth
        self.feeds = feeds
    }
}

extension Store {
    /// Adds a library; the first one added becomes the default.
    @discardableResult
    public func addLibrary(
        name: String, url: URL, makeDefault: Bool = false, crawlDepth: Int? = nil, crawlFeeds: Int? = nil
    ) throws -> Library {
        try write { db in
            if try Row.fetchOne(db, sql: "SELECT 1 FROM library WHERE name = ?", arguments: [name]) != nil {
                throw StoreError.libraryExists(name)
            }
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM library") ?? 0
            let isDefault = makeDefault || count == 0
            if isDefault { try db.execute(sql: "UPDATE library SET is_default = 0") }
            try db.execute(
                sql: """
                    INSERT INTO library (name, url, is_default, created_at, crawl_depth, crawl_feeds) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [name, url.absoluteString, isDefault, Date().timeIntervalSince1970, crawlDepth, crawlFeeds])
            return try Self.library(db, name: name)
        }
    }

    /// Keeps where a library's Authentication document is (a registry links it), so that `shelf login` reads it
    /// before any sync has found the catalog's own link.
    public func setAuthDocumentURL(name: String, url: String) throws {
        try write { db in
            let library = try Self.library(db, name: name)
            try db.execute(sql: "UPDATE library SET auth_document_url = ? WHERE id = ?", arguments: [url, library.id])
        }
    }

    /// Fails with `libraryExists` when a library of that name is stored (checked before looking at a URL).
    public func requireNewLibraryName(_ name: String) throws {
        try read { db in
            if try Row.fetchOne(db, sql: "SELECT 1 FROM library WHERE name = ?", arguments: [name]) != nil {
                throw StoreError.libraryExists(name)
            }
        }
    }

    /// Sets how deep and how wide a library's syncs crawl; a nil leaves that bound as it is.
    @discardableResult
    public func setCrawlBounds(name: String, depth: Int?, feeds: Int?) throws -> Library {
        try write { db in
            let library = try Self.library(db, name: name)
            try db.execute(
                sql: "UPDATE library SET crawl_depth = COALESCE(?, crawl_depth), crawl_feeds = COALESCE(?, crawl_feeds) WHERE id = ?",
                arguments: [depth, feeds, library.id])
            // New settings may mend what failed: the next sync is not skipped for the old failures.
            try Self.deleteStreak(db, libraryID: library.id, editionID: nil)
            return try Self.library(db, name: name)
        }
    }

    /// Sets what a library's syncs download by itself; a nil leaves that setting as it is, and a `keep` or
    /// `maxBytes` of 0 removes the limit.
    @discardableResult
    public func setDownloadPolicy(
        name: String, policy: DownloadPolicy?, keep: Int?, maxBytes: Int64?, notify: Bool? = nil
    ) throws -> Library {
        try write { db in
            let library = try Self.library(db, name: name)
            if let notify { try db.execute(sql: "UPDATE library SET notify = ? WHERE id = ?", arguments: [notify, library.id]) }
            try db.execute(
                sql: """
                    UPDATE library SET auto_download = COALESCE(?, auto_download),
                        keep_finished = CASE WHEN ? IS NULL THEN keep_finished ELSE NULLIF(?, 0) END,
                        max_bytes = CASE WHEN ? IS NULL THEN max_bytes ELSE NULLIF(?, 0) END
                    WHERE id = ?
                    """,
                arguments: [policy?.rawValue, keep, keep, maxBytes, maxBytes, library.id])
            try Self.deleteStreak(db, libraryID: library.id, editionID: nil)
            return try Self.library(db, name: name)
        }
    }

    /// Sets the patron's switch for syncing positions with the library (nil: as its patron profile says). Like every
    /// other setting, it ends the library's back-off.
    public func setSyncPositions(name: String, _ on: Bool?) throws -> Library {
        try write { db in
            let library = try Self.library(db, name: name)
            try db.execute(sql: "UPDATE library SET sync_positions = ? WHERE id = ?", arguments: [on, library.id])
            try Self.deleteStreak(db, libraryID: library.id, editionID: nil)
            return try Self.library(db, name: name)
        }
    }

    /// Records the library's patron profile and its `simplified:synchronize_annotations`; returns what it said
    /// before.
    @discardableResult
    func setProfile(libraryID: Int64, url: String?, synchronize: Bool?) throws -> Bool? {
        try write { db in
            let before = try Bool?.fetchOne(
                db, sql: "SELECT profile_sync_annotations FROM library WHERE id = ?", arguments: [libraryID]) ?? nil
            try db.execute(sql: "UPDATE library SET profile_url = ?, profile_sync_annotations = ? WHERE id = ?",
                           arguments: [url, synchronize, libraryID])
            return before
        }
    }

    /// Points an existing library at a new URL (the demo library's port changes on every start). What was learnt at
    /// the old URL (its feeds, sign-in document, annotation service) is forgotten; the stored sign-in, bound to the
    /// old URL, is no longer sent (`CredentialStore.load(for:)`).
    public func setLibraryURL(name: String, url: URL) throws {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE library SET url = ?, crawlable_url = NULL, shelf_url = NULL, auth_document_url = NULL,
                        annotations_url = NULL, profile_url = NULL, profile_sync_annotations = NULL
                    WHERE name = ?
                    """,
                arguments: [url.absoluteString, name])
            guard db.changesCount > 0 else { throw StoreError.libraryNotFound(name) }
        }
    }

    /// Makes `name` the library commands use when `--library` is not given.
    public func setDefaultLibrary(name: String) throws {
        try write { db in
            _ = try Self.library(db, name: name)
            try db.execute(sql: "UPDATE library SET is_default = (name = ?)", arguments: [name])
        }
    }

    /// Removes a library and everything stored for it.
    public func removeLibrary(name: String) throws {
        // The listening state goes first: its rows name editions by row ids a later library could be given.
        try forgetListening(in: try library(named: name).id)
        try write { db in
            let library = try Self.library(db, name: name)
            try db.execute(sql: "DELETE FROM library WHERE id = ?", arguments: [library.id])
            if library.isDefault {
                try db.execute(sql: "UPDATE library SET is_default = 1 WHERE id = (SELECT MIN(id) FROM library)")
            }
        }
    }

    /// Every library, default first.
    public func libraries() throws(StoreError) -> [Library] {
        try read { db in
            try Library.fetchAll(db, sql: "SELECT * FROM library ORDER BY is_default DESC, name")
        }
    }

    /// The library named, or the default one when `name` is nil.
    public func library(named name: String?) throws(StoreError) -> Library {
        do {
            return try queue.read { db in try Self.library(db, name: name) }
        } catch {
            throw Store.translate(error, path: path.path)
        }
    }

    static func library(_ db: Database, name: String?) throws -> Library {
        if let name {
            guard let library = try Library.fetchOne(db, sql: "SELECT * FROM library WHERE name = ?", arguments: [name]) else {
                throw StoreError.libraryNotFound(name)
            }
            return library
        }
        guard let library = try Library.fetchOne(db, sql: "SELECT * FROM library ORDER BY is_default DESC, id LIMIT 1") else {
            throw StoreError.noLibrary
        }
        return library
    }
}

extension Row {
    /// A timestamp column (seconds since 1970, as the store keeps them), nil when NULL.
    func date(_ column: String) -> Date? {
        (self[column] as Double?).map(Date.init(timeIntervalSince1970:))
    }
}
