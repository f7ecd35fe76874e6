import Foundation
import GRDB

// The listening state lives in a database file of its own (`positions.sqlite`), so a sync, which holds the
// catalog's write lock while it applies a catalog, never keeps the player or `shelf mark` from saving a position.
// Rows name editions by the catalog's row id and library id; the catalog's foreign keys cannot reach across files,
// so removing a library removes its rows here first (`Store.removeLibrary`).

/// A record of one of the store's tables: its timestamps are seconds since 1970, as everywhere in the store.
public protocol StoreRecord: Codable, FetchableRecord, PersistableRecord {}

extension StoreRecord {
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }

    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }
}

extension Consumption: DatabaseValueConvertible {}

/// How far the patron is in a title, and how fast they listen to it (table `listening`).
struct ListeningRecord: StoreRecord {
    static let databaseTableName = "listening"
    var editionID: Int64
    var libraryID: Int64
    var speed: Double = 1
    var consumption: Consumption = .new
    var percent: Double?
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case editionID = "edition_id", libraryID = "library_id", speed, consumption, percent, updatedAt = "updated_at"
    }
}

/// The last position per device: this one's and those read from the annotation service (table `device_position`).
struct DevicePositionRecord: StoreRecord {
    static let databaseTableName = "device_position"
    var editionID: Int64
    var libraryID: Int64
    var device: String
    var deviceName: String?
    var part: Int
    var seconds: Double
    var readingOrderItem: String
    var at: Date

    enum CodingKeys: String, CodingKey {
        case editionID = "edition_id", libraryID = "library_id", device, deviceName = "device_name", part, seconds
        case readingOrderItem = "reading_order_item", at
    }

    init(_ position: ListeningPosition, of edition: EditionRef) {
        editionID = edition.rowID
        libraryID = edition.libraryID
        device = position.device
        deviceName = position.deviceName
        part = position.part
        seconds = position.seconds
        readingOrderItem = position.readingOrderItem
        at = position.at
    }

    /// The position, named "this computer" when it is this device's.
    func position(ours: String) -> ListeningPosition {
        ListeningPosition(part: part, seconds: seconds, readingOrderItem: readingOrderItem, device: device,
                          deviceName: device == ours ? Store.thisComputer : deviceName, at: at)
    }
}

/// A bookmark kept on this computer (table `bookmark`).
struct BookmarkRecord: StoreRecord {
    static let databaseTableName = "bookmark"
    var id: Int64?
    var editionID: Int64
    var libraryID: Int64
    var part: Int
    var seconds: Double
    var readingOrderItem: String
    var device: String
    var at: Date
    /// The patron's name for it, when given (here or on the device that made it).
    var name: String?
    /// The device's own name, for bookmarks pulled from the annotation service.
    var deviceName: String?
    /// The annotation's id on the server once pushed or pulled: never posted twice, and what a DELETE names.
    var serverID: String?
    /// Deleted here while the server still has it: a tombstone until the DELETE succeeds.
    var deleted: Bool = false

    enum CodingKeys: String, CodingKey {
        case id, editionID = "edition_id", libraryID = "library_id", part, seconds
        case readingOrderItem = "reading_order_item", device, at, name, deviceName = "device_name"
        case serverID = "server_id", deleted
    }

    func position(ours: String) -> ListeningPosition {
        ListeningPosition(part: part, seconds: seconds, readingOrderItem: readingOrderItem, device: device,
                          deviceName: device == ours ? Store.thisComputer : deviceName, at: at)
    }
}

/// What an annotation posted to the library says the patron did.
enum OutboxMotivation: String, Codable, DatabaseValueConvertible {
    case idling, bookmarking

    /// The motivation's URI, as the Palace annotation service names it.
    var uri: String {
        switch self {
        case .idling: Motivation.idling
        case .bookmarking: Motivation.bookmarking
        }
    }
}

/// A position or bookmark waiting to be posted to the annotation service (table `annotation_outbox`): one idling
/// position per edition (the newest replaces it), any number of bookmarks.
struct OutboxRecord: StoreRecord {
    static let databaseTableName = "annotation_outbox"
    var id: Int64?
    var editionID: Int64
    var libraryID: Int64
    var motivation: OutboxMotivation
    var part: Int
    var seconds: Double
    var readingOrderItem: String
    var device: String
    var at: Date
    var lastError: String?
    /// The bookmark this item posts (its server id is recorded there once the library answers).
    var bookmarkID: Int64?

    enum CodingKeys: String, CodingKey {
        case id, editionID = "edition_id", libraryID = "library_id", motivation, part, seconds
        case readingOrderItem = "reading_order_item", device, at, lastError = "last_error", bookmarkID = "bookmark_id"
    }

    init(_ motivation: OutboxMotivation, _ position: ListeningPosition, of edition: EditionRef) {
        editionID = edition.rowID
        libraryID = edition.libraryID
        self.motivation = motivation
        part = position.part
        seconds = position.seconds
        readingOrderItem = position.readingOrderItem
        device = position.device
        at = position.at
    }

    /// Queues `position` as the edition's one pending idling position: the newest replaces an older one in its
    /// place in the queue, and clears the error the older one met.
    static func queueIdling(_ db: Database, _ position: ListeningPosition, of edition: EditionRef) throws {
        try db.execute(sql: """
            INSERT INTO annotation_outbox (edition_id, library_id, motivation, part, seconds, reading_order_item, device, at)
            VALUES (?, ?, 'idling', ?, ?, ?, ?, ?)
            ON CONFLICT (edition_id) WHERE motivation = 'idling' DO UPDATE SET part = excluded.part,
                seconds = excluded.seconds, reading_order_item = excluded.reading_order_item,
                device = excluded.device, at = excluded.at, last_error = NULL
            """, arguments: [edition.rowID, edition.libraryID, position.part, position.seconds, position.readingOrderItem,
                             position.device, position.at.timeIntervalSince1970])
    }
}

/// The positions database's schema, as append-only named migrations (like the catalog's, in `Migrations`).
enum PositionsMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("p1-listening-state") { db in
            try db.execute(sql: """
                -- Small values the store keeps about itself (this device's id).
                CREATE TABLE setting (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );

                CREATE TABLE listening (
                    edition_id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL,
                    speed REAL NOT NULL DEFAULT 1.0,
                    consumption TEXT NOT NULL DEFAULT 'new',
                    percent REAL,
                    updated_at REAL NOT NULL
                );
                CREATE INDEX listening_library ON listening(library_id);

                CREATE TABLE device_position (
                    edition_id INTEGER NOT NULL,
                    library_id INTEGER NOT NULL,
                    device TEXT NOT NULL,
                    device_name TEXT,
                    part INTEGER NOT NULL,
                    seconds REAL NOT NULL,
                    reading_order_item TEXT NOT NULL,
                    at REAL NOT NULL,
                    PRIMARY KEY (edition_id, device)
                );
                CREATE INDEX device_position_library ON device_position(library_id);

                CREATE TABLE bookmark (
                    id INTEGER PRIMARY KEY,
                    edition_id INTEGER NOT NULL,
                    library_id INTEGER NOT NULL,
                    part INTEGER NOT NULL,
                    seconds REAL NOT NULL,
                    reading_order_item TEXT NOT NULL,
                    device TEXT NOT NULL,
                    at REAL NOT NULL
                );
                CREATE INDEX bookmark_edition ON bookmark(edition_id, at);
                CREATE INDEX bookmark_library ON bookmark(library_id);

                CREATE TABLE annotation_outbox (
                    id INTEGER PRIMARY KEY,
                    edition_id INTEGER NOT NULL,
                    library_id INTEGER NOT NULL,
                    motivation TEXT NOT NULL,
                    part INTEGER NOT NULL,
                    seconds REAL NOT NULL,
                    reading_order_item TEXT NOT NULL,
                    device TEXT NOT NULL,
                    at REAL NOT NULL,
                    last_error TEXT
                );
                CREATE UNIQUE INDEX annotation_outbox_idling ON annotation_outbox(edition_id) WHERE motivation = 'idling';
                CREATE INDEX annotation_outbox_library ON annotation_outbox(library_id, id);
                """)
        }
        migrator.registerMigration("p2-bookmark-sync") { db in
            try db.execute(sql: """
                -- A bookmark's name, the device that made it, its annotation's id on the server (never posted twice,
                -- and what a DELETE names) and a tombstone flag kept until the server's copy is deleted.
                ALTER TABLE bookmark ADD COLUMN name TEXT;
                ALTER TABLE bookmark ADD COLUMN device_name TEXT;
                ALTER TABLE bookmark ADD COLUMN server_id TEXT;
                ALTER TABLE bookmark ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
                CREATE UNIQUE INDEX bookmark_server ON bookmark(edition_id, server_id) WHERE server_id IS NOT NULL;

                -- A queued bookmark names its row, so the id the server answers with is recorded on it.
                ALTER TABLE annotation_outbox ADD COLUMN bookmark_id INTEGER;
                UPDATE annotation_outbox SET bookmark_id = (
                    SELECT b.id FROM bookmark b WHERE b.edition_id = annotation_outbox.edition_id
                        AND b.part = annotation_outbox.part AND b.seconds = annotation_outbox.seconds
                        AND b.at = annotation_outbox.at ORDER BY b.id LIMIT 1)
                WHERE motivation = 'bookmarking';
                """)
        }
        migrator.registerMigration("p3-position-offers") { db in
            try db.execute(sql: """
                -- Where this device stands against the others' positions, per title: the `at` of its last position
                -- the library accepted, the `at` of the newest other device's position the patron answered (went
                -- there, stayed, or played past it), and an open offer: another device's newer place that this
                -- device's position is not pushed over until the patron chooses.
                CREATE TABLE position_sync (
                    edition_id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL,
                    pushed_at REAL,
                    settled_at REAL,
                    offer_device TEXT,
                    offer_device_name TEXT,
                    offer_part INTEGER,
                    offer_seconds REAL,
                    offer_item TEXT,
                    offer_at REAL,
                    -- The place this device last put to the title's progression document: a server that keeps no
                    -- device (Codex) hands it back as if from another.
                    put_part INTEGER,
                    put_seconds REAL
                );
                CREATE INDEX position_sync_library ON position_sync(library_id);

                -- A title whose position is not queued was pushed as this device last saved it.
                INSERT INTO position_sync (edition_id, library_id, pushed_at)
                SELECT d.edition_id, d.library_id, d.at FROM device_position d
                WHERE d.device = (SELECT value FROM setting WHERE key = 'device_id')
                    AND NOT EXISTS (SELECT 1 FROM annotation_outbox o WHERE o.edition_id = d.edition_id
                                    AND o.motivation = 'idling');
                """)
        }
        migrator.registerMigration("p4-listening-log-and-playtime") { db in
            try db.execute(sql: """
                -- Every listening session: when, how long heard (seconds of the clock, so 10 minutes at 2x is 10
                -- minutes), where in the book it began and ended, at what speed, on which device. Sessions older
                -- than a year are merged into one per title and day.
                CREATE TABLE listening_session (
                    id INTEGER PRIMARY KEY,
                    edition_id INTEGER NOT NULL,
                    library_id INTEGER NOT NULL,
                    started_at REAL NOT NULL,
                    ended_at REAL NOT NULL,
                    heard REAL NOT NULL DEFAULT 0,
                    from_part INTEGER NOT NULL,
                    from_seconds REAL NOT NULL,
                    to_part INTEGER NOT NULL,
                    to_seconds REAL NOT NULL,
                    speed REAL NOT NULL,
                    device TEXT NOT NULL
                );
                CREATE INDEX listening_session_started ON listening_session(started_at);
                CREATE INDEX listening_session_edition ON listening_session(edition_id, started_at);
                CREATE INDEX listening_session_library ON listening_session(library_id);

                -- Seconds heard per UTC minute of a title whose loan links a timeTracking endpoint, until the
                -- library takes them: one id per minute, so a minute posted twice counts once.
                CREATE TABLE playtime_minute (
                    edition_id INTEGER NOT NULL,
                    library_id INTEGER NOT NULL,
                    minute INTEGER NOT NULL,
                    seconds REAL NOT NULL,
                    entry_id TEXT NOT NULL,
                    tracking_url TEXT NOT NULL,
                    last_error TEXT,
                    PRIMARY KEY (edition_id, minute)
                );
                CREATE INDEX playtime_minute_library ON playtime_minute(library_id, minute);
                """)
        }
        return migrator
    }

    /// Copies the listening state a catalog database from before v8 still holds into the positions database.
    ///
    /// Runs before the catalog's v8 migration drops those tables; replacing rows makes it safe to run again after
    /// a crash between the copy and the drop.
    static func moveListeningState(from catalog: DatabaseQueue, to positions: DatabaseQueue) throws {
        let rows = try catalog.read { db -> [String: [Row]]? in
            guard try db.tableExists("listening") else { return nil }
            return [
                "setting": try Row.fetchAll(db, sql: "SELECT key, value FROM setting"),
                "listening": try Row.fetchAll(db, sql: """
                    SELECT ls.edition_id, e.library_id, ls.speed, ls.consumption, ls.percent, ls.updated_at
                    FROM listening ls JOIN edition e ON e.id = ls.edition_id
                    """),
                "device_position": try Row.fetchAll(db, sql: """
                    SELECT d.edition_id, e.library_id, d.device, d.device_name, d.part, d.seconds, d.reading_order_item, d.at
                    FROM device_position d JOIN edition e ON e.id = d.edition_id
                    """),
                "bookmark": try Row.fetchAll(db, sql: """
                    SELECT b.id, b.edition_id, e.library_id, b.part, b.seconds, b.reading_order_item, b.device, b.at
                    FROM bookmark b JOIN edition e ON e.id = b.edition_id
                    """),
                "annotation_outbox": try Row.fetchAll(db, sql: """
                    SELECT id, edition_id, library_id, motivation, part, seconds, reading_order_item, device, at, last_error
                    FROM annotation_outbox
                    """),
            ]
        }
        guard let rows, rows.values.contains(where: { !$0.isEmpty }) else { return }
        try positions.inTransaction(.immediate) { db in
            for (table, tableRows) in rows {
                for row in tableRows {
                    let columns = Array(row.columnNames)
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO \(table) (\(columns.joined(separator: ", "))) VALUES ("
                            + columns.map { _ in "?" }.joined(separator: ", ") + ")",
                        arguments: StatementArguments(row.databaseValues))
                }
            }
            return .commit
        }
    }
}

/// A queued annotation with what posting it needs from the catalog.
struct QueuedAnnotation {
    var item: OutboxRecord
    var entryID: String
    /// The title's id as `shelf list` shows it.
    var shortID: String
    var title: String
    var annotationsURL: String?
    var serviceURL: String?
    var partTitle: String?
}

extension Store {
    /// A library's queued positions and bookmarks, oldest first, with their titles' annotation links; items of
    /// titles the catalog no longer has are left out.
    func queuedAnnotations(of library: Library) throws(StoreError) -> [QueuedAnnotation] {
        let items = try readPositions { db in
            try OutboxRecord.filter(Column("library_id") == library.id).order(Column("id")).fetchAll(db)
        }
        guard !items.isEmpty else { return [] }
        return try read { db in
            let service = try String.fetchOne(db, sql: "SELECT annotations_url FROM library WHERE id = ?", arguments: [library.id])
            return try items.compactMap { item in
                guard let row = try Row.fetchOne(db, sql: """
                    SELECT e.entry_id, e.title, e.detail, e.authors, e.narrators,
                        (SELECT p.title FROM part p WHERE p.edition_id = e.id AND p.idx = ?) AS part_title
                    FROM edition e WHERE e.id = ?
                    """, arguments: [item.part, item.editionID])
                else { return nil }
                return QueuedAnnotation(
                    item: item, entryID: row["entry_id"],
                    shortID: try ShortID.shortID(of: row["entry_id"], libraryID: library.id, in: db),
                    title: row["title"],
                    annotationsURL: Store.editionDetail(row)?.annotationsURL,
                    serviceURL: service, partTitle: row["part_title"])
            }
        }
    }

    /// Takes a pushed item off the queue, unless a newer position replaced it in the meantime.
    func dequeue(_ item: OutboxRecord) throws(StoreError) {
        try writePositions { db in
            try db.execute(sql: "DELETE FROM annotation_outbox WHERE id = ? AND at = ?",
                           arguments: [item.id, item.at.timeIntervalSince1970])
        }
    }

    /// Records why an item (or, with nil, every item of the library) is still queued.
    func setPushError(_ reason: String, item: Int64?, library libraryID: Int64) throws(StoreError) {
        try writePositions { db in
            if let item {
                try db.execute(sql: "UPDATE annotation_outbox SET last_error = ? WHERE id = ?", arguments: [reason, item])
            } else {
                try db.execute(sql: "UPDATE annotation_outbox SET last_error = ? WHERE library_id = ?", arguments: [reason, libraryID])
            }
        }
    }

    /// Why the newest queued item of an edition has not been pushed yet, if it was tried.
    func pendingPushError(of edition: EditionRef) throws(StoreError) -> String? {
        try readPositions { db in
            try String.fetchOne(db, sql: """
                SELECT last_error FROM annotation_outbox WHERE edition_id = ? AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1
                """, arguments: [edition.rowID])
        }
    }
}
