import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

private let sherlockID = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
private let phone = "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000bb"

/// Bookmarks in the store (names, tombstones) and their sync both ways with the demo library's annotation service.
@Suite(.timeLimit(.minutes(5))) struct BookmarkSyncTests {
    @Test func aBookmarkNeverPushedIsRemovedAndOnePushedBecomesATombstone() async throws {
        let fixture = try await ListeningFixture(signedIn: false)
        let rowID = try fixture.rowID(sherlockID)
        let late = try fixture.store.addBookmark(try fixture.position(part: 1, seconds: 4), name: "  the dog  ", of: rowID)
        let early = try fixture.store.addBookmark(try fixture.position(part: 0, seconds: 9), of: rowID)
        // Book order, not the order they were made; the name trimmed.
        let listed = try fixture.store.bookmarks(of: rowID)
        #expect(listed.map(\.id) == [early, late])
        #expect(listed.map(\.name) == [nil, "the dog"] && listed.allSatisfy { $0.thisDevice && $0.serverID == nil })
        #expect(try fixture.store.listeningState(of: rowID).pendingPush)

        // Never pushed: gone at once, with its queued post.
        #expect(try fixture.store.deleteBookmark(early) == false)
        #expect(try fixture.store.bookmarks(of: rowID).map(\.id) == [late])
        let queued = try fixture.store.readPositions { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM annotation_outbox") }
        #expect(queued == 1)

        // Pushed (the server's id recorded): a tombstone, hidden from the list, until the DELETE is done.
        #expect(try fixture.store.recordServerID("http://127.0.0.1:9/annotations/5", bookmark: late, of: rowID.rowID,
                                                 libraryID: rowID.libraryID) == false)
        #expect(try fixture.store.deleteBookmark(late) == true)
        #expect(try fixture.store.bookmarks(of: rowID).isEmpty)
        #expect(try fixture.store.bookmarkTombstones(of: fixture.library).map(\.serverID) == ["http://127.0.0.1:9/annotations/5"])
        #expect(try fixture.store.listeningState(of: rowID).pendingPush)
        await fixture.sync.stop()
    }

    @Test func bookmarksSyncBothWaysAndDeletionsReachTheServer() async throws {
        let fixture = try await ListeningFixture()
        try await fixture.download()
        let rowID = try fixture.rowID(sherlockID)
        let hrefs = try fixture.partHrefs(sherlockID)

        // Ours, named: posted once with its name, and the server's id kept.
        let ours = try fixture.store.addBookmark(try fixture.position(part: 0, seconds: 3), name: "opening", of: rowID)
        #expect(try await fixture.push() == PushReport(pushed: 1, pending: 0))
        let posted = await fixture.state.annotations(for: "demo", workID: sherlockID)
        #expect(posted.map(\.motivation) == [.bookmarking] && posted.first?.name == "opening")
        let serverID = try #require(try fixture.store.bookmarks(of: rowID).first?.serverID)
        #expect(serverID == fixture.sync.url.absoluteString + "annotations/\(try #require(posted.first).number)")
        #expect(try await fixture.push() == PushReport())

        // Another device's, with its name and device name, arrives with the pull; ours is not taken twice.
        let theirs = try await fixture.state.postAnnotation(
            username: "demo", workID: sherlockID, motivation: .bookmarking, readingOrderItem: hrefs[1],
            offsetMilliseconds: 1_500, device: phone, time: Date().addingTimeInterval(-30), name: "phone's mark")
        _ = try await fixture.remote(rowID)
        _ = try await fixture.remote(rowID)
        let both = try fixture.store.bookmarks(of: rowID)
        #expect(both.count == 2, "\(fixture.warnings.all)")
        #expect(both.map(\.thisDevice) == [true, false])
        let pulled = try #require(both.last)
        #expect(pulled.part == 1 && pulled.seconds == 1.5 && pulled.name == "phone's mark" && pulled.device == phone)
        #expect(pulled.serverID == fixture.sync.url.absoluteString + "annotations/\(theirs.number)")

        // Deleted here: DELETEd on the server by the next push, then gone from the store.
        #expect(try fixture.store.deleteBookmark(pulled.id))
        #expect(try await fixture.push() == PushReport(pushed: 1, pending: 0))
        #expect(await fixture.state.annotations(for: "demo", workID: sherlockID).map(\.number) == [try #require(posted.first).number])
        #expect(try fixture.store.bookmarkTombstones(of: fixture.library).isEmpty)

        // Deleted on the server (by another device): the next pull removes it here.
        try await fixture.state.deleteAnnotation(username: "demo", number: try #require(posted.first).number)
        _ = try await fixture.remote(rowID)
        #expect(try fixture.store.bookmarks(of: rowID).isEmpty)
        #expect(try fixture.store.readPositions { db in try BookmarkRecord.fetchOne(db, key: ours) } == nil)
        #expect(fixture.warnings.all.isEmpty, "\(fixture.warnings.all)")
        await fixture.sync.stop()
    }

    @Test func aDeleteOfABookmarkAlreadyGoneIsDoneAndOfflineItWaits() async throws {
        let fixture = try await ListeningFixture()
        let rowID = try fixture.rowID(sherlockID)
        let id = try fixture.store.addBookmark(try fixture.position(part: 0, seconds: 2), of: rowID)
        #expect(try await fixture.push().pushed == 1)
        let number = try #require(await fixture.state.annotations(for: "demo", workID: sherlockID).first?.number)

        // Gone from the server already (404): the DELETE counts as done.
        try await fixture.state.deleteAnnotation(username: "demo", number: number)
        #expect(try fixture.store.deleteBookmark(id))
        #expect(try await fixture.push() == PushReport(pushed: 1, pending: 0))
        #expect(try fixture.store.bookmarkTombstones(of: fixture.library).isEmpty)

        // Offline: the tombstone stays for the next sync, which deletes it.
        let other = try fixture.store.addBookmark(try fixture.position(part: 0, seconds: 5), of: rowID)
        #expect(try await fixture.push().pushed == 1)
        #expect(try fixture.store.deleteBookmark(other))
        await fixture.sync.stop()
        let offline = try await fixture.push()
        #expect(offline.pushed == 0 && offline.pending == 1 && offline.failure?.hasPrefix("offline") == true, "\(offline)")
        #expect(try fixture.store.bookmarkTombstones(of: fixture.library).count == 1)
        #expect(try fixture.store.listeningState(of: rowID).pendingPush)
    }

    @Test func hostileBookmarksAreRefusedLikePositions() async throws {
        let fixture = try await ListeningFixture()
        try await fixture.download()
        let rowID = try fixture.rowID(sherlockID)
        let hrefs = try fixture.partHrefs(sherlockID)
        // Past the end of its part, and a part this book does not have.
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlockID, motivation: .bookmarking, readingOrderItem: hrefs[0],
            offsetMilliseconds: 36_000_000, device: phone)
        try await fixture.state.postAnnotation(
            username: "demo", workID: sherlockID, motivation: .bookmarking, readingOrderItem: "another-book.mp3",
            offsetMilliseconds: 1_000, device: phone)
        _ = try await fixture.remote(rowID)
        #expect(try fixture.store.bookmarks(of: rowID).isEmpty)
        let warnings = fixture.warnings.all
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.allSatisfy { $0.hasPrefix("ignored bookmark ") && $0.hasSuffix("kept the bookmarks stored here") })
        #expect(warnings.contains { $0.contains("is past the end of part 1") })
        #expect(warnings.contains { $0.contains("names no part of this book (another-book.mp3)") })
        await fixture.sync.stop()
    }

    @Test(arguments: [
        (#"{"body":{"http://librarysimplified.org/terms/bookmarkName":"Chapter\u0007 one\nend"}}"#, "Chapter  one end"),
        (#"{"body":{"type":"TextualBody","value":"a note"}}"#, "a note"),
        (#"{"bodyValue":"plain","body":{}}"#, "plain"),
        (#"{"body":{"http://librarysimplified.org/terms/bookmarkName":"   "}}"#, nil),
    ] as [(String, String?)])
    func aBookmarkNameIsReadFromTheBody(_ json: String, _ expected: String?) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        object["motivation"] = Motivation.bookmarking
        object["target"] = ["source": "urn:x", "selector": ["type": "oa:FragmentSelector", "value":
            #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a.mp3","readingOrderItemOffsetMilliseconds":0}"#]]
        let annotation = try RemoteAnnotation.parse(object).get()
        #expect(annotation.name == expected)
    }
}

@Suite(.timeLimit(.minutes(5))) struct BookmarkMigrationTests {
    /// A bookmark queued before p2 still gets its server id recorded: the migration links the queued post to its row.
    @Test func bookmarksQueuedBeforeP2AreLinkedToTheirRows() throws {
        let test = TestHome()
        try test.home.prepare()
        let queue = try DatabaseQueue(path: test.home.directory.appendingPathComponent("p2-test.sqlite").path)
        try PositionsMigrations.migrator.migrate(queue, upTo: "p1-listening-state")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO bookmark (id, edition_id, library_id, part, seconds, reading_order_item, device, at)
                    VALUES (5, 7, 1, 1, 3.5, 'part-2.mp3', 'urn:uuid:d', 30), (6, 7, 1, 2, 1, 'part-3.mp3', 'urn:uuid:d', 40);
                INSERT INTO annotation_outbox (edition_id, library_id, motivation, part, seconds, reading_order_item, device, at)
                    VALUES (7, 1, 'idling', 2, 12.5, 'part-3.mp3', 'urn:uuid:d', 20),
                           (7, 1, 'bookmarking', 2, 1, 'part-3.mp3', 'urn:uuid:d', 40);
                """)
        }
        try PositionsMigrations.migrator.migrate(queue)
        let links = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT motivation, bookmark_id FROM annotation_outbox ORDER BY id").map {
                "\($0[0] as String) \(($0[1] as Int64?).map(String.init) ?? "nil")"
            }
        }
        #expect(links == ["idling nil", "bookmarking 6"])
        let names = try queue.read { db in try Row.fetchAll(db, sql: "SELECT name, server_id, deleted FROM bookmark") }
        #expect(names.count == 2 && names.allSatisfy { ($0[0] as String?) == nil && ($0[1] as String?) == nil && ($0[2] as Int) == 0 })
    }
}
