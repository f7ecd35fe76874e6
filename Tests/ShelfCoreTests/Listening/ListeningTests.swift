import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
private let mobyDick = "urn:uuid:7d3c0004-5a1e-4c6b-9f0e-d0c5e1f00004"
private let otherDevice = "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000aa"

/// A demo library, a store synced with it as the signed-in patron `demo`, and position sync for it.
final class ListeningFixture: @unchecked Sendable {
    let sync: SyncFixture
    var store: Store { sync.store }
    var state: DemoState { sync.state }
    var library: Library { (try? sync.store.library(named: "demo")) ?? sync.library }
    let warnings = Warnings()

    init(signedIn: Bool = true, configuration: DemoConfiguration = DemoConfiguration(pageSize: 5)) async throws {
        sync = try await SyncFixture(configuration: configuration)
        if signedIn {
            try CredentialStore(home: sync.test.home).save(
                Credentials(authType: AuthenticationDocument.basicType, username: "demo", password: "1234"), for: "demo")
        }
        _ = try sync.sync()
    }

    func rowID(_ id: String) throws -> EditionRef { try store.resolveEdition(id, in: library) }

    func positionSync() throws -> PositionSync {
        var configuration = HTTPConfiguration()
        // Generous for two loaded cores: a stopped library refuses at once, so the offline cases stay quick.
        configuration.stallTimeout = 30
        configuration.connectTimeout = 10
        let positions = try PositionSync(store: store, home: sync.test.home, library: library, configuration: configuration)
        let warnings = self.warnings
        positions.warn = { warnings.append($0) }
        return positions
    }

    func push() async throws -> PushReport {
        let positions = try positionSync()
        return positions.pushPending()
    }

    func remote(_ rowID: EditionRef) async throws -> ListeningPosition? {
        let positions = try positionSync()
        return try positions.remotePosition(of: rowID)
    }

    /// Downloads Sherlock, so its parts are known.
    func download() async throws {
        try await state.prepareAudio()
        let (store, home, library) = (self.store, sync.test.home, self.library)
        _ = try FulfilmentService(store: store, home: home, library: library, configuration: HTTPConfiguration()).download(try store.resolveEdition(sherlock, in: library))
    }

    /// The downloaded manifest's part hrefs, without their queries: what a player posts.
    func partHrefs(_ id: String) throws -> [String] {
        let rowID = try rowID(id)
        let row = try #require(try store.read { db in
            try Row.fetchOne(db, sql: "SELECT manifest, manifest_url FROM fulfilment WHERE edition_id = ?", arguments: [rowID.rowID])
        })
        let manifest = try AudiobookManifest.parse(Data((row[0] as String).utf8), url: try #require(URL(string: row[1])))
        return manifest.parts.map { String($0.href.prefix { $0 != "?" }) }
    }

    func position(part: Int, seconds: Double, at: Date = Date()) throws -> ListeningPosition {
        ListeningPosition(part: part, seconds: seconds, readingOrderItem: "part-\(part + 1).mp3", device: try store.deviceID(),
                          deviceName: nil, at: at)
    }
}

final class Warnings: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

@Suite(.timeLimit(.minutes(5))) struct ListeningTests {
    @Test func positionSpeedAndConsumptionAreKeptInTheStore() async throws {
        let fixture = try await ListeningFixture(signedIn: false)
        let rowID = try fixture.rowID(sherlock)
        let fresh = try fixture.store.listeningState(of: rowID)
        #expect(fresh == ListeningState(position: nil, speed: 1, consumption: .new, percent: nil, pendingPush: false))

        let device = try fixture.store.deviceID()
        #expect(device.hasPrefix("urn:uuid:") && device.count == 45)
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        let position = try fixture.position(part: 1, seconds: 12.5, at: at)
        try fixture.store.savePosition(position, of: rowID, percent: 43.2, finished: false)
        try fixture.store.saveSpeed(1.25, of: rowID)

        // A second store on the same file (another process) sees the same, and the same device id.
        let reopened = try Store(home: fixture.sync.test.home)
        #expect(try reopened.deviceID() == device)
        let state = try reopened.listeningState(of: rowID)
        #expect(state.position?.part == 1 && state.position?.seconds == 12.5 && state.position?.at == at)
        #expect(state.position?.deviceName == Store.thisComputer)
        #expect(state.speed == 1.25 && state.consumption == .inProgress && state.percent == 43.2 && state.pendingPush)
        let summary = try #require(try fixture.store.editions(of: fixture.library).first { $0.id == sherlock })
        #expect(summary.consumption == .inProgress && summary.progress == "43%")
        #expect(try fixture.store.editions(of: fixture.library).first { $0.medium == "ebook" }?.progress == "")

        // Only one position per edition waits to be pushed: the newest.
        try fixture.store.savePosition(try fixture.position(part: 2, seconds: 3), of: rowID, percent: 60, finished: false)
        let queued = try fixture.store.readPositions { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM annotation_outbox") }
        #expect(queued == 1)

        try fixture.store.mark(rowID, as: .finished)
        #expect(try fixture.store.listeningState(of: rowID).consumption == .finished)
        #expect(try fixture.store.listeningState(of: rowID).percent == 100)
        #expect(try fixture.store.editions(of: fixture.library).first { $0.id == sherlock }?.progress == "finished")

        try fixture.store.mark(rowID, as: .new)
        let cleared = try fixture.store.listeningState(of: rowID)
        #expect(cleared.position == nil && cleared.consumption == .new && cleared.percent == nil && !cleared.pendingPush)
        #expect(cleared.speed == 1.25)
        await fixture.sync.stop()
    }

    @Test func aPositionPushedBySyncIsOneIdlingAnnotationOnTheServer() async throws {
        let fixture = try await ListeningFixture()
        #expect(fixture.library.annotationsURL == fixture.sync.url.absoluteString + "annotations/")
        let rowID = try fixture.rowID(sherlock)
        try fixture.store.savePosition(try fixture.position(part: 1, seconds: 12.5), of: rowID, percent: 40, finished: false)
        let summary = try fixture.sync.sync()
        #expect(summary.positionsPushed == 1 && summary.positionsPending == 0)
        #expect(try !fixture.store.listeningState(of: rowID).pendingPush)

        try fixture.store.savePosition(try fixture.position(part: 2, seconds: 3.25), of: rowID, percent: 70, finished: false)
        #expect(try await fixture.push() == PushReport(pushed: 1, pending: 0))
        let annotations = await fixture.state.annotations(for: "demo", workID: sherlock)
        #expect(annotations.count == 1)
        let annotation = try #require(annotations.first)
        #expect(annotation.motivation == .idling)
        #expect(annotation.readingOrderItem == "part-3.mp3" && annotation.offsetMilliseconds == 3_250)
        #expect(annotation.device == (try fixture.store.deviceID()))
        #expect(annotation.selectorValue.contains(#""@type":"LocatorAudioBookTime""#))
        #expect(annotation.selectorValue.contains(#""@version":2"#))
        // Nothing queued: nothing to do, and no request.
        #expect(try await fixture.push() == PushReport())
        await fixture.sync.stop()
    }

    @Test func offlinePositionsStayQueuedAndTheNextSyncPushesThem() async throws {
        let fixture = try await ListeningFixture()
        let rowID = try fixture.rowID(sherlock)
        await fixture.sync.stop()
        try fixture.store.savePosition(try fixture.position(part: 0, seconds: 4), of: rowID, percent: 10, finished: false)
        try fixture.store.addBookmark(try fixture.position(part: 0, seconds: 2), of: rowID)
        let offline = try await fixture.push()
        #expect(offline.pushed == 0 && offline.pending == 2)
        #expect(offline.failure?.hasPrefix("offline") == true, "\(offline.failure ?? "")")
        #expect(try fixture.store.listeningState(of: rowID).pendingPush)
        #expect(fixture.warnings.all.isEmpty)

        // The library is back (at a new address): the next sync pushes both.
        let server = DemoLibraryServer(configuration: DemoConfiguration(pageSize: 5))
        let url = try await server.start()
        try fixture.store.setLibraryURL(name: "demo", url: url)
        // The stored card and PIN were given for the old URL: the patron signs in again at the new one.
        try CredentialStore(home: fixture.sync.test.home).save(
            Credentials(
                authType: AuthenticationDocument.basicType, username: "demo", password: "1234",
                libraryURL: url.absoluteString),
            for: "demo")
        let (store, home) = (fixture.store, fixture.sync.test.home)
        let library = fixture.library
        let summary = try SyncEngine(store: store, home: home).sync(library)
        #expect(summary.positionsPushed == 2 && summary.positionsPending == 0)
        let annotations = await server.state.annotations(for: "demo", workID: sherlock)
        #expect(annotations.map(\.motivation).sorted { $0.rawValue < $1.rawValue } == [.idling, .bookmarking])
        #expect(annotations.first { $0.motivation == .bookmarking }?.offsetMilliseconds == 2_000)
        #expect(try !fixture.store.listeningState(of: rowID).pendingPush)
        await server.stop()
    }

    @Test func anotherDevicesNewerPositionIsResolvedToAPartOfTheBook() async throws {
        let fixture = try await ListeningFixture()
        try await fixture.download()
        let rowID = try fixture.rowID(sherlock)
        try fixture.store.savePosition(try fixture.position(part: 0, seconds: 1, at: Date().addingTimeInterval(-600)),
                                       of: rowID, percent: 5, finished: false)
        #expect(try await fixture.remote(rowID) == nil)

        let hrefs = try fixture.partHrefs(sherlock)
        #expect(hrefs.count >= 2)
        let otherTime = Date().addingTimeInterval(-60)
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: hrefs[1], offsetMilliseconds: 2_500,
            device: otherDevice, time: otherTime)
        let remote = try #require(try await fixture.remote(rowID), "\(fixture.warnings.all)")
        #expect(remote.part == 1 && remote.seconds == 2.5 && remote.device == otherDevice)
        // The time the other device gave, to the whole second annotations carry.
        #expect(abs(remote.at.timeIntervalSince(otherTime)) < 1)
        let devices = try fixture.store.devicePositions(of: rowID)
        #expect(devices.map(\.device) == [otherDevice, try fixture.store.deviceID()])
        // The local position is untouched.
        #expect(try fixture.store.listeningState(of: rowID).position?.part == 0)

        // Palace's `…:N` form names the part by its index.
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling,
            readingOrderItem: "urn:org.thepalaceproject:readingOrderItem:1", offsetMilliseconds: 1_000, device: otherDevice)
        #expect(try await fixture.remote(rowID)?.part == 1, "\(fixture.warnings.all)")

        // And by the last component of its path.
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: "1.mp3", offsetMilliseconds: 1_000,
            device: otherDevice)
        #expect(try await fixture.remote(rowID)?.part == 0, "\(fixture.warnings.all)")

        // One that names no part of this book is ignored with a warning.
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: "another-book.mp3",
            offsetMilliseconds: 1_000, device: otherDevice)
        #expect(try await fixture.remote(rowID) == nil)
        #expect(fixture.warnings.all.last?.contains("names no part of this book (another-book.mp3)") == true)

        let report = try fixture.positionSync().report(of: rowID)
        #expect(report.localOnly == nil && report.devices.count == 2)
        #expect(report.devices.first { $0.thisDevice }?.name == Store.thisComputer)
        #expect(report.duration != nil && report.devices.allSatisfy { $0.bookSeconds != nil && $0.percent != nil })
        await fixture.sync.stop()
    }

    /// Each malformed or hostile annotation is refused with its reason, and the local position stays; the 50 MB body
    /// is `PositionCLITests`' (the whole list is refused).
    @Test(arguments: MalformedAnnotation.allCases.filter { $0 != .hugeBody })
    func aMalformedAnnotationIsIgnoredWithAWarning(_ kind: MalformedAnnotation) async throws {
        let fixture = try await ListeningFixture()
        try await fixture.download()
        let rowID = try fixture.rowID(sherlock)
        let local = try fixture.position(part: 1, seconds: 2)
        try fixture.store.savePosition(local, of: rowID, percent: 30, finished: false)
        await fixture.state.setMalformedAnnotation(kind)
        #expect(try await fixture.remote(rowID) == nil)
        #expect(fixture.warnings.all.count == 1, "\(fixture.warnings.all)")
        let warning = try #require(fixture.warnings.all.first)
        #expect(warning.hasPrefix("ignored annotation \(fixture.sync.url.absoluteString)annotations/0 of The Adventures of Sherlock Holmes: "))
        #expect(warning.hasSuffix("; kept the local position"))
        let reasons: [MalformedAnnotation: String] = [
            .invalidLocator: "is a LocatorHrefProgression, not an audiobook position", .unparseableLocator: "not valid JSON",
            .missingTarget: "it has no target", .hugeOffset: "its readingOrderItemOffsetMilliseconds 1e+20 ms is more than 1,000 hours",
            .offsetPastTheEnd: "its offset 10:00:00 is past the end of part 1 (", .negativeOffset: "-5000 ms is negative",
            .nanOffset: "its locator is not valid JSON", .wrongHref: "names no part of this book (another-book.mp3)",
            .otherBook: "it belongs to another title (urn:uuid:00000000-0000-4000-8000-00000000b00c)",
            .deepLocator: "its locator is nested more than 8 levels deep",
        ]
        #expect(warning.contains(try #require(reasons[kind])), "\(warning)")
        let kept = try #require(try fixture.store.listeningState(of: rowID).position)
        #expect(kept.part == local.part && kept.seconds == local.seconds && abs(kept.at.timeIntervalSince(local.at)) < 0.001)
        await fixture.sync.stop()
    }

    @Test func aPushTheLibraryRefusesIsDroppedSoTheQueueNeverWedges() async throws {
        let fixture = try await ListeningFixture()
        try fixture.store.savePosition(try fixture.position(part: 0, seconds: 1), of: try fixture.rowID(mobyDick), percent: nil, finished: false)
        try fixture.store.addBookmark(try fixture.position(part: 0, seconds: 7), of: try fixture.rowID(sherlock))
        let report = try await fixture.push()
        #expect(report.pushed == 1 && report.pending == 0 && report.failure == nil)
        // The report carries the same warning `warn` heard (the sync prints it).
        #expect(report.warnings == fixture.warnings.all)
        #expect(fixture.warnings.all.count == 1)
        #expect(fixture.warnings.all.first?.hasPrefix("dropped the listening position of Moby Dick: demo refused it (") == true)
        #expect(fixture.warnings.all.first?.contains("no loan of \(mobyDick)") == true)
        let bookmarks = await fixture.state.annotations(for: "demo", workID: sherlock)
        #expect(bookmarks.map(\.motivation) == [.bookmarking])
        #expect(try fixture.store.bookmarks(of: try fixture.rowID(sherlock)).map(\.seconds) == [7])
        await fixture.sync.stop()
    }

    @Test func withoutCredentialsPositionsStayQueuedAndThePullSaysWhy() async throws {
        let fixture = try await ListeningFixture(signedIn: false)
        let rowID = try fixture.rowID(sherlock)
        try fixture.store.savePosition(try fixture.position(part: 0, seconds: 1), of: rowID, percent: nil, finished: false)
        let report = try await fixture.push()
        #expect(report.pushed == 0 && report.pending == 1 && report.failure?.contains("shelf login") == true)
        await #expect(throws: CirculationError.notSignedIn(library: "demo")) { try await fixture.remote(rowID) }
        let positions = try fixture.positionSync().report(of: rowID)
        #expect(positions.localOnly?.contains("not signed in") == true && positions.pendingPush)
        #expect(positions.pendingReason?.contains("not signed in") == true)
        await fixture.sync.stop()
    }
}

@Suite(.timeLimit(.minutes(5))) struct OutboxMigrationTests {
    @Test func positionsQueuedUnderFullMotivationURIsKeepOnlyTheNewestPerEdition() throws {
        let test = TestHome()
        try test.home.prepare()
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: test.home.database.path, configuration: configuration)
        try Migrations.migrator.migrate(queue, upTo: "v6-listening")
        try queue.write { db in
            for (edition, motivation, at) in [
                (1, Motivation.idling, 1.0), (1, Motivation.idling, 2.0), (1, Motivation.bookmarking, 3.0), (2, Motivation.idling, 4.0),
            ] {
                try db.execute(sql: """
                    INSERT INTO annotation_outbox (edition_id, library_id, motivation, part, seconds, reading_order_item, device, at)
                    VALUES (?, 1, ?, 0, 0, 'a', 'd', ?)
                    """, arguments: [edition, motivation, at])
            }
        }
        try Migrations.migrator.migrate(queue, upTo: "v7-outbox-motivation-names")
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT edition_id, motivation, at FROM annotation_outbox ORDER BY id").map {
                "\($0[0] as Int64) \($0[1] as String) \($0[2] as Double)"
            }
        }
        #expect(rows == ["1 idling 2.0", "1 bookmarking 3.0", "2 idling 4.0"])
    }
}

@Suite(.timeLimit(.minutes(5))) struct PositionsDatabaseMoveTests {
    /// A store written before v8 keeps its listening state in the catalog database; opening it moves every row to
    /// positions.sqlite and drops the old tables, so nothing a patron saved is lost.
    @Test func listeningStateWrittenBeforeV8MovesToItsOwnDatabase() throws {
        let test = TestHome()
        let store = try test.store(writtenAt: "v7-outbox-motivation-names") { db in
            try db.execute(sql: """
                INSERT INTO library (id, name, url, is_default, created_at) VALUES (3, 'lib', 'http://127.0.0.1:1/', 1, 0);
                INSERT INTO edition (id, library_id, entry_id, title, medium, content_hash, change_hash, first_seen_at,
                    changed_at, state_changed_at) VALUES (7, 3, 'urn:book', 'Book', 'audiobook', 0, 0, 0, 0, 0);
                INSERT INTO setting (key, value) VALUES ('device_id', 'urn:uuid:old-device');
                INSERT INTO listening (edition_id, speed, consumption, percent, updated_at) VALUES (7, 1.5, 'in-progress', 42, 10);
                INSERT INTO device_position (edition_id, device, device_name, part, seconds, reading_order_item, at)
                    VALUES (7, 'urn:uuid:old-device', NULL, 2, 12.5, 'part-3.mp3', 20);
                INSERT INTO bookmark (edition_id, part, seconds, reading_order_item, device, at)
                    VALUES (7, 1, 3, 'part-2.mp3', 'urn:uuid:old-device', 30);
                INSERT INTO annotation_outbox (edition_id, library_id, motivation, part, seconds, reading_order_item, device, at)
                    VALUES (7, 3, 'idling', 2, 12.5, 'part-3.mp3', 'urn:uuid:old-device', 20);
                """)
        }
        let edition = try store.resolveEdition("urn:book", in: try store.library(named: "lib"))
        #expect(try store.deviceID() == "urn:uuid:old-device")
        let state = try store.listeningState(of: edition)
        #expect(state.speed == 1.5 && state.consumption == .inProgress && state.percent == 42 && state.pendingPush)
        #expect(state.position?.part == 2 && state.position?.seconds == 12.5)
        #expect(try store.bookmarks(of: edition).map(\.readingOrderItem) == ["part-2.mp3"])
        let leftInCatalog = try store.read { db in
            try ["listening", "device_position", "bookmark", "annotation_outbox", "setting"].filter { try db.tableExists($0) }
        }
        #expect(leftInCatalog.isEmpty)

        // Removing the library forgets its listening state too (the row ids could be given to another library).
        try store.removeLibrary(name: "lib")
        let left = try store.readPositions { db in
            try ["listening", "device_position", "bookmark", "annotation_outbox"].map {
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1
            }
        }
        #expect(left == [0, 0, 0, 0])
    }
}
