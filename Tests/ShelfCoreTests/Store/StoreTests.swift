import Foundation
import GRDB
import Testing
@testable import ShelfCore

@Suite(.timeLimit(.minutes(5))) struct StoreTests {
    @Test func createsTheDatabaseWithWALAndPrivatePermissions() throws {
        let test = TestHome()
        let store = try test.store()
        let mode = try store.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let attributes = try FileManager.default.attributesOfItem(atPath: test.home.database.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: test.directory.path)
        #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let migrations = try store.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(migrations == ["v1-libraries-feeds-editions-events", "v2-loans-and-holds", "v3-fulfilment", "v4-edition-protection", "v5-download-queue",
                              "v6-listening", "v7-outbox-motivation-names", "v8-listening-state-in-its-own-file",
                              "v9-edition-duration-and-series",
                              "v10-titles-found-by-browse-and-search", "v11-crawl-bounds", "v12-failure-backoff",
                              "v13-notices", "v14-follows-and-download-policy", "v15-edition-status-index",
                              "v16-list-covering-index", "v17-archived-by", "v18-sync-guards", "v19-step-undo", "v20-page-ids-digest",
                              "v21-patron-mirror", "v22-position-sync-and-playtime", "v23-plain-descriptions", "v24-stored-short-ids", "v25-compact-detail", "v26-no-reversed-id",
                              "v27-acquisitions-in-detail", "v28-facts-in-detail-short-widths"])
        // The listening state has a database of its own, as private and in WAL too.
        let positionsMode = try store.readPositions { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(positionsMode == "wal")
        let positions = try FileManager.default.attributesOfItem(atPath: test.home.positionsDatabase.path)
        #expect((positions[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let positionsMigrations = try store.readPositions { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(positionsMigrations == ["p1-listening-state", "p2-bookmark-sync", "p3-position-offers", "p4-listening-log-and-playtime"])
    }

    /// The sync's undo journal (an SQLite session) records only tables with a primary key: a table without one
    /// would keep what a killed sync wrote to it.
    @Test func everyTableOfTheCatalogHasAPrimaryKey() throws {
        let store = try TestHome().store()
        let without = try store.read { db in
            try String.fetchAll(db, sql: """
                SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
                    AND NOT EXISTS (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.pk > 0)
                """)
        }
        #expect(without == [])
        let tables = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'") }
        #expect(tables ?? 0 > 10)
    }

    @Test func readingAStoreWritesNeitherDatabase() throws {
        let test = TestHome()
        do {
            let store = try test.store()
            let library = try store.addLibrary(name: "one", url: URL(string: "http://127.0.0.1:1/")!)
            _ = try store.status(of: library)
        }
        // Closed: the last connection has checkpointed and removed each -wal file.
        let files = [test.home.database, test.home.positionsDatabase]
        let before = try files.map { try Data(contentsOf: $0) }
        do {
            let store = try test.store()
            let library = try #require(try store.libraries().first)
            _ = try store.status(of: library)
            _ = try store.editions(of: library)
            _ = try store.readPositions { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
        }
        // A command that only reads changes no byte of either database (GRDB's own WAL set-up wrote and synced an
        // empty transaction into each on every open).
        #expect(try files.map { try Data(contentsOf: $0) } == before)
        for file in files {
            #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))
        }
        let store = try test.store()
        #expect(try store.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func reopeningKeepsDataAndDoesNotRemigrate() throws {
        let test = TestHome()
        try test.store().addLibrary(name: "one", url: URL(string: "http://127.0.0.1:1/")!)
        let again = try test.store()
        #expect(try again.libraries().map(\.name) == ["one"])
    }

    @Test func firstLibraryIsDefaultAndDefaultCanMove() throws {
        let store = try TestHome().store()
        try store.addLibrary(name: "a", url: URL(string: "http://127.0.0.1:1/a")!)
        try store.addLibrary(name: "b", url: URL(string: "http://127.0.0.1:1/b")!)
        #expect(try store.library(named: nil).name == "a")
        try store.setDefaultLibrary(name: "b")
        #expect(try store.library(named: nil).name == "b")
        try store.removeLibrary(name: "b")
        #expect(try store.library(named: nil).name == "a")
        #expect(throws: StoreError.libraryExists("a")) {
            try store.addLibrary(name: "a", url: URL(string: "http://127.0.0.1:1/")!)
        }
        #expect(throws: StoreError.libraryNotFound("zzz")) { try store.library(named: "zzz") }
    }

    @Test func noLibraryIsAConfigurationError() throws {
        let store = try TestHome().store()
        #expect(throws: StoreError.noLibrary) { try store.library(named: nil) }
        #expect(StoreError.noLibrary.exitCode == .configuration)
    }

    @Test func aCorruptDatabaseIsReportedNotOverwritten() throws {
        let test = TestHome()
        try FileManager.default.createDirectory(at: test.directory, withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: test.home.database)
        #expect {
            _ = try test.store()
        } throws: { error in
            guard case .corrupt(let path, _) = error as? StoreError else { return false }
            return path == test.home.database.path
        }
        // The damaged file is left for the patron to inspect or move aside.
        #expect(try Data(contentsOf: test.home.database) == garbage)
    }

    @Test func aDatabaseLockedByAnotherConnectionTimesOutWithItsOwnError() throws {
        let test = TestHome()
        let store = try Store(home: test.home, busyTimeout: 0.2)
        try store.addLibrary(name: "a", url: URL(string: "http://127.0.0.1:1/")!)
        // A second connection (as another process would) holds the write lock.
        let other = try DatabaseQueue(path: test.home.database.path)
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            #expect {
                try store.addLibrary(name: "b", url: URL(string: "http://127.0.0.1:1/")!)
            } throws: { error in
                (error as? StoreError) == .locked(path: test.home.database.path)
            }
            try db.execute(sql: "ROLLBACK")
        }
        #expect(StoreError.locked(path: "x").exitCode == .storeLocked)
        // Reads still work while a writer holds the lock (WAL), and nothing was half-written.
        #expect(try store.libraries().map(\.name) == ["a"])
    }

    @Test func homeResolutionOrder() {
        #expect(Home.resolve(explicit: "/x", environment: ["SHELF_HOME": "/y"]).directory.path == "/x")
        #expect(Home.resolve(explicit: nil, environment: ["SHELF_HOME": "/y", "XDG_DATA_HOME": "/z"]).directory.path == "/y")
        #expect(Home.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/z"]).directory.path == "/z/shelf")
        #expect(Home.resolve(explicit: nil, environment: ["HOME": "/h"]).directory.path == "/h/.local/share/shelf")
        // A relative XDG_DATA_HOME is invalid per the spec and ignored.
        #expect(Home.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"]).directory.path
            == "/h/.local/share/shelf")
    }
}
