import CSQLiteSession
import Foundation
import GRDB
import GRDBSQLite

/// The undo journal of a run that writes in steps (`Store.writeInSteps(journal:_:)`): an SQLite session records
/// what each step changes, and the step's changes, inverted, are written to `step_undo` in the step's own
/// transaction. The run's last step forgets them in its transaction, which is the run's commit: until then, what it
/// wrote can be undone. A run that fails undoes its steps at once; one killed leaves its journal for
/// `Store.undoUnfinished(_:)`.
///
/// Only the run's own connection is recorded: another process's writes in the gaps between steps are not, and
/// undoing keeps them (see `undo(_:journal:)`).
struct StepJournal {
    let name: String
    /// The library whose first sync this is: its title rows (`edition`), all new, are not recorded;
    /// undoing removes the library's titles above the largest id there was before (`step_undo_titles`).
    let firstSyncOf: Int64?
    private var session: OpaquePointer?
    private var step = 0

    init(name: String, firstSyncOf library: Int64? = nil) {
        self.name = name
        firstSyncOf = library
    }

    /// The tables a first sync leaves unrecorded, as C strings for the session's table filter (made once, kept).
    /// Never written after it is made.
    nonisolated(unsafe) private static let titleTables: UnsafeMutablePointer<UnsafePointer<CChar>?> = {
        let names = ["edition"]
        let list = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: names.count + 1)
        for (index, name) in names.enumerated() { list[index] = UnsafePointer(strdup(name)) }
        list[names.count] = nil
        return list
    }()

    /// Starts recording the changes of the step that `db`'s transaction begins. The corresponding C functions are
    /// `sqlite3session_create` and `sqlite3session_attach` (every table with a primary key, which is all of them;
    /// a first sync's filter leaves out the title tables).
    mutating func begin(_ db: Database) throws {
        if step == 0, let library = firstSyncOf {
            // Written in the first step's transaction, before anything is recorded: it commits with that step.
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO step_undo_titles (journal, library_id, above)
                    VALUES (?, ?, (SELECT COALESCE(MAX(id), 0) FROM edition))
                    """,
                arguments: [name, library])
        }
        var session: OpaquePointer?
        guard sqlite3session_create(db.sqliteConnection, "main", &session) == SQLITE_OK, let session else {
            throw StoreError.failed(reason: "could not record the sync's changes (sqlite3session_create failed)")
        }
        let attached = firstSyncOf == nil
            ? sqlite3session_attach(session, nil) : CSQLiteSession_attachAllBut(session, Self.titleTables)
        guard attached == SQLITE_OK else {
            sqlite3session_delete(session)
            throw StoreError.failed(reason: "could not record the sync's changes (sqlite3session_attach failed)")
        }
        self.session = session
    }

    /// Writes the inverse of what the step changed, in the step's transaction (not itself recorded: the session is
    /// gone by then). The corresponding C functions are `sqlite3session_changeset` and `sqlite3changeset_invert`.
    mutating func end(_ db: Database) throws {
        guard let session else { return }
        self.session = nil
        var length: Int32 = 0
        var changes: UnsafeMutableRawPointer?
        let status = sqlite3session_changeset(session, &length, &changes)
        sqlite3session_delete(session)
        defer { sqlite3_free(changes) }
        guard status == SQLITE_OK else {
            throw StoreError.failed(reason: "could not record the sync's changes (sqlite3session_changeset: \(status))")
        }
        step += 1
        guard length > 0, let changes else { return }
        var inverseLength: Int32 = 0
        var inverse: UnsafeMutableRawPointer?
        defer { sqlite3_free(inverse) }
        guard sqlite3changeset_invert(length, changes, &inverseLength, &inverse) == SQLITE_OK, let inverse else {
            throw StoreError.failed(reason: "could not record the sync's changes (sqlite3changeset_invert failed)")
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO step_undo (journal, step, changes) VALUES (?, ?, ?)",
            arguments: [name, step, Data(bytes: inverse, count: Int(inverseLength))])
    }

    /// Stops recording without writing anything: the step was rolled back.
    mutating func discard() {
        if let session { sqlite3session_delete(session) }
        session = nil
    }

    /// The run's commit: in the last step's transaction, what would undo its steps is forgotten.
    func finish(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM step_undo WHERE journal = ?", arguments: [name])
        try db.execute(sql: "DELETE FROM step_undo_titles WHERE journal = ?", arguments: [name])
    }

    /// What undoing a run did.
    struct Undone: Equatable {
        /// Steps whose changes were undone.
        var steps = 0
        /// Steps (and a first sync's titles) left as they were because the patron has acted on a title they added (a
        /// position, a bookmark, a download, a loan): undoing them would take that away.
        var kept = 0
    }

    /// Undoes `journal`'s steps, newest first, each in a transaction of its own (so other writers come in between),
    /// on a connection outside any transaction. A row someone else changed since the step keeps that change.
    /// `listened` says which of the titles given the patron's listening state (in its own file) holds.
    static func undo(_ db: Database, journal: String, listened: ([Int64]) throws -> Set<Int64>) throws -> Undone {
        var undone = Undone()
        while true {
            try db.beginTransaction(.immediate)
            do {
                guard let row = try Row.fetchOne(
                    db, sql: "SELECT step, changes FROM step_undo WHERE journal = ? ORDER BY step DESC LIMIT 1",
                    arguments: [journal])
                else {
                    try db.commit()
                    try undoFirstSync(db, journal: journal, listened: listened, into: &undone)
                    return undone
                }
                let step: Int = row["step"]
                var changes: Data = row["changes"]
                if try actedOn(db, changes: &changes, listened: listened) {
                    undone.kept += 1
                } else {
                    let status = changes.withUnsafeMutableBytes { bytes in
                        CSQLiteSession_undo(db.sqliteConnection, Int32(bytes.count), bytes.baseAddress)
                    }
                    // SQLITE_ABORT: undoing would have broken a foreign key, so the step stays.
                    if status == SQLITE_OK { undone.steps += 1 } else if status == SQLITE_ABORT { undone.kept += 1 } else {
                        throw StoreError.failed(reason: "could not undo an unfinished sync (sqlite3changeset_apply: \(status))")
                    }
                }
                try db.execute(sql: "DELETE FROM step_undo WHERE journal = ? AND step = ?", arguments: [journal, step])
                try db.commit()
            } catch {
                if db.isInsideTransaction { try? db.rollback() }
                throw error
            }
        }
    }

    /// Removes the titles a library's first sync added, a few thousand a transaction, but those the patron has
    /// acted on since (a loan the sync did not make: the steps' undo took the sync's own; a download; a position).
    private static func undoFirstSync(
        _ db: Database, journal: String, listened: ([Int64]) throws -> Set<Int64>, into undone: inout Undone
    ) throws {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT library_id, above FROM step_undo_titles WHERE journal = ?", arguments: [journal])
        else { return }
        let (library, above): (Int64, Int64) = (row["library_id"], row["above"])
        var after = above
        while true {
            try db.beginTransaction(.immediate)
            do {
                let titles = try Int64.fetchAll(
                    db, sql: "SELECT id FROM edition WHERE library_id = ? AND id > ? ORDER BY id LIMIT 2000",
                    arguments: [library, after])
                guard let last = titles.last else {
                    try db.execute(sql: "DELETE FROM step_undo_titles WHERE journal = ?", arguments: [journal])
                    try db.commit()
                    return
                }
                let list = titles.map(String.init).joined(separator: ",")
                var kept = Set(try Int64.fetchAll(db, sql: patronTables.map {
                    "SELECT edition_id FROM \($0) WHERE edition_id IN (\(list))"
                }.joined(separator: " UNION ") + " UNION SELECT edition_id FROM loan WHERE edition_id IN (\(list))"))
                kept.formUnion(try listened(titles))
                let gone = titles.filter { !kept.contains($0) }
                if !gone.isEmpty {
                    try db.execute(sql: "DELETE FROM edition WHERE id IN (\(gone.map(String.init).joined(separator: ",")))")
                }
                undone.kept += kept.count
                after = last
                try db.commit()
            } catch {
                if db.isInsideTransaction { try? db.rollback() }
                throw error
            }
        }
    }

    /// The catalog's tables where the patron's own doings about a title live: deleting a title cascades to them.
    private static let patronTables = ["download_queue", "fulfilment", "part"]

    /// Whether undoing `changes` would delete a title the patron has acted on since: a download, a loan the step did
    /// not add (the cascade would take them with it), or a position or bookmark (kept by the title's id, which a
    /// title added again later need not get back).
    private static func actedOn(_ db: Database, changes: inout Data, listened: ([Int64]) throws -> Set<Int64>) throws
        -> Bool
    {
        var titles: [Int64] = []
        var loans: Set<Int64> = []
        changes.withUnsafeMutableBytes { bytes in
            var iterator: OpaquePointer?
            guard sqlite3changeset_start(&iterator, Int32(bytes.count), bytes.baseAddress) == SQLITE_OK else { return }
            defer { sqlite3changeset_finalize(iterator) }
            while sqlite3changeset_next(iterator) == SQLITE_ROW {
                var table: UnsafePointer<CChar>?
                var columns: Int32 = 0
                var operation: Int32 = 0
                var indirect: Int32 = 0
                guard sqlite3changeset_op(iterator, &table, &columns, &operation, &indirect) == SQLITE_OK,
                    operation == SQLITE_DELETE, let table
                else { continue }
                let name = String(cString: table)
                guard name == "edition" || name == "loan" else { continue }
                var value: OpaquePointer?
                guard sqlite3changeset_old(iterator, 0, &value) == SQLITE_OK, let value else { continue }
                let id = sqlite3_value_int64(value)
                if name == "edition" { titles.append(id) } else { loans.insert(id) }
            }
        }
        guard !titles.isEmpty else { return false }
        let list = titles.map(String.init).joined(separator: ",")
        for table in patronTables {
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE edition_id IN (\(list)))") == true {
                return true
            }
        }
        let loaned = try Int64.fetchAll(db, sql: "SELECT edition_id FROM loan WHERE edition_id IN (\(list))")
        return try loaned.contains { !loans.contains($0) } || !listened(titles).isEmpty
    }
}

extension Store {
    /// Those of `titles` the listening state holds a position, a bookmark or a queued annotation of.
    func listened(_ titles: [Int64]) throws -> Set<Int64> {
        let list = titles.map(String.init).joined(separator: ",")
        return try readPositions { db in
            Set(try Int64.fetchAll(db, sql: ["listening", "device_position", "bookmark", "annotation_outbox"].map {
                "SELECT edition_id FROM \($0) WHERE edition_id IN (\(list))"
            }.joined(separator: " UNION ")))
        }
    }

    /// Undoes what an unfinished run of `journal` (a sync killed while applying) wrote, newest step first; a step
    /// adding a title the patron has acted on since stays. Call it holding the run's lock.
    func undoUnfinished(_ journal: String) throws -> StepJournal.Undone {
        do {
            return try queue.writeWithoutTransaction { db in
                try StepJournal.undo(db, journal: journal, listened: listened)
            }
        } catch {
            throw Store.translate(error, path: path.path)
        }
    }
}
