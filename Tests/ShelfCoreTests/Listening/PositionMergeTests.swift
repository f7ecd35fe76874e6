import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
private let phone = "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000cc"
/// Four parts of 40 s: places far enough apart to be offered.
private let longParts = DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: 40)

/// Positions merge, never clobber: another device's newer place is held on the server until the patron answers it.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PositionMergeTests {
    /// The library's newest idling annotation of Sherlock: the place it would give any device now.
    private func libraryPlace(_ fixture: ListeningFixture) async -> (device: String?, item: String, milliseconds: Int)? {
        let idling = await fixture.state.annotations(for: "demo", workID: sherlock).filter { $0.motivation == .idling }
        return idling.last.map { ($0.device, $0.readingOrderItem, $0.offsetMilliseconds) }
    }

    /// This computer pushed 1:02 a minute ago; the phone then posts 2:20 (part 4); this computer saves 1:07 and pushes:
    /// the push is held back, the library keeps the phone's place, and the open offer says where the phone was.
    private func phoneAheadAfterOurPush() async throws -> (ListeningFixture, EditionRef, [String]) {
        let fixture = try await ListeningFixture(configuration: longParts)
        try await fixture.download()
        let edition = try fixture.rowID(sherlock)
        let hrefs = try fixture.partHrefs(sherlock)
        let ours = try fixture.store.deviceID()
        func here(_ part: Int, _ seconds: Double, _ ago: Double) -> ListeningPosition {
            ListeningPosition(part: part, seconds: seconds, readingOrderItem: hrefs[part], device: ours, deviceName: nil,
                              at: Date().addingTimeInterval(-ago))
        }
        try fixture.store.savePosition(here(1, 2, 120), of: edition, percent: 30, finished: false)
        #expect(try await fixture.push() == PushReport(pushed: 1, pending: 0))
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: hrefs[3], offsetMilliseconds: 20_000,
            device: phone, time: Date().addingTimeInterval(-60), deviceName: "Pixel 7")
        try fixture.store.savePosition(here(1, 7, 10), of: edition, percent: 31, finished: false)
        return (fixture, edition, hrefs)
    }

    @Test func aPushNeverReplacesAnotherDevicesNewerPlaceUntilThePatronChooses() async throws {
        let (fixture, edition, hrefs) = try await phoneAheadAfterOurPush()
        let held = try await fixture.push()
        #expect(held.pushed == 0 && held.pending == 1, "\(held)")
        #expect(held.failure == PositionSync.heldBack(
            by: try #require(try fixture.store.openOffer(of: edition)), id: "7d3c0002"), "\(held)")
        let kept = await libraryPlace(fixture)
        #expect(kept?.device == phone && kept?.item == hrefs[3] && kept?.milliseconds == 20_000)

        // The offer stays open through every later push, and `shelf position` shows it with the phone's name.
        #expect(try await fixture.push().pending == 1)
        let report = try fixture.positionSync().report(of: edition)
        #expect(report.offer?.name == "Pixel 7" && report.offer?.part == 3 && report.offer?.seconds == 20)
        #expect(report.pendingPush)

        // Keeping this computer's place pushes it over the phone's.
        #expect(try fixture.positionSync().answerOffer(of: edition, take: false)?.device == phone)
        #expect(try await fixture.push().pushed == 1)
        let replaced = await libraryPlace(fixture)
        #expect(replaced?.device == (try fixture.store.deviceID()) && replaced?.item == hrefs[1] && replaced?.milliseconds == 7_000)
        #expect(try fixture.store.openOffer(of: edition) == nil)

        // The same place posted again by the phone later is a new position, and offered again.
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: hrefs[3], offsetMilliseconds: 20_000,
            device: phone, time: Date().addingTimeInterval(5), deviceName: "Pixel 7")
        let again = try #require(try fixture.positionSync().pull(edition))
        #expect(again.part == 3 && again.seconds == 20)
        await fixture.sync.stop()
    }

    /// A sync (cron's too) holds the position back and tells the patron once, with what to run.
    @Test func aSyncHoldsThePositionBackAndTellsOnce() async throws {
        let (fixture, edition, _) = try await phoneAheadAfterOurPush()
        let first = try fixture.sync.sync()
        #expect(first.positionsPushed == 0 && first.positionsPending == 1)
        let told = try fixture.store.takeUnprinted(libraryID: fixture.library.id).filter { $0.kind == .positionOffer }
        #expect(told.map(\.text) == ["demo: Pixel 7 saved a newer place in The Adventures of Sherlock Holmes (2:20); this "
                                     + "computer's is not pushed over it until you choose: `shelf position 7d3c0002 "
                                     + "--take-other` goes there, `--keep-here` keeps this computer's"])
        let second = try fixture.sync.sync()
        #expect(second.positionsPending == 1)
        #expect(try fixture.store.takeUnprinted(libraryID: fixture.library.id).isEmpty)
        #expect(try fixture.store.openOffer(of: edition) != nil)
        await fixture.sync.stop()
    }

    @Test func takingTheOfferMakesTheOtherDevicesPlaceThisComputersAndPushesIt() async throws {
        let (fixture, edition, hrefs) = try await phoneAheadAfterOurPush()
        #expect(try await fixture.push().pending == 1)
        let taken = try #require(try fixture.positionSync().answerOffer(of: edition, take: true))
        #expect(taken.deviceName == "Pixel 7")
        let here = try #require(try fixture.store.listeningState(of: edition).position)
        #expect(here.part == 3 && here.seconds == 20)
        #expect(try await fixture.push().pushed == 1)
        let place = await libraryPlace(fixture)
        #expect(place?.device == (try fixture.store.deviceID()) && place?.item == hrefs[3] && place?.milliseconds == 20_000)
        // Nothing new since: no offer, and nothing held.
        #expect(try fixture.positionSync().pull(edition) == nil)
        await fixture.sync.stop()
    }

    /// A newer place within 30 s of this computer's needs no answer: the push goes ahead.
    @Test func aNewerPlaceBesideThisComputersIsNotOffered() async throws {
        let fixture = try await ListeningFixture(configuration: longParts)
        try await fixture.download()
        let edition = try fixture.rowID(sherlock)
        let hrefs = try fixture.partHrefs(sherlock)
        let ours = try fixture.store.deviceID()
        try fixture.store.savePosition(
            ListeningPosition(part: 1, seconds: 2, readingOrderItem: hrefs[1], device: ours, deviceName: nil,
                              at: Date().addingTimeInterval(-120)), of: edition, percent: 30, finished: false)
        #expect(try await fixture.push().pushed == 1)
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: hrefs[1], offsetMilliseconds: 12_000,
            device: phone, time: Date().addingTimeInterval(-60))
        try fixture.store.savePosition(
            ListeningPosition(part: 1, seconds: 14, readingOrderItem: hrefs[1], device: ours, deviceName: nil,
                              at: Date().addingTimeInterval(-10)), of: edition, percent: 31, finished: false)
        #expect(try await fixture.push() == PushReport(pushed: 1, pending: 0))
        #expect(try fixture.store.openOffer(of: edition) == nil)
        await fixture.sync.stop()
    }

    /// A place in a part of an older manifest (the title borrowed again) is found by its chapter's name, or ignored
    /// with one line; it never names a part this book does not have.
    @Test func aPlaceInAPartOfAnOlderManifestIsFoundByItsChapterOrIgnored() async throws {
        let fixture = try await ListeningFixture(configuration: longParts)
        try await fixture.download()
        let edition = try fixture.rowID(sherlock)
        let titles = try fixture.store.partRecords(of: edition).map(\.title)
        let chapter = try #require(titles[2])
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: "https://old.example/loan-1/c.mp3",
            offsetMilliseconds: 4_000, device: phone, chapter: chapter)
        let mapped = try #require(try await fixture.remote(edition), "\(fixture.warnings.all)")
        #expect(mapped.part == 2 && mapped.seconds == 4)

        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: "https://old.example/loan-1/z.mp3",
            offsetMilliseconds: 4_000, device: phone, chapter: "A chapter this book does not have")
        #expect(try await fixture.remote(edition) == nil)
        #expect(fixture.warnings.all.last?.contains("names no part of this book") == true, "\(fixture.warnings.all)")
        await fixture.sync.stop()
    }
}

@Suite(.timeLimit(.minutes(5))) struct PositionSyncMigrationTests {
    /// A title whose position is not queued was pushed as this device last saved it: p3 records that, so another
    /// device's older position is not offered after the upgrade; a title with a queued position was not pushed.
    @Test func p3TakesPositionsNotQueuedAsPushed() throws {
        let test = TestHome()
        try test.home.prepare()
        let queue = try DatabaseQueue(path: test.home.directory.appendingPathComponent("p3-test.sqlite").path)
        try PositionsMigrations.migrator.migrate(queue, upTo: "p2-bookmark-sync")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO setting (key, value) VALUES ('device_id', 'urn:uuid:me');
                INSERT INTO device_position (edition_id, library_id, device, part, seconds, reading_order_item, at)
                    VALUES (7, 1, 'urn:uuid:me', 1, 3, 'part-2.mp3', 30), (7, 1, 'urn:uuid:phone', 2, 1, 'part-3.mp3', 20),
                           (8, 1, 'urn:uuid:me', 0, 9, 'part-1.mp3', 50), (9, 1, 'urn:uuid:phone', 0, 9, 'part-1.mp3', 60);
                INSERT INTO annotation_outbox (edition_id, library_id, motivation, part, seconds, reading_order_item, device, at)
                    VALUES (8, 1, 'idling', 0, 9, 'part-1.mp3', 'urn:uuid:me', 50);
                """)
        }
        try PositionsMigrations.migrator.migrate(queue)
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT edition_id, pushed_at FROM position_sync ORDER BY edition_id").map {
                "\($0[0] as Int64) \($0[1] as Double)"
            }
        }
        #expect(rows == ["7 30.0"])
    }
}
