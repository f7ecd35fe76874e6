import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
private let janeEyre = "urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010"
private let secretGarden = "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a"
private let warOfTheWorlds = "urn:uuid:7d3c000c-5a1e-4c6b-9f0e-d0c5e1f0000c"

/// A sync applies what it fetched in short steps; until its last step commits, a sync that fails or is killed
/// changes nothing. What a kill leaves is seen exactly: a copy of the home taken after a step has committed, while
/// the sync waits to begin the next (nothing is being written then, so the copy is what `kill -9` would leave).
@Suite(.timeLimit(.minutes(5))) struct KilledSyncTests {
    /// Every row of every table of the catalog but the undo journal, in a stable order.
    static func dump(_ home: Home, but skipped: [String] = []) throws -> [String] {
        let queue = try DatabaseQueue(path: home.database.path)
        return try queue.read { db in
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name NOT IN ('step_undo', 'grdb_migrations') ORDER BY name
                """).filter { !skipped.contains($0) }
            return try tables.flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { "\(table) \($0)" }.sorted()
            }
        }
    }

    /// Where a failed sync is recorded (the library's last sync, the run's line), which undoing keeps.
    static let failureRecord = ["library", "sync_run"]

    /// What the catalog holds as a patron sees it: each title's id, state and entitlement, and the events told.
    static func catalog(_ store: Store) throws -> [String] {
        try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT e.entry_id, e.title, e.in_catalog, e.state, l.kind AS loan FROM edition e
                LEFT JOIN loan l ON l.edition_id = e.id ORDER BY e.entry_id
                """).map(\.description)
                + Row.fetchAll(db, sql: """
                    SELECT n.kind, n.key, n.text FROM notice n ORDER BY n.key
                    """).map(\.description)
                + Row.fetchAll(db, sql: """
                    SELECT ev.kind, ed.entry_id FROM event ev LEFT JOIN edition ed ON ed.id = ev.edition_id
                    """).map(\.description).sorted()
        }
    }

    /// A signed-in patron synced once without Jane Eyre; then the library adds her back, drops The War of the
    /// Worlds and updates two titles.
    private func changedLibrary(_ fixture: SyncFixture) async throws {
        let jane = try #require(await fixture.state.title(id: janeEyre))
        try await fixture.state.remove(id: janeEyre)
        try fixture.signIn()
        _ = try fixture.refresh(download: false)
        try await fixture.state.add(jane)
        try await fixture.state.remove(id: warOfTheWorlds)
        _ = try await fixture.state.touch(id: sherlock)
        _ = try await fixture.state.touch(id: secretGarden)
    }

    private func options(stepping: Bool = true, afterStep: (@Sendable (Int) throws -> Void)? = nil) -> SyncOptions {
        var options = SyncOptions()
        options.lockTimeout = 1
        options.retry = SyncFixture.quickRetry
        options.http.stallTimeout = 30
        if stepping { options.stepLength = .zero }  // a step after every page
        options.afterStep = afterStep
        return options
    }

    /// Syncs `fixture`'s home, copying it into `killed` after every step: the copy ends as a kill just before
    /// the sync's commit would leave it.
    private func syncCopying(_ fixture: SyncFixture, into killed: TestHome) throws -> SyncSummary {
        let (from, to) = (fixture.test.directory, killed.directory)
        let steps = Counter()
        let summary = try SyncEngine(store: fixture.store, home: fixture.test.home, options: options { _ in
            try? FileManager.default.removeItem(at: to)
            try FileManager.default.copyItem(at: from, to: to)
            steps.add()
        }).sync(try fixture.store.library(named: "demo"))
        #expect(steps.value > 3, "the sync took \(steps.value) steps")
        return summary
    }

    /// A sync of `fixture` killed just before its commit (a copy of the home), then 42 s of Jane Eyre listened to
    /// in that copy: the killed home, its store, the library and Jane Eyre there.
    private func killedThenListenedToJane(_ fixture: SyncFixture) throws -> (TestHome, Store, Library, EditionRef) {
        let killed = TestHome()
        _ = try syncCopying(fixture, into: killed)
        let store = try Store(home: killed.home, busyTimeout: 0.3)
        let library = try store.library(named: "demo")
        let jane = try store.resolveEdition(janeEyre, in: library)
        try store.savePosition(
            ListeningPosition(part: 0, seconds: 42, readingOrderItem: "part-1", device: try store.deviceID(),
                              deviceName: nil, at: Date()),
            of: jane, percent: 5, finished: false)
        return (killed, store, library, jane)
    }

    @Test func aSyncKilledBeforeItsCommitIsUndoneAndTheNextSyncTellsEverythingOnce() async throws {
        try await SyncFixture.with { fixture in
            try await changedLibrary(fixture)
            let before = try Self.dump(fixture.test.home)
            let killed = TestHome()
            let summary = try syncCopying(fixture, into: killed)
            #expect(summary.added == 1 && summary.removed == 1 && summary.changed >= 2, "\(summary.line)")

            // What the kill left: every page applied (Jane Eyre is back), nothing removed yet, and the journal.
            let killedStore = try Store(home: killed.home, busyTimeout: 0.3)
            #expect(try Self.dump(killed.home) != before)
            #expect(try killedStore.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM step_undo") } ?? 0 > 3)
            #expect(try killedStore.read { db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM edition WHERE entry_id = ?)", arguments: [janeEyre])
            } == true)

            // The next sync first undoes it: the store is again exactly as before the killed sync began.
            let undone = try killedStore.undoUnfinished(SyncEngine.journal)
            #expect(undone.steps > 3 && undone.kept == 0, "\(undone)")
            #expect(try Self.dump(killed.home) == before)

            // Then syncs as if the killed one never ran: the same catalog, the same events, each told once.
            let next = try SyncEngine(store: killedStore, home: killed.home, options: options(stepping: false))
                .sync(try killedStore.library(named: "demo"))
            #expect(next.line == summary.line)
            #expect(try Self.catalog(killedStore) == Self.catalog(fixture.store))
            #expect(try killedStore.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM step_undo") } == 0)
        }
    }

    @Test func aTitleThePatronListenedToAfterTheKillStaysWithItsPosition() async throws {
        try await SyncFixture.with { fixture in
            try await changedLibrary(fixture)
            // After the kill the patron found Jane Eyre, back in the catalog, and listened a little.
            let (killed, killedStore, library, jane) = try killedThenListenedToJane(fixture)

            let undone = try killedStore.undoUnfinished(SyncEngine.journal)
            // The step that brought her back stays (and the steps before it are undone), so her position still
            // belongs to her; the next sync completes the catalog.
            #expect(undone.kept == 1 && undone.steps > 0, "\(undone)")
            #expect(try killedStore.resolveEdition(janeEyre, in: library) == jane)
            #expect(try killedStore.listeningState(of: jane).position?.seconds == 42)
            let next = try SyncEngine(store: killedStore, home: killed.home, options: options(stepping: false))
                .sync(library)
            #expect(next.removed == 1, "\(next.line)")
            #expect(try killedStore.resolveEdition(janeEyre, in: library) == jane)
            #expect(try killedStore.listeningState(of: jane).position?.seconds == 42)
            #expect(try Self.catalog(killedStore) == Self.catalog(fixture.store))
        }
    }

    @Test func aFirstSyncKilledBeforeItsCommitLeavesTheLibraryEmptyAgain() async throws {
        try await SyncFixture.with { fixture in
            try fixture.signIn()
            let before = try Self.dump(fixture.test.home)
            let killed = TestHome()
            let summary = try syncCopying(fixture, into: killed)
            #expect(summary.added == 27, "\(summary.line)")
            let killedStore = try Store(home: killed.home, busyTimeout: 0.3)
            let titles = try killedStore.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM edition") } ?? 0
            #expect(titles > 20)
            // A first sync's titles are not recorded one by one: the journal names the largest id before it.
            #expect(try killedStore.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM step_undo_titles") } == 1)

            let undone = try killedStore.undoUnfinished(SyncEngine.journal)
            #expect(undone.kept == 0, "\(undone)")
            #expect(try Self.dump(killed.home) == before)
            let next = try SyncEngine(store: killedStore, home: killed.home, options: options(stepping: false))
                .sync(try killedStore.library(named: "demo"))
            #expect(next.line == summary.line)
            #expect(try Self.catalog(killedStore) == Self.catalog(fixture.store))
        }
    }

    @Test func aFirstSyncKilledKeepsTheTitleThePatronListenedToSince() async throws {
        try await SyncFixture.with { fixture in
            try fixture.signIn()
            let (killed, killedStore, library, jane) = try killedThenListenedToJane(fixture)

            let undone = try killedStore.undoUnfinished(SyncEngine.journal)
            #expect(undone.kept == 1, "\(undone)")
            let left = try killedStore.read { db in try String.fetchAll(db, sql: "SELECT entry_id FROM edition") }
            #expect(left == [janeEyre])
            _ = try SyncEngine(store: killedStore, home: killed.home, options: options(stepping: false)).sync(library)
            #expect(try killedStore.resolveEdition(janeEyre, in: library) == jane)
            #expect(try killedStore.listeningState(of: jane).position?.seconds == 42)
            #expect(try Self.catalog(killedStore) == Self.catalog(fixture.store))
        }
    }

    @Test func aSyncFailingMidwayUndoesItsStepsAtOnce() async throws {
        try await SyncFixture.with { fixture in
            try await changedLibrary(fixture)
            let before = try Self.dump(fixture.test.home)
            struct Failed: Error {}
            #expect(throws: Failed.self) {
                try SyncEngine(store: fixture.store, home: fixture.test.home, options: options { step in
                    if step == 3 { throw Failed() }
                }).sync(try fixture.store.library(named: "demo"))
            }
            #expect(try Self.dump(fixture.test.home) == before)
            #expect(try fixture.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM step_undo") } == 0)
            // And the next sync does it all.
            let next = try SyncEngine(store: fixture.store, home: fixture.test.home, options: options(stepping: false))
                .sync(try fixture.store.library(named: "demo"))
            #expect(next.added == 1 && next.removed == 1, "\(next.line)")
        }
    }

    /// A local failure inside a step (here a trigger refusing one row, as a full disk or a damaged page would):
    /// the step under way is rolled back and the steps before it are undone, so every table is as it was.
    @Test(arguments: [
        ("a title added back", "BEFORE INSERT ON edition WHEN NEW.entry_id = '\(janeEyre)'"),
        ("a title removed in the last step", "BEFORE UPDATE OF in_catalog ON edition WHEN NEW.in_catalog = 0"),
        ("a title's update", "BEFORE UPDATE OF title ON edition WHEN NEW.entry_id = '\(secretGarden)'"),
    ])
    func aSyncFailingInsideAStepUndoesEveryStep(_ what: String, _ trigger: String) async throws {
        try await SyncFixture.with { fixture in
            try await changedLibrary(fixture)
            try fixture.store.write { db in
                try db.execute(sql: "CREATE TRIGGER refuse \(trigger) BEGIN SELECT RAISE(ABORT, 'refused'); END")
            }
            let before = try Self.dump(fixture.test.home, but: Self.failureRecord)
            let steps = Counter()
            #expect("\(what)") {
                try SyncEngine(store: fixture.store, home: fixture.test.home, options: options { _ in steps.add() })
                    .sync(try fixture.store.library(named: "demo"))
            } throws: { error in
                "\(error)".contains("refused")
            }
            #expect(steps.value > 1, "\(what): the failure came at step \(steps.value + 1)")
            // Only the failure is recorded: the library's last sync and the run's line say it failed.
            #expect(try Self.dump(fixture.test.home, but: Self.failureRecord) == before, "\(what)")
            #expect(try fixture.store.library(named: "demo").lastSyncStatus == "failed")
            #expect(try fixture.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM step_undo") } == 0)
            try fixture.store.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
            let next = try SyncEngine(store: fixture.store, home: fixture.test.home, options: options(stepping: false))
                .sync(try fixture.store.library(named: "demo"))
            #expect(next.added == 1 && next.removed == 1, "\(what): \(next.line)")
        }
    }

    @Test func aFirstSyncFailingInsideAStepLeavesTheLibraryEmpty() async throws {
        try await SyncFixture.with { fixture in
            try fixture.signIn()
            try fixture.store.write { db in
                try db.execute(sql: """
                    CREATE TRIGGER refuse BEFORE INSERT ON edition WHEN NEW.entry_id = '\(warOfTheWorlds)'
                    BEGIN SELECT RAISE(ABORT, 'refused'); END
                    """)
            }
            let before = try Self.dump(fixture.test.home, but: Self.failureRecord)
            let steps = Counter()
            #expect {
                try SyncEngine(store: fixture.store, home: fixture.test.home, options: options { _ in steps.add() })
                    .sync(try fixture.store.library(named: "demo"))
            } throws: { error in
                "\(error)".contains("refused")
            }
            #expect(steps.value > 1, "the failure came at step \(steps.value + 1)")
            #expect(try Self.dump(fixture.test.home, but: Self.failureRecord) == before)
            #expect(try fixture.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM edition") } == 0)
        }
    }
}
