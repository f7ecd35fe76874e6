import DemoLibrary
import Foundation
import GRDB
import Synchronization
import Testing
@testable import ShelfCore

/// A sync holds the catalog's write lock only in the short steps of its apply (about 150 ms, a batch of a page's
/// titles at least): the patron's writes come in between. The overlap is made sure of by the steps themselves, not
/// by a clock: each of the patron's actions starts right after a step commits, so it meets the steps after it, and
/// the sync goes on stepping after the last of them has ended.
@Suite(.timeLimit(.minutes(10))) struct ApplyBesideThePatronTests {
    private static let generated = 20_000

    @Test func thePatronsWritesEachFinishWithinASecondWhileTwentyThousandTitlesAreApplied() async throws {
        try await SyncFixture.with { fixture in
            try await fixture.state.prepareAudio()
            try fixture.signIn()
            _ = try fixture.refresh(download: false)
            let library = try fixture.store.library(named: "demo")
            // Something to archive, a loan to return and a title to borrow, as in the patron's day.
            let garden = try fixture.edition("7d3c000a")
            let service = try CirculationService(
                store: fixture.store, home: fixture.test.home, library: library, configuration: HTTPConfiguration())
            _ = try service.borrow(garden)
            _ = try DownloadRun(
                store: fixture.store, home: fixture.test.home, library: library, configuration: HTTPConfiguration(),
                attended: true
            ).named(garden)

            // A second library in the same home (the same store, the same write lock): 20,000 titles in pages of
            // 5,000, every page at 400 ms, synced for the first time while the patron goes on with the first. (The
            // CLI suite syncs 100,000 beside the patron's commands; `patron-wait.sh` measures the waits at that size.)
            try await withDemoLibrary(DemoConfiguration(pageSize: 5_000, generatedEntries: Self.generated)) { big, url in
                await big.state.setDelay(milliseconds: 400)
                let bigLibrary = try fixture.store.addLibrary(name: "big", url: url)
                try await Self.patronBeside(fixture, syncing: bigLibrary)
            }
        }
    }

    private static func patronBeside(_ fixture: SyncFixture, syncing library: Library) async throws {
        // The patron, in a connection of their own (as another process is) that waits at most 1 s for the lock: a
        // wait longer than that fails the action with "locked". Each wait is timed by the clock.
        let patron = try Store(home: fixture.test.home, busyTimeout: 1)
        let patronLibrary = try patron.library(named: "demo")
        let home = fixture.test.home
        // Each action opens what its command opens.
        @Sendable func circulation() throws -> CirculationService {
            try CirculationService(store: patron, home: home, library: patronLibrary, configuration: HTTPConfiguration())
        }
        let sherlock = try patron.resolveEdition("7d3c0002", in: patronLibrary)
        let device = try patron.deviceID()
        @Sendable func save(_ seconds: Double) throws {
            try patron.savePosition(
                ListeningPosition(part: 0, seconds: seconds, readingOrderItem: "part-1", device: device,
                                  deviceName: nil, at: Date()),
                of: sherlock, percent: 10, finished: false)
        }
        let actions: [(String, @Sendable () throws -> Void)] = [
            ("the player's save", { try save(61) }),
            ("return", { _ = try circulation().returnTitle(try patron.resolveEdition("7d3c0003", in: patronLibrary)) }),
            ("borrow", { _ = try circulation().borrow(try patron.resolveEdition("7d3c0010", in: patronLibrary)) }),
            ("follow", { _ = try patron.follow(.author, name: "Mary Shelley") }),
            ("archive", { _ = try FulfilmentService(
                store: patron, home: home, library: patronLibrary, configuration: HTTPConfiguration()
            ).archive(try patron.resolveEdition("7d3c000a", in: patronLibrary)) }),
            ("library set --keep 5", {
                _ = try patron.setDownloadPolicy(name: "demo", policy: nil, keep: 5, maxBytes: nil)
            }),
            ("mark --played", { try patron.mark(try patron.resolveEdition("7d3c0001", in: patronLibrary), as: .finished) }),
            ("the player's next save", { try save(62) }),
        ]

        // Each action begins right after a step commits and meets the steps after it; the sync, between steps and
        // holding nothing, waits for an action begun two steps before to end, so it cannot run ahead of the patron to
        // its end, whatever the machine's speed.
        let pace = Pace()
        // Before them, one write is made to meet a step under way: the step, holding the lock, goes on only once the
        // patron's write has been seen waiting for it (or has ended), so a wait is there to be timed on any machine.
        let meeting = Meeting()
        let inside = Mutex<(took: Duration, failure: String?)?>(nil)
        let taken = Mutex<[(String, Duration, Int)]>([])
        let failures = Mutex<[String]>([])
        let finishedAt = Mutex(0)
        let patronDone = DispatchSemaphore(value: 0)
        @Sendable func act() {
            defer { patronDone.signal() }
            let clock = ContinuousClock()
            if meeting.waitForStep() {
                let started = clock.now
                var failure: String?
                do { _ = try patron.follow(.author, name: "Jane Austen") } catch { failure = "\(error)" }
                meeting.end()
                inside.withLock { $0 = (clock.now - started, failure) }
            }
            for (name, action) in actions {
                guard let step = pace.beginAction() else { return }
                let started = clock.now
                do { try action() } catch { failures.withLock { $0.append("\(name): \(error)") } }
                taken.withLock { $0.append((name, clock.now - started, step)) }
                pace.endAction()
            }
            finishedAt.withLock { $0 = pace.lastStep }
        }
        let steps = Counter()
        var options = SyncOptions()
        options.lockTimeout = 1
        options.retry = SyncFixture.quickRetry
        options.http.stallTimeout = 60
        options.afterFetch = { Thread.detachNewThread(act) }
        options.afterStep = { step in
            steps.add()
            pace.stepped(step)
        }
        options.stepBegan = { _ in meeting.stepBegan { patron.longestWriteWait > .zero } }
        let sync = options
        let summary = try await offloaded {
            // A sync that ends early lets the patron's remaining actions go: they find no step to begin after.
            defer {
                meeting.syncEnded()
                pace.syncEnded()
            }
            return try SyncEngine(store: fixture.store, home: fixture.test.home, options: sync).sync(library)
        }
        #expect(patronDone.wait(timeout: .now() + 120) == .success)

        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let times = taken.withLock { $0 }
        #expect(times.count == actions.count)
        // No action waited a second for the lock (the busy timeout would have failed it), and none took long.
        #expect(patron.longestWriteWait < .seconds(1), "the longest wait for the lock: \(patron.longestWriteWait)")
        let met = inside.withLock { $0 }
        #expect(met?.failure == nil && met.map { $0.took < .seconds(1) } == true, "the write inside a step: \(String(describing: met))")
        #expect(patron.longestWriteWait > .zero, "the write inside a step did not wait for it")
        for (name, took, _) in times { #expect(took < .seconds(5), "\(name) took \(took)") }
        // Each action began right after a step of its own, and the sync went on stepping after the last one ended.
        #expect(Set(times.map(\.2)).count == actions.count, "\(times.map(\.2))")
        let last = finishedAt.withLock { $0 }
        #expect(last > 0 && steps.value > last, "the patron finished at step \(last) of \(steps.value)")
        #expect(summary.added == Self.generated, "\(summary.line)")

        // Nothing the patron did was undone by the sync, which applied every title.
        let after = try patron.library(named: "demo")
        #expect(after.keepFinished == 5)
        #expect(try patron.archivedBy(try patron.resolveEdition("7d3c000a", in: after)) == .patron)
        #expect(try patron.follows().contains { $0.name == "Mary Shelley" })
        #expect(try patron.follows().contains { $0.name == "Jane Austen" })
        #expect(try patron.listeningState(of: sherlock).position?.seconds == 62)
        #expect(try patron.listeningState(of: try patron.resolveEdition("7d3c0001", in: after)).consumption == .finished)
        let loans = try patron.read { db in
            try String.fetchAll(db, sql: """
                SELECT e.entry_id FROM loan l JOIN edition e ON e.id = l.edition_id WHERE l.kind = 'loan'
                """)
        }
        #expect(loans.contains("urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010"), "\(loans)")
        #expect(!loans.contains("urn:uuid:7d3c0003-5a1e-4c6b-9f0e-d0c5e1f00003"), "\(loans)")
    }
}

/// One write of the patron's made to meet a step under way: the patron waits for a step to begin, then writes; the
/// step goes on once that write is seen waiting for its lock, or has ended.
private final class Meeting: @unchecked Sendable {
    private let condition = NSCondition()
    private enum Phase { case before, inStep, ended }
    private var phase = Phase.before
    private var syncOver = false

    /// The patron: true once a step has begun (holding the lock), false when the sync ended first.
    func waitForStep() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while phase == .before && !syncOver { condition.wait() }
        return phase == .inStep
    }

    /// The patron's write ended.
    func end() {
        condition.lock()
        phase = .ended
        condition.broadcast()
        condition.unlock()
    }

    /// The sync, inside a step: the first time, lets the patron write and holds the step until `waiting()` says the
    /// write waits for the lock, or it ended. Looks every millisecond (how soon it goes on, not whether).
    func stepBegan(_ waiting: () -> Bool) {
        condition.lock()
        guard phase == .before else {
            condition.unlock()
            return
        }
        phase = .inStep
        condition.broadcast()
        condition.unlock()
        while true {
            condition.lock()
            let ended = phase == .ended
            condition.unlock()
            if ended || waiting() { return }
            usleep(1_000)
        }
    }

    func syncEnded() {
        condition.lock()
        syncOver = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The sync's steps and the patron's actions, paced between their threads by a condition, not a clock.
private final class Pace: @unchecked Sendable {
    private let condition = NSCondition()
    /// The last step committed (`Int.max` once the sync ended).
    private var last = 0
    /// The step an action began after, while it runs.
    private var acting: Int?

    /// The sync, between two steps (holding nothing): notes the step, then waits while an action begun two steps
    /// before or more still runs.
    func stepped(_ step: Int) {
        condition.lock()
        defer { condition.unlock() }
        last = step
        condition.broadcast()
        while let began = acting, step - began >= 2 { condition.wait() }
    }

    /// The sync ended, or failed: no action waits for a step any more.
    func syncEnded() {
        condition.lock()
        last = .max
        condition.broadcast()
        condition.unlock()
    }

    /// The patron: waits for the next step to commit and begins an action after it; the step, or nil once the sync
    /// ended.
    func beginAction() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        let seen = last
        while last == seen && last != .max { condition.wait() }
        guard last != .max else { return nil }
        acting = last
        return last
    }

    func endAction() {
        condition.lock()
        acting = nil
        condition.broadcast()
        condition.unlock()
    }

    var lastStep: Int {
        condition.lock()
        defer { condition.unlock() }
        return last
    }
}
