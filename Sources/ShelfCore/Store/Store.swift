import Foundation
import GRDB
import Synchronization

/// Why the local database could not be used.
public enum StoreError: ShelfFailure, Equatable {
    case cannotOpen(path: String, reason: String)
    case corrupt(path: String, reason: String)
    /// Nothing of the file can be read as a database: no repair can keep anything of it.
    case unreadable(path: String)
    /// The home cannot be written: what only reads works, what writes cannot (or the store needs an upgrade first).
    case readOnlyHome(path: String, needsUpgrade: Bool)
    case locked(path: String)
    case failed(reason: String)
    /// A file or folder of shelf's home (not the database) could not be made, written or removed: the line says
    /// which, why, and what to do.
    case files(String)
    /// SQLite could not write because the disk is full; `mountPoint` names the disk.
    case diskFull(path: String, mountPoint: String)
    case noLibrary
    case libraryNotFound(String)
    case libraryExists(String)
    case editionNotFound(String)
    /// `shelf queue move` of a title that is not in the download queue.
    case notQueued(title: String, id: String)
    case ambiguousEdition(String, [String])

    public var exitCode: ShelfExit {
        switch self {
        case .cannotOpen, .corrupt, .unreadable, .readOnlyHome, .failed, .files: .storeFailure
        case .locked: .storeLocked
        case .diskFull: .diskFull
        case .noLibrary: .configuration
        case .libraryNotFound, .editionNotFound, .ambiguousEdition: .notFound
        case .libraryExists: .usage
        case .notQueued: .notAllowed
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .corrupt(let path, let reason) where path.hasSuffix("positions.sqlite"):
            "the listening positions database \(path) is damaged (\(reason)); run `shelf doctor --repair`: it keeps "
                + "every position and bookmark it can read and sets the damaged file aside"
        case .corrupt(let path, let reason):
            "the catalog database \(path) is damaged (\(reason)); run `shelf doctor --repair`: it keeps your libraries, "
                + "settings and downloads, sets the damaged file aside, and `shelf sync` then rebuilds the rest"
        case .unreadable(let path):
            "nothing in \(path) can be read as shelf's database (it was overwritten, or is not one); it is left as it is: "
                + "rename it (mv \(path) \(path).unreadable) and shelf starts a new one, where `shelf library add` adds "
                + "your libraries again (sign-ins are kept apart and still work)"
        case .readOnlyHome(let path, false):
            "the home \(path) is read-only, and this command writes there: make it writable (or give --home); "
                + "list, show, status, loans, position and listen work on it as it is"
        case .readOnlyHome(let path, true):
            "the home \(path) is read-only, and its store was made by an older shelf and must be upgraded first: "
                + "run any shelf command once where the home is writable"
        case .locked(let path): "the database \(path) is locked by another process; try again when it finishes"
        case .failed(let reason): "database error: \(reason)"
        case .files(let line): line
        case .diskFull(let path, let mountPoint):
            "the disk at \(mountPoint) is full: cannot write \(path); free some space there and try again (nothing was changed)"
        case .noLibrary: "no library yet: add one with `shelf library add NAME URL` (or try `shelf demo`)"
        case .libraryNotFound(let name): "no library named '\(name)'; `shelf library list` shows them"
        case .libraryExists(let name): "a library named '\(name)' already exists; remove it first or pick another name"
        case .editionNotFound(let id): "no title with id '\(id)' in the store; run `shelf sync`, or see `shelf list`"
        case .notQueued(let title, let id):
            "\(title) is not in the download queue (`shelf queue show` lists it; `shelf download \(id)` downloads it)"
        case .ambiguousEdition(let id, let matches):
            "'\(id)' matches \(matches.count) titles (\(matches.prefix(3).joined(separator: ", "))…); give more of the id"
        }
    }
}

/// The SQLite databases under the home directory, WAL, migrated on open: the catalog (libraries, editions,
/// loans, downloads) and, in a file of its own, the listening state (positions, bookmarks, the annotation queue),
/// so a sync writing the catalog never keeps a position from being saved.
public final class Store: Sendable {
    public let path: URL
    /// The catalog database.
    let queue: DatabaseQueue
    /// The positions database (`Listening/PositionRecords.swift`).
    let positionsQueue: DatabaseQueue
    let positionsPath: URL

    /// Whether the home could not be written when the store was opened: the databases are then open read-only
    /// (`SQLITE_OPEN_READONLY`, immutable), every read works, and a write fails with `StoreError.readOnlyHome`.
    public let isReadOnly: Bool
    /// Where the patron's rows are copied (`PatronMirror`).
    let mirror: URL
    /// How many libraries came back from `libraries.json` as the store opened: the catalog database was missing.
    public let restoredLibraries: Int
    /// How long writes to each database waited for another process's transaction.
    private let catalogWaits = WriteWaits(), positionWaits = WriteWaits()
    /// The longest wait of this store's writes for another process's transaction.
    package var longestWriteWait: Duration { max(catalogWaits.longest, positionWaits.longest) }

    /// Opens (creating and migrating as needed) the databases in `home`; a home that exists but cannot be written
    /// opens read-only (`isReadOnly`).
    ///
    /// `busyTimeout` is how long a write waits for another process's transaction before giving up.
    public init(home: Home, busyTimeout: TimeInterval = 5) throws(StoreError) {
        isReadOnly = home.isReadOnly
        mirror = home.libraryMirror
        if !isReadOnly { try home.prepare() }
        let fresh = !FileManager.default.fileExists(atPath: home.database.path)
        var restored = 0
        path = home.database
        positionsPath = home.positionsDatabase
        var current = home.database.path
        let readOnly = isReadOnly
        do {
            queue = try Self.open(
                home.database.path, busyTimeout: busyTimeout, waits: catalogWaits, readOnly: readOnly
            ) { db in
                // Rows of about 2 KB fill 16 KB pages with little slack, so a large sync writes far fewer pages.
                // (It takes effect only when the database is created.)
                if !readOnly { try db.execute(sql: "PRAGMA page_size = 16384") }
                // 4 MB of page cache: a large sync spills less, and memory stays bounded.
                try db.execute(sql: "PRAGMA cache_size = -4096")
                // The sync's set of seen titles lives in a temporary table, in a temporary file behind 1 MB of cache:
                // held in memory it grew 8 bytes a title (2.4 MB at 300,000), and the file is written only past that.
                try db.execute(sql: "PRAGMA temp_store = FILE")
                try db.execute(sql: "PRAGMA temp.cache_size = -1024")
            }
            // Damage is named before anything reads or writes through it (`StoreCheck`).
            try StoreCheck.verify(queue, file: home.database, notes: home.checkNotes)
            current = home.positionsDatabase.path
            positionsQueue = try Self.open(
                home.positionsDatabase.path, busyTimeout: busyTimeout, waits: positionWaits, readOnly: readOnly
            ) { _ in }
            try StoreCheck.verify(positionsQueue, file: home.positionsDatabase, notes: home.checkNotes)
            if readOnly {
                // Nothing can be migrated: a store from an older shelf is read only once a writable home upgrades it.
                let behind = try positionsQueue.read { try !PositionsMigrations.migrator.hasCompletedMigrations($0) }
                    || queue.read { try !Migrations.migrator.hasCompletedMigrations($0) }
                if behind { throw StoreError.readOnlyHome(path: home.directory.path, needsUpgrade: true) }
            } else {
                try PositionsMigrations.migrator.migrate(positionsQueue)
                current = home.database.path
                try PositionsMigrations.moveListeningState(from: queue, to: positionsQueue)
                let applied = try queue.read { try Migrations.migrator.appliedIdentifiers($0) }
                try Migrations.migrator.migrate(queue)
                if !applied.isEmpty && !applied.contains(Migrations.rebuiltEditions) {
                    // The upgrade made the titles' table again beside the old one, whose pages stay in the file
                    // free: the file is written again without them once (a third of it at 100,000 titles). Without
                    // the room to do so it stays as it is, whole.
                    try? queue.writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
                }
                // A catalog database that was lost: the patron's rows come back from their copy.
                if fresh, let snapshot = PatronMirror.read(home.libraryMirror) {
                    restored = try queue.write { try PatronMirror.restore(snapshot, into: $0) }
                }
            }
        } catch {
            throw Store.translate(error, path: current)
        }
        restoredLibraries = restored
    }

    /// Makes a new, migrated catalog database at `file` (for `StoreSalvage`).
    static func createCatalog(at file: URL) throws -> DatabaseQueue {
        let queue = try open(file.path, busyTimeout: 5) { db in
            try db.execute(sql: "PRAGMA page_size = 16384")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        try Migrations.migrator.migrate(queue)
        return queue
    }

    /// Makes a new, migrated positions database at `file` (for `StoreSalvage`).
    static func createPositions(at file: URL) throws -> DatabaseQueue {
        let queue = try open(file.path, busyTimeout: 5) { _ in }
        try PositionsMigrations.migrator.migrate(queue)
        return queue
    }

    /// Repairs the damaged databases of `home` (`StoreSalvage`): each one whose check fails is set aside and
    /// rebuilt from what can be read of it. The undamaged are left as they are. What each repair kept.
    public static func repair(_ home: Home) throws -> [StoreSalvage.Report] {
        try home.prepare()
        var reports: [StoreSalvage.Report] = []
        let files: [(URL, (URL) throws -> DatabaseQueue)] = [
            (home.database, createCatalog(at:)), (home.positionsDatabase, createPositions(at:)),
        ]
        for (file, create) in files where FileManager.default.fileExists(atPath: file.path) {
            guard Self.isDamaged(file) else { continue }
            var report = try StoreSalvage.repair(file, create: create)
            // Libraries (and the patron's titles) on pages that were lost come back from their copy.
            if file == home.database, let snapshot = PatronMirror.read(home.libraryMirror) {
                let queue = try createCatalog(at: file)
                let back = try queue.write { try PatronMirror.restore(snapshot, into: $0) }
                try queue.close()
                if back > 0 { report.kept["library", default: 0] += back }
            }
            reports.append(report)
            try? FileManager.default.removeItem(at: home.checkNotes)
        }
        return reports
    }

    /// Whether `file` fails to open or its quick_check finds damage.
    static func isDamaged(_ file: URL) -> Bool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        guard let queue = try? DatabaseQueue(path: file.path, configuration: configuration) else { return true }
        defer { try? queue.close() }
        return (try? StoreCheck.problems(in: queue)) != ["ok"]
    }

    /// How a write waits for another process's transaction: it looks again every 4 ms, up to `timeout`. SQLite's own
    /// wait sleeps longer and longer, up to 100 ms a time, and so rarely looks during the short gaps a sync leaves
    /// between the steps of its apply: a patron's command waited seconds for a lock free a dozen times meanwhile.
    /// The time is the clock's, not the looks counted, so a loaded machine's late wake-ups do not stretch it; the
    /// longest wait is kept in `waits`.
    static func waitForWriteLock(_ timeout: TimeInterval, waits: WriteWaits) -> Database.BusyCallback {
        let interval = lockPollInterval
        let limit = Duration.milliseconds(Int(timeout * 1000))
        return { tries in
            let waited = waits.note(first: tries == 0)
            guard waited < limit else { return false }
            Thread.sleep(forTimeInterval: interval)
            return true
        }
    }

    /// How often a waiting write looks for the lock (`waitForWriteLock`).
    static let lockPollInterval: TimeInterval = 0.004

    private static func open(
        _ path: String, busyTimeout: TimeInterval, waits: WriteWaits = WriteWaits(), readOnly: Bool = false,
        prepare: @escaping @Sendable (Database) throws -> Void
    ) throws -> DatabaseQueue {
        if readOnly {
            // A read-only directory holds no -shm for the write-ahead log's index, nor can SQLite make one: the
            // file is opened immutable (nothing in this home can change it; a -wal left by a writer is not read).
            var configuration = Configuration()
            configuration.readonly = true
            configuration.label = "shelf"
            configuration.prepareDatabase { db in try prepare(db) }
            guard FileManager.default.fileExists(atPath: path) else {
                throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "it does not exist and the home is read-only")
            }
            return try DatabaseQueue(path: Self.immutableURI(path), configuration: configuration)
        }
        var configuration = Configuration()
        configuration.busyMode = busyTimeout <= 0
            ? .immediateError : .callback(Self.waitForWriteLock(busyTimeout, waits: waits))
        configuration.foreignKeysEnabled = true
        configuration.label = "shelf"
        configuration.prepareDatabase { db in
            try prepare(db)
            // WAL is set here rather than with GRDB's `journalMode = .wal`, which also writes (and syncs) an empty
            // transaction on every open that finds no -wal file, to create one for DatabasePool's readers: as the
            // last connection's close removes it, every command, `shelf list` and `status` included, wrote both
            // databases and synced them eight times. A DatabaseQueue makes the -wal file with its first write.
            // The mode is persistent, so on an existing store this only reads it.
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else {
                throw DatabaseError(message: "could not turn on write-ahead logging (journal mode \(mode ?? "unknown"))")
            }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return queue
    }

    /// An SQLite URI opening `path` immutable.
    static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
    }

    /// Reads the catalog in a snapshot; errors become `StoreError`.
    public func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try Self.read(queue, path, body)
    }

    /// Writes the catalog in one immediate transaction, rolled back if `body` throws; non-store errors pass through.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            let result = try Self.write(queue, body)
            refreshMirror()
            return result
        } catch let error as DatabaseError {
            throw Store.translate(error, path: path.path)
        }
    }

    /// Writes `libraries.json` anew when a write changed the patron's rows (`PatronMirror`). Best effort: the copy
    /// is a spare, and a failure to write it leaves it marked stale for the next write to try again.
    func refreshMirror() {
        guard !isReadOnly,
            (try? queue.read({ try Int.fetchOne($0, sql: "SELECT dirty FROM mirror_state") })) == 1
        else { return }
        try? queue.inTransaction(.immediate) { db in
            try PatronMirror.write(try PatronMirror.snapshot(db), to: mirror)
            try db.execute(sql: "UPDATE mirror_state SET dirty = 0")
            return .commit
        }
    }

    /// Reads the positions database in a snapshot.
    func readPositions<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try Self.read(positionsQueue, positionsPath, body)
    }

    /// Writes the positions database in one immediate transaction; a catalog write never holds its lock.
    func writePositions<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try Self.write(positionsQueue, body)
        } catch {
            throw Store.translate(error, path: positionsPath.path)
        }
    }

    private static func read<T>(_ queue: DatabaseQueue, _ path: URL, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try queue.read(body)
        } catch {
            throw Store.translate(error, path: path.path)
        }
    }

    /// Writes in a series of short transactions: `body` calls `step` where what it wrote so far may be committed and
    /// the write lock let go, so another process's write can come in between; the closure `step` is given runs
    /// there, after the commit and before the next transaction begins, holding nothing. A failure rolls back the step
    /// under way; the steps before it stay, unless a `journal` is named: then what each step changed is recorded (its
    /// undo, in its own transaction), a failure undoes every step before it, and a process killed midway leaves
    /// the journal for `undoUnfinished(_:)`. The last transaction, which forgets the journal, is the commit.
    public func writeInSteps<T>(
        journal name: String? = nil, firstSyncOf library: Int64? = nil,
        _ body: (Database, _ step: (_ between: () throws -> Void) throws -> Void) throws -> T
    ) throws -> T {
        do {
            let outcome = try queue.writeWithoutTransaction { db in
                var journal = name.map { StepJournal(name: $0, firstSyncOf: library) }
                do {
                    try db.beginTransaction(.immediate)
                    try journal?.begin(db)
                    let result = try body(db) { between in
                        try journal?.end(db)
                        try db.commit()
                        try between()
                        // A gap for a write that waits (`waitForWriteLock`) to come in: three of its looks long.
                        Thread.sleep(forTimeInterval: 3 * Self.lockPollInterval)
                        try db.beginTransaction(.immediate)
                        try journal?.begin(db)
                    }
                    journal?.discard()
                    try journal?.finish(db)
                    try db.commit()
                    return result
                } catch {
                    journal?.discard()
                    if db.isInsideTransaction { try? db.rollback() }
                    if let name { _ = try? StepJournal.undo(db, journal: name, listened: self.listened) }
                    throw error
                }
            }
            refreshMirror()
            return outcome
        } catch let error as DatabaseError {
            throw Store.translate(error, path: path.path)
        }
    }

    private static func write<T>(_ queue: DatabaseQueue, _ body: (Database) throws -> T) throws -> T {
        var result: T?
        try queue.inTransaction(.immediate) { db in
            result = try body(db)
            return .commit
        }
        return result!
    }

    static func translate(_ error: any Error, path: String) -> StoreError {
        if let storeError = error as? StoreError { return storeError }
        guard let error = error as? DatabaseError else { return .failed(reason: "\(error)") }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path)
        case .SQLITE_FULL: return .diskFull(path: path, mountPoint: DiskSpace.mountPoint(of: path))
        // Writing the WAL or its index on a full disk can come back as an I/O error rather than SQLITE_FULL.
        case .SQLITE_IOERR where DiskSpace.isNearlyFull(path):
            return .diskFull(path: path, mountPoint: DiskSpace.mountPoint(of: path))
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .corrupt(path: path, reason: error.message ?? "\(error.resultCode)")
        case .SQLITE_READONLY:
            return .readOnlyHome(path: URL(fileURLWithPath: path).deletingLastPathComponent().path, needsUpgrade: false)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
        default: return .failed(reason: error.message ?? "\(error)")
        }
    }
}

/// The waits of one database's writes for another process's transaction (`Store.waitForWriteLock`), timed by the
/// clock. A connection's writes wait one at a time.
package final class WriteWaits: Sendable {
    private struct Waiting { var started = ContinuousClock.now; var longest = Duration.zero }
    private let state = Mutex(Waiting())

    /// Notes one look for the lock (the first of a wait when `first`) and says how long this wait has lasted.
    func note(first: Bool) -> Duration {
        state.withLock { waiting in
            let now = ContinuousClock.now
            if first { waiting.started = now }
            let waited = now - waiting.started
            waiting.longest = max(waiting.longest, waited)
            return waited
        }
    }

    /// The longest wait so far.
    package var longest: Duration { state.withLock { $0.longest } }
}
