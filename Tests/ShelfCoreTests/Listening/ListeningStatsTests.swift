import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
private let mobyDick = "urn:uuid:7d3c0004-5a1e-4c6b-9f0e-d0c5e1f00004"

/// `shelf stats` from the listening log: per day, per title, finished, the streak; and the log kept bounded.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ListeningStatsTests {
    /// A session of `heard` seconds started `daysAgo` days before `now` (at its hour), from `from` to `to` seconds of
    /// part 1.
    private func session(_ store: Store, _ edition: EditionRef, daysAgo: Int, heard: Double, from: Double = 0, to: Double = 60,
                         now: Date, calendar: Calendar) throws {
        let start = calendar.date(byAdding: .day, value: -daysAgo, to: now)!
        let device = try store.deviceID()
        let id = try store.startListeningSession(
            of: edition, at: ListeningPosition(part: 0, seconds: from, readingOrderItem: "part-1.mp3", device: device,
                                               deviceName: nil, at: start), speed: 1)
        try store.recordHeard(
            session: id, of: edition, minutes: [PlaytimeReporter.minute(of: start): heard],
            at: ListeningPosition(part: 0, seconds: to, readingOrderItem: "part-1.mp3", device: device, deviceName: nil,
                                  at: start.addingTimeInterval(heard)), speed: 1, trackingURL: nil)
    }

    @Test func perDayPerTitleFinishedAndTheStreak() async throws {
        let fixture = try await ListeningFixture()
        let store = fixture.store
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = calendar.date(from: DateComponents(year: 2026, month: 11, day: 28, hour: 12))!
        let (holmes, moby) = (try fixture.rowID(sherlock), try fixture.rowID(mobyDick))
        try session(store, holmes, daysAgo: 0, heard: 600, now: now, calendar: calendar)
        try session(store, holmes, daysAgo: 1, heard: 300, now: now, calendar: calendar)
        try session(store, moby, daysAgo: 1, heard: 120, now: now, calendar: calendar)
        try session(store, moby, daysAgo: 3, heard: 420, now: now, calendar: calendar)
        try session(store, holmes, daysAgo: 20, heard: 900, now: now, calendar: calendar)
        // A session with nothing heard (started, then quit at once) is not counted.
        _ = try store.startListeningSession(
            of: holmes, at: ListeningPosition(part: 0, seconds: 0, readingOrderItem: "part-1.mp3", device: try store.deviceID(),
                                              deviceName: nil, at: now), speed: 1)

        let week = try store.listeningStats(.week, now: now, calendar: calendar)
        #expect(week.from == "2026-11-22" && week.to == "2026-11-28" && week.days.count == 7)
        #expect(week.days.map(\.seconds) == [0, 0, 0, 420, 0, 420, 600])
        #expect(week.seconds == 1_440)
        #expect(week.titles.map(\.title) == ["The Adventures of Sherlock Holmes", "Moby Dick"])
        #expect(week.titles.map(\.seconds) == [900, 540] && week.titles.map(\.sessions) == [2, 2])
        #expect(week.streak == 2)
        #expect(week.finished.isEmpty)

        let month = try store.listeningStats(.month, now: now, calendar: calendar)
        #expect(month.seconds == 2_340 && month.days.count == 30)

        // Nothing yet today: the streak still counts up to yesterday; the day before breaks it.
        let tomorrow = try store.listeningStats(.week, now: calendar.date(byAdding: .day, value: 1, to: now)!, calendar: calendar)
        #expect(tomorrow.streak == 2)
        let later = try store.listeningStats(.week, now: calendar.date(byAdding: .day, value: 2, to: now)!, calendar: calendar)
        #expect(later.streak == 0)

        // One title over all time, with its sessions.
        let title = try store.listeningStats(.title, title: holmes, now: now, calendar: calendar)
        #expect(title.seconds == 1_800 && title.sessions.count == 3 && title.from == "2026-11-08")

        // Finished in the period.
        try store.mark(moby, as: .finished)
        let finished = try store.listeningStats(.week, calendar: calendar)
        #expect(finished.finished.map(\.title) == ["Moby Dick"])
        await fixture.sync.stop()
    }

    /// After a year the log keeps one session per title and day: the heard time summed, the first place and the last.
    @Test func sessionsOlderThanAYearAreMergedPerTitleAndDay() async throws {
        let fixture = try await ListeningFixture()
        let store = fixture.store
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let now = Date()
        let holmes = try fixture.rowID(sherlock)
        let old = calendar.date(byAdding: .day, value: -400, to: calendar.startOfDay(for: now))!.addingTimeInterval(3_600)
        for (index, heard) in [100.0, 200, 300].enumerated() {
            try session(store, holmes, daysAgo: 0, heard: heard, from: Double(index * 60), to: Double(index * 60 + 50),
                        now: old.addingTimeInterval(Double(index) * 1_000), calendar: calendar)
        }
        try session(store, holmes, daysAgo: 10, heard: 50, now: now, calendar: calendar)
        try store.compactListeningLog(before: now.addingTimeInterval(-Store.sessionsKeptWhole))
        let sessions = try store.listeningSessions(of: holmes)
        #expect(sessions.count == 2)
        let merged = try #require(sessions.last)
        #expect(merged.heard == 600 && merged.fromSeconds == 0 && merged.toSeconds == 170)
        #expect(sessions.first?.heard == 50)
        await fixture.sync.stop()
    }
}
