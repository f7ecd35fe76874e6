import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// `shelf bookmarks ID [--json] [--delete N]` against the demo library.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BookmarksCLITests {
    private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    private let phone = "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000aa"

    /// Adds a bookmark as the player's `b` would, through the store in the runner's home.
    private func mark(_ fixture: CLIFixture, part: Int, seconds: Double, name: String?) throws {
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let rowID = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        try store.addBookmark(
            ListeningPosition(part: part, seconds: seconds, readingOrderItem: "\(part + 1).mp3", device: try store.deviceID(),
                              deviceName: nil, at: Date()),
            name: name, of: rowID)
    }

    @Test func listsEveryDevicesBookmarksAndDeletesOneEverywhere() async throws {
        let fixture = try await CLIFixture.withSherlockDownloaded()
        let empty = try await fixture.shelf.run(["bookmarks", "7d3c0002"])
        #expect(empty.status == 0 && empty.stderr.isEmpty, "\(empty.stderr)")
        #expect(empty.stdout.contains("No bookmarks yet"))

        try mark(fixture, part: 2, seconds: 4, name: "the speckled band")
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(await fixture.server.state.annotations(for: "demo", workID: sherlock).first?.name == "the speckled band")
        try await fixture.server.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .bookmarking, readingOrderItem: "1.mp3", offsetMilliseconds: 1_500,
            device: phone, time: Date().addingTimeInterval(-30), name: "phone")

        let text = try await fixture.shelf.run(["bookmarks", "7d3c0002"])
        #expect(text.status == 0 && text.stderr.isEmpty, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "The Adventures of Sherlock Holmes", "\(text.stdout)")
        #expect(lines[1].hasPrefix("#") && lines[1].contains("IN BOOK") && lines[1].contains("DEVICE"))
        // Book order: the phone's, early in part 1, comes first.
        #expect(lines[2].hasPrefix("1 ") && lines[2].contains("0:01") && lines[2].contains("phone") && lines[2].contains("another device"))
        #expect(lines[3].hasPrefix("2 ") && lines[3].contains("the speckled band") && lines[3].contains("this computer ("))

        let json = try await fixture.shelf.run(["bookmarks", "7d3c0002", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try JSONDecoder.iso.decode(BookmarkReport.self, from: Data(json.stdout.utf8))
        #expect(report.localOnly == nil && report.id == sherlock)
        #expect(report.bookmarks.map(\.number) == [1, 2] && report.bookmarks.map(\.thisDevice) == [false, true])
        #expect(report.bookmarks.map(\.name) == ["phone", "the speckled band"] && report.bookmarks.allSatisfy(\.synced))
        #expect(report.bookmarks[0].device == phone && report.bookmarks[0].bookSeconds == 1.5)

        // N out of range: exit 66, one line, nothing deleted.
        let missing = try await fixture.shelf.run(["bookmarks", "7d3c0002", "--delete", "3"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "shelf: The Adventures of Sherlock Holmes has no bookmark 3: its bookmarks are numbered 1 to 2 (see shelf bookmarks)\n")
        let zero = try await fixture.shelf.run(["bookmarks", "7d3c0002", "--delete", "0"])
        #expect(zero.status == 64 && zero.stderr.contains("--delete takes a bookmark's number"))

        // The phone's, deleted here, is DELETEd on the library at once.
        let deleted = try await fixture.shelf.run(["bookmarks", "7d3c0002", "--delete", "1"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout == "Deleted bookmark 1 at 0:01 (phone).\n")
        #expect(await fixture.server.state.annotations(for: "demo", workID: sherlock).map(\.name) == ["the speckled band"])

        // Offline: deleted here, the DELETE waits for the next sync, which sends it.
        await fixture.server.stop()
        let offline = try await fixture.shelf.run(["bookmarks", "7d3c0002", "--delete", "1", "--json"])
        #expect(offline.status == 0, "\(offline.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(offline.stdout.utf8)) as? [String: Any])
        #expect(object["pending"] as? Bool == true)
        #expect((object["pendingReason"] as? String)?.hasPrefix("offline") == true, "\(offline.stdout)")
        let listed = try await fixture.shelf.run(["bookmarks", "7d3c0002"])
        #expect(listed.status == 0 && listed.stdout.contains("No bookmarks yet"))
        #expect(listed.stderr.hasPrefix("shelf: showing the bookmarks stored here only (offline"), "\(listed.stderr)")
        #expect(listed.stderr.split(separator: "\n").count == 1)
        fixture.shelf.cleanUp()
    }
}
