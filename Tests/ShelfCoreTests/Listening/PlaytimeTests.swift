import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"

/// Minutes heard, reported to a loan's timeTracking link as Palace's apps do, against the demo's endpoint (which
/// answers as Palace's does: 201, 200 for a duplicate, 410 for a minute older than 120 days, 207 in all).
@Suite(.serialized, .timeLimit(.minutes(5))) struct PlaytimeTests {
    /// Signed in and synced: Sherlock is on loan, and its entry links the demo's playtime endpoint.
    private func ready() async throws -> (ListeningFixture, EditionRef, String) {
        let fixture = try await ListeningFixture()
        let edition = try fixture.rowID(sherlock)
        let tracking = try #require(try fixture.store.timeTrackingURL(of: edition))
        #expect(tracking == fixture.sync.url.absoluteString + "playtimes/" + sherlock)
        return (fixture, edition, tracking)
    }

    private func reporter(_ fixture: ListeningFixture) throws -> PlaytimeReporter {
        var configuration = HTTPConfiguration()
        configuration.stallTimeout = 30
        configuration.connectTimeout = 10
        return try PlaytimeReporter(store: fixture.store, home: fixture.sync.test.home, library: fixture.library,
                                    configuration: configuration)
    }

    private func heard(_ fixture: ListeningFixture, _ edition: EditionRef, _ minutes: [Int: Double], tracking: String?) throws {
        let place = ListeningPosition(part: 0, seconds: 1, readingOrderItem: "part-1.mp3", device: try fixture.store.deviceID(),
                                      deviceName: nil, at: Date())
        let session = try fixture.store.startListeningSession(of: edition, at: place, speed: 1.5)
        try fixture.store.recordHeard(session: session, of: edition, minutes: minutes, at: place, speed: 1.5, trackingURL: tracking)
    }

    @Test func minutesOverArePostedOnceAndTheCurrentOneWaits() async throws {
        let (fixture, edition, tracking) = try await ready()
        let now = PlaytimeReporter.minute(of: Date())
        // Two saves into the same minute add up, to 60 at most.
        try heard(fixture, edition, [now - 2: 40, now - 1: 25], tracking: tracking)
        try heard(fixture, edition, [now - 2: 40, now: 10], tracking: tracking)
        let report = try reporter(fixture).pushPending()
        #expect(report.taken == 2 && report.pending == 1 && report.failure == nil && report.warnings.isEmpty, "\(report)")
        let entries = await fixture.state.playtimeEntries
        #expect(entries.map(\.secondsPlayed) == [60, 25])
        #expect(entries.map { Int($0.minute.timeIntervalSince1970 / 60) } == [now - 2, now - 1])
        #expect(entries.allSatisfy { $0.workID == sherlock && $0.username == "demo" })
        // The minute heard now is posted once it is over.
        let later = try reporter(fixture).pushPending(now: Date().addingTimeInterval(120))
        #expect(later.taken == 1 && later.pending == 0)
        #expect(await fixture.state.playtimeEntries.count == 3)
        #expect(try fixture.store.pendingPlaytimeMinutes(in: fixture.library.id) == 0)
        await fixture.sync.stop()
    }

    /// Posted again (the library took them, and shelf was killed before it forgot them): 200 each, counted once.
    @Test func aMinutePostedTwiceCountsOnce() async throws {
        let (fixture, edition, tracking) = try await ready()
        let now = PlaytimeReporter.minute(of: Date())
        try heard(fixture, edition, [now - 3: 30], tracking: tracking)
        let saved = try fixture.store.readPositions { db in try Row.fetchAll(db, sql: "SELECT * FROM playtime_minute") }
        #expect(try reporter(fixture).pushPending().taken == 1)
        try fixture.store.writePositions { db in
            for row in saved {
                try db.execute(sql: """
                    INSERT INTO playtime_minute (edition_id, library_id, minute, seconds, entry_id, tracking_url)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [row["edition_id"], row["library_id"], row["minute"], row["seconds"], row["entry_id"],
                                     row["tracking_url"]])
            }
        }
        let again = try reporter(fixture).pushPending()
        #expect(again.taken == 1 && again.pending == 0 && again.warnings.isEmpty, "\(again)")
        #expect(await fixture.state.playtimeEntries.map(\.secondsPlayed) == [30])
        await fixture.sync.stop()
    }

    /// One minute too old for the library (410) is dropped with a line; the others of the batch are taken.
    @Test func aRefusedMinuteIsDroppedAndTheRestTaken() async throws {
        let (fixture, edition, tracking) = try await ready()
        let now = PlaytimeReporter.minute(of: Date())
        try heard(fixture, edition, [now - 121 * 1440: 50, now - 5: 20], tracking: tracking)
        let report = try reporter(fixture).pushPending()
        #expect(report.taken == 1 && report.dropped == 1 && report.pending == 0, "\(report)")
        #expect(report.warnings == ["dropped 1 minute heard of The Adventures of Sherlock Holmes: demo refused it "
                                    + "(Time entry too old and can no longer be processed)"])
        #expect(await fixture.state.playtimeEntries.map(\.secondsPlayed) == [20])
        await fixture.sync.stop()
    }

    /// The server failing (503) or gone: every minute waits, and the next push once it is back sends them.
    @Test func offlineOrFailingTheMinutesWait() async throws {
        let (fixture, edition, tracking) = try await ready()
        let now = PlaytimeReporter.minute(of: Date())
        try heard(fixture, edition, [now - 2: 12, now - 1: 60], tracking: tracking)
        await fixture.state.setPlaytimeUnavailable(true)
        let failing = try reporter(fixture).pushPending()
        #expect(failing.taken == 0 && failing.pending == 2 && failing.failure?.contains("503") == true, "\(failing)")
        await fixture.state.setPlaytimeUnavailable(false)
        // A sync pushes them, as cron's does.
        _ = try fixture.sync.sync()
        #expect(await fixture.state.playtimeEntries.map(\.secondsPlayed) == [12, 60])
        #expect(try fixture.store.pendingPlaytimeMinutes(in: fixture.library.id) == 0)

        try heard(fixture, edition, [now - 1: 5], tracking: tracking)
        await fixture.sync.stop()
        let offline = try reporter(fixture).pushPending()
        #expect(offline.pending == 1 && offline.failure?.hasPrefix("offline") == true, "\(offline)")
        #expect(try fixture.store.pendingPlaytimeMinutes(in: fixture.library.id) == 1)
    }

    /// A title without a timeTracking link keeps its sessions in the log, and nothing waits for the library.
    @Test func withoutALinkOnlyTheLogKeepsIt() async throws {
        let (fixture, edition, _) = try await ready()
        try heard(fixture, edition, [PlaytimeReporter.minute(of: Date()) - 1: 30], tracking: nil)
        #expect(try fixture.store.pendingPlaytimeMinutes(in: fixture.library.id) == 0)
        #expect(try fixture.store.listeningSessions(of: edition).map(\.heard) == [30])
        await fixture.sync.stop()
    }
}
