import Foundation
import GRDB

/// Rebuilds a damaged database file from what can still be read of it, so the patron's own rows (libraries and
/// their settings, follows, the download queue, what they archived, events; positions, bookmarks and the
/// annotation queue) outlive damage to the pages around them.
///
/// The damaged file is never changed or removed: it is renamed aside (`shelf.sqlite.damaged-20261127-190000`, its
/// `-wal` beside it), a new file is made by the migrations, and every table is copied over row by row: forwards
/// until a damaged page stops the scan, backwards from the end likewise, and from points in between found by
/// seeking past the damage. A file whose first page lost its header is read with a header written anew. Debian's
/// SQLite has no recovery API (its `sqlite3 .recover` fails without the `sqlite_dbpage` table), hence this.
///
/// What is cache is rebuilt by the next sync: the feed pages' validators (so no page answers 304 for titles the
/// file lost), the sync's journal, guards and failure streaks.
public enum StoreSalvage {
    /// What one repair kept.
    public struct Report: Sendable, Equatable {
        /// The database repaired.
        public var file: URL
        /// Where the damaged file now is (kept for the patron, or for a later attempt).
        public var aside: URL
        /// Rows copied per table, by table name.
        public var kept: [String: Int]
        /// Tables whose scan met damage (rows may be missing from them).
        public var damaged: [String]
        /// Whether the file's header had to be written anew to be read at all.
        public var newHeader: Bool
    }

    /// Tables that are cache, rebuilt by the next sync: not copied. (The feed pages are, as the titles name them, but
    /// without what would let a page answer 304.)
    static let cache: Set<String> = ["step_undo", "step_undo_titles", "sync_guard", "failure_streak"]

    /// Repairs `file`: moves it aside, makes a new one with `create` (which opens and migrates it), and copies
    /// what can be read. Throws `StoreError.unreadable` when nothing of the old file can be read, or the new one's
    /// error when it cannot be made; either way the old file is put back as it was.
    public static func repair(
        _ file: URL, now: Date = Date(), create: (URL) throws -> DatabaseQueue
    ) throws -> Report {
        let manager = FileManager.default
        let aside = file.deletingLastPathComponent().appendingPathComponent(
            file.lastPathComponent + ".damaged-" + Self.stamp(now))
        try manager.moveItem(at: file, to: aside)
        let wal = URL(fileURLWithPath: file.path + "-wal")
        if manager.fileExists(atPath: wal.path) { try manager.moveItem(at: wal, to: URL(fileURLWithPath: aside.path + "-wal")) }
        // The shared-memory index is derived from the -wal file and rebuilt from it.
        try? manager.removeItem(atPath: file.path + "-shm")
        var scratch: [URL] = []
        defer { for path in scratch { for suffix in ["", "-wal", "-shm"] { try? manager.removeItem(atPath: path.path + suffix) } } }
        do {
            guard let (source, newHeader) = try readable(aside, scratch: &scratch) else {
                throw StoreError.unreadable(path: file.path)
            }
            let target = try create(file)
            var report = Report(file: file, aside: aside, kept: [:], damaged: [], newHeader: newHeader)
            try copy(from: source, to: target, report: &report)
            try source.close()
            try target.close()
            return report
        } catch {
            // Nothing usable was made: the damaged file goes back where it was, as it was.
            for suffix in ["", "-wal", "-shm"] { try? manager.removeItem(atPath: file.path + suffix) }
            try? manager.moveItem(at: aside, to: file)
            if manager.fileExists(atPath: aside.path + "-wal") { try? manager.moveItem(atPath: aside.path + "-wal", toPath: wal.path) }
            throw error
        }
    }

    /// A connection to the damaged file (a copy of it with a new header when its own cannot be read), and whether
    /// a header was written.
    private static func readable(_ file: URL, scratch: inout [URL]) throws -> (DatabaseQueue, Bool)? {
        if let queue = try? open(file), (try? queue.read({ try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_schema") })) != nil {
            return (queue, false)
        }
        // The first page's header is garbage, or the file is shorter than it says: try each page size SQLite
        // allows, from the ones shelf uses.
        let data = try Data(contentsOf: file)
        for pageSize in [16_384, 4_096, 8_192, 32_768, 65_536, 1_024, 2_048, 512] where data.count >= pageSize {
            var patched = data
            // A file cut short loses its last pages, which may hold a table's first page: the schema would name a
            // page past the end, and no table could be read. Its missing pages come back empty (unreadable, as the
            // table they start is), up to the count its header gives, when that is at most 16 MB past the file's
            // end (a header of garbage gives any count).
            let declared = data.count >= 100 ? data[28..<32].reduce(0) { $0 << 8 | Int($1) } : 0
            if declared * pageSize > data.count && declared * pageSize - data.count <= 16 << 20 {
                patched.append(Data(count: declared * pageSize - data.count))
            }
            patched.replaceSubrange(0..<100, with: header(pageSize: pageSize, pages: patched.count / pageSize))
            let copy = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).header-\(pageSize)")
            scratch.append(copy)
            try patched.write(to: copy)
            if FileManager.default.fileExists(atPath: file.path + "-wal") {
                try? FileManager.default.copyItem(atPath: file.path + "-wal", toPath: copy.path + "-wal")
            }
            guard let queue = try? open(copy),
                let names = try? queue.read({ try String.fetchAll($0, sql: "SELECT name FROM sqlite_schema WHERE type = 'table'") }),
                names.contains("grdb_migrations")
            else { continue }
            return (queue, true)
        }
        return nil
    }

    private static func open(_ file: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        configuration.label = "shelf-salvage"
        return try DatabaseQueue(path: file.path, configuration: configuration)
    }

    /// A database header (the first 100 bytes) for a file of `pages` pages of `pageSize` bytes, in WAL mode, UTF-8,
    /// with no free-list (its pages are left unused).
    static func header(pageSize: Int, pages: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: 100)
        bytes.replaceSubrange(0..<16, with: Array("SQLite format 3\0".utf8))
        func put(_ value: UInt32, at offset: Int) {
            for index in 0..<4 { bytes[offset + index] = UInt8((value >> (24 - 8 * index)) & 0xFF) }
        }
        let size = pageSize == 65_536 ? 1 : pageSize
        bytes[16] = UInt8(size >> 8)
        bytes[17] = UInt8(size & 0xFF)
        bytes[18] = 2
        bytes[19] = 2
        bytes[21] = 64
        bytes[22] = 32
        bytes[23] = 32
        put(1, at: 24)
        put(UInt32(pages), at: 28)
        put(1, at: 40)
        put(4, at: 44)
        put(1, at: 56)
        put(1, at: 92)
        put(3_040_001, at: 96)
        return Data(bytes)
    }

    /// Copies every table the new file has (but the cache and the migrations' own) from `source`, column by column
    /// as both have them; then removes rows whose parent row was lost.
    private static func copy(from source: DatabaseQueue, to target: DatabaseQueue, report: inout Report) throws {
        let tables = try target.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        }
        let present = Set((try? source.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table'")
        }) ?? [])
        try target.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                for table in tables where !cache.contains(table) && table != "grdb_migrations" && present.contains(table) {
                    let columns = try db.columns(in: table).map(\.name)
                    let theirs = Set((try? source.read { try $0.columns(in: table).map(\.name) }) ?? [])
                    let shared = columns.filter(theirs.contains)
                    guard !shared.isEmpty else { continue }
                    let list = shared.map { "\"\($0)\"" }.joined(separator: ", ")
                    let insert = try db.makeStatement(
                        sql: "INSERT OR IGNORE INTO \"\(table)\" (\(list)) VALUES (\(shared.map { _ in "?" }.joined(separator: ", ")))")
                    var count = 0
                    let complete = try rows(of: table, columns: list, in: source) { values in
                        try insert.execute(arguments: StatementArguments(values))
                        count += db.changesCount
                    }
                    report.kept[table] = count
                    if !complete { report.damaged.append(table) }
                }
                if report.damaged.contains("edition") {
                    report.kept["edition", default: 0] += try restoreTitles(from: source, into: db)
                }
                return .commit
            }
            // Rows whose parent was on a lost page go too (and theirs after them): a loan without its title means
            // nothing.
            var removed = 1
            while removed > 0 {
                removed = 0
                for orphan in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                    guard let table: String = orphan["table"], let rowID: Int64 = orphan["rowid"] else { continue }
                    try db.execute(sql: "DELETE FROM \"\(table)\" WHERE rowid = ?", arguments: [rowID])
                    removed += db.changesCount
                    report.kept[table, default: 0] -= db.changesCount
                    if !report.damaged.contains(table) { report.damaged.append(table) }
                }
            }
            if tables.contains("feed_page") {
                // Every page is fetched again: one that answered 304 would keep the titles the file lost away.
                try db.execute(sql: "UPDATE feed_page SET etag = NULL, last_modified = NULL, ids_digest = NULL")
            }
            if tables.contains("edition") {
                // A title kept whose links were lost would look unchanged to the next sync, which then writes
                // nothing: every title is written again from its entry (no event is told for it).
                try db.execute(sql: "UPDATE edition SET content_hash = 0")
            }
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        report.damaged.sort()
    }

    /// The columns of the index `shelf list` reads (`edition_list`): what a title lost with its page is brought back
    /// with, under its own rowid, so the positions, bookmarks and downloads keyed by it still find it.
    static let listColumns = [
        "library_id", "title", "entry_id", "authors", "narrators", "medium", "protection", "state", "entitlement",
        "availability_status", "availability_since", "availability_until", "holds_position", "holds_total",
        "copies_available", "copies_total", "in_catalog", "is_draft", "is_paid", "has_local_copy", "has_borrow",
        "duration", "series_name", "series_position", "series_url", "found_by", "short_id",
        "short_width",
    ]

    /// Titles whose rows were lost but whose entries in the list index can be read: each is put back under its
    /// rowid from the index, with hashes of 0 so the next sync writes it whole from its entry without taking it
    /// for a publisher's change (`EntryApplier`). How many were put back.
    static func restoreTitles(from source: DatabaseQueue, into db: Database) throws -> Int {
        let columns = listColumns.map { "\"\($0)\"" }.joined(separator: ", ")
        let select = "SELECT rowid, \(columns) FROM edition INDEXED BY edition_list"
        var found: [Int64: [DatabaseValue]] = [:]
        for order in ["", " ORDER BY library_id DESC, title COLLATE NOCASE DESC, entry_id DESC"] {
            try? source.read { source in
                let cursor = try Row.fetchCursor(source, sql: select + order)
                while let row = try cursor.next() {
                    let values = Array(row.databaseValues)
                    found[row[0]] = Array(values.dropFirst())
                }
            }
        }
        var restored = 0
        for (rowID, values) in found.sorted(by: { $0.key < $1.key }) {
            restored += try insertTitleStub(db, id: rowID, columns: listColumns, values: values)
        }
        return restored
    }

    /// Puts a title back under `id`, with what is known of it (`columns`, its `entry_id` among them), unless a title
    /// has that id or entry already: hashes of 0, so the next sync writes it whole from its entry without taking it
    /// for a publisher's change (`EntryApplier`), and the keys that find it by a short id or the end of its id made
    /// from the id. 1 when it was put back, else 0.
    static func insertTitleStub(_ db: Database, id: Int64, columns: [String], values: [DatabaseValue]) throws -> Int {
        guard let entry = columns.firstIndex(of: "entry_id").flatMap({ String.fromDatabaseValue(values[$0]) }),
              let libraryID = columns.firstIndex(of: "library_id").flatMap({ Int64.fromDatabaseValue(values[$0]) })
        else { return 0 }
        // Nothing refuses a second row for an id (migration v28): looked for first.
        let key = ShortID.key(of: entry).key
        guard try Store.editionRowID(db, libraryID: libraryID, entryID: entry, key: key) == nil else { return 0 }
        var names = ["id"]
        var arguments = [id.databaseValue]
        for (name, value) in zip(columns, values) where name != "id" && name != "short_key" {
            names.append(name)
            arguments.append(value)
        }
        let now = Date().timeIntervalSince1970.databaseValue
        names += ["content_hash", "change_hash", "first_seen_at", "changed_at", "state_changed_at", "short_key"]
        arguments += [0.databaseValue, 0.databaseValue, now, now, now, key.databaseValue]
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO edition (\(names.map { "\"\($0)\"" }.joined(separator: ", ")))
            VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))
            """).execute(arguments: StatementArguments(arguments))
        return db.changesCount
    }

    /// Reads the rows of `table` that can be read, in rowid order, handing each (rowid first dropped) to `take`:
    /// forwards until a damaged page stops the scan, then from points past it (seeking one rowid further, then two,
    /// four…), and backwards from the end down to where the forward scans got. True when no damage was met.
    static func rows(
        of table: String, columns: String, in source: DatabaseQueue, take: ([DatabaseValue]) throws -> Void
    ) throws -> Bool {
        var last: Int64 = .min
        var seen = Set<Int64>()
        func scan(_ sql: String, _ arguments: StatementArguments) -> (rows: [(Int64, [DatabaseValue])], failed: Bool) {
            var rows: [(Int64, [DatabaseValue])] = []
            do {
                try source.read { db in
                    let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                    while let row = try cursor.next() {
                        let values = Array(row.databaseValues)
                        rows.append((row[0], Array(values.dropFirst())))
                    }
                }
                return (rows, false)
            } catch {
                return (rows, true)
            }
        }
        let select = "SELECT rowid, \(columns) FROM \"\(table)\""
        // From the end backwards: on an undamaged table, every row at once.
        let (tail, tailFailed) = scan(select + " ORDER BY rowid DESC", [])
        guard tailFailed else {
            for (_, values) in tail.reversed() { try take(values) }
            return true
        }
        // Damaged: forwards from the start up to where the backward scan stopped, seeking past each damaged page one
        // rowid further, then two, four…; where a seek reads again, backwards from there too, down to the damage.
        let floor = tail.last?.0 ?? .max
        var start: Int64 = .min
        var step: Int64 = 1
        var failedAt: Int64? = nil
        while start < floor {
            let (rows, failed) = scan(select + " WHERE rowid >= ? AND rowid < ? ORDER BY rowid", [start, floor])
            if let failedAt, !rows.isEmpty {
                let (between, _) = scan(select + " WHERE rowid > ? AND rowid < ? ORDER BY rowid DESC", [failedAt, start])
                for (rowID, values) in between.reversed() where seen.insert(rowID).inserted { try take(values) }
            }
            for (rowID, values) in rows where seen.insert(rowID).inserted {
                try take(values)
                last = rowID
            }
            if !failed { break }
            if !rows.isEmpty {
                (start, step, failedAt) = (last, 1, last)
            } else if start < 0 {
                // shelf's rowids start at 1.
                (start, step) = (0, 1)
                continue
            } else if failedAt == nil {
                failedAt = start - 1
            }
            let (next, overflow) = start.addingReportingOverflow(step)
            if overflow { break }
            start = next
            let (doubled, tooFar) = step.multipliedReportingOverflow(by: 2)
            step = tooFar ? .max : doubled
        }
        for (rowID, values) in tail.reversed() where seen.insert(rowID).inserted { try take(values) }
        return false
    }

    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: date)
    }
}
