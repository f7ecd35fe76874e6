import DemoLibrary
import Foundation
import ShelfCore
import Testing

@Suite(.serialized) struct PositionCLITests {
    private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"

    /// Signed in as `demo`, synced, Sherlock downloaded.
    private func ready() async throws -> CLIFixture {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        let download = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(download.status == 0, "\(download.stderr)")
        return fixture
    }

    /// Saves a position as the player would, through the store in the runner's home.
    private func play(_ fixture: CLIFixture, part: Int, seconds: Double, percent: Double) throws {
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let rowID = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        try store.savePosition(
            ListeningPosition(part: part, seconds: seconds, readingOrderItem: "\(part + 1).mp3", device: try store.deviceID(),
                              deviceName: nil, at: Date()),
            of: rowID, percent: percent, finished: false)
    }

    @Test func syncPushesThePositionAndPositionListsEveryDevice() async throws {
        let fixture = try await ready()
        try play(fixture, part: 1, seconds: 2, percent: 43)
        let list = try await fixture.shelf.run(["list"])
        #expect(list.stdout.split(separator: "\n")[0].contains("PROGRESS"))
        #expect(list.stdout.split(separator: "\n").contains { $0.contains("Sherlock") && $0.contains("43%") })
        #expect(list.stdout.split(separator: "\n").contains { $0.contains("Pride and Prejudice") && $0.contains(" new ") })

        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.hasSuffix("Pushed 1 listening position\n"))
        let annotations = await fixture.server.state.annotations(for: "demo", workID: sherlock)
        #expect(annotations.count == 1 && annotations.first?.offsetMilliseconds == 2_000)
        let quiet = try await fixture.shelf.run(["sync"])
        #expect(!quiet.stdout.contains("Pushed"))

        try await fixture.server.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: "3.mp3", offsetMilliseconds: 1_500,
            device: "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000aa", time: Date().addingTimeInterval(-30))
        let json = try await fixture.shelf.run(["position", "7d3c0002", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys).isSuperset(of: ["id", "title", "consumption", "percent", "speed", "pendingPush", "devices"]))
        #expect(object["consumption"] as? String == "in-progress" && object["pendingPush"] as? Bool == false)
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        // Newest first: this computer played a moment ago, the other device half a minute ago.
        #expect(devices.map { $0["thisDevice"] as? Bool } == [true, false])
        let other = try #require(devices.last)
        #expect(other["device"] as? String == "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000aa")
        #expect(other["part"] as? Int == 2 && other["seconds"] as? Double == 1.5 && other["name"] as? String == "another device")
        #expect(devices.allSatisfy { $0["at"] is String && $0["name"] is String && $0["bookSeconds"] is Double })
        let report = try JSONDecoder.iso.decode(PositionReport.self, from: Data(json.stdout.utf8))
        #expect(report.localOnly == nil)

        let text = try await fixture.shelf.run(["position", "7d3c0002"])
        #expect(text.stdout.hasPrefix("The Adventures of Sherlock Holmes — 43%\n"), "\(text.stdout)")
        #expect(text.stdout.contains("DEVICE"))
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("another device ") && $0.contains(" 3 Chapter 3 ") })
        #expect(text.stdout.contains("this computer ("))

        // Offline: what is stored here, said so.
        await fixture.server.stop()
        let offline = try await fixture.shelf.run(["position", "7d3c0002"])
        #expect(offline.status == 0)
        #expect(offline.stdout.contains("Showing the positions stored here only (offline"))
        fixture.shelf.cleanUp()
    }

    @Test func markSetsTheProgressOthersAreUsageErrors() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let played = try await fixture.shelf.run(["mark", "7d3c0001", "--played"])
        #expect(played.status == 0)
        #expect(played.stdout == "Marked Pride and Prejudice as played.\n")
        let list = try await fixture.shelf.run(["list", "--json"])
        let editions = try JSONDecoder.iso.decode([EditionSummary].self, from: Data(list.stdout.utf8))
        let pride = try #require(editions.first { $0.id.hasSuffix("7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001") })
        #expect(pride.consumption == .finished && pride.percent == 100)
        #expect(try await fixture.shelf.run(["list"]).stdout.split(separator: "\n").contains {
            $0.contains("Pride and Prejudice") && $0.contains("finished")
        })
        let new = try await fixture.shelf.run(["mark", "7d3c0001", "--new"])
        #expect(new.stdout == "Marked Pride and Prejudice as new.\n")
        #expect(await fixture.server.state.annotations(for: "demo").isEmpty)

        let both = try await fixture.shelf.run(["mark", "7d3c0001", "--new", "--played"])
        #expect(both.status == ShelfExit.usage.rawValue)
        #expect(both.stderr.contains("give exactly one of --played and --new"))
        let neither = try await fixture.shelf.run(["mark", "7d3c0001"])
        #expect(neither.status == ShelfExit.usage.rawValue)
        let missing = try await fixture.shelf.run(["mark", "no-such-title", "--played"])
        #expect(missing.status == ShelfExit.notFound.rawValue)
        let position = try await fixture.shelf.run(["position", "no-such-title"])
        #expect(position.status == ShelfExit.notFound.rawValue)
        await fixture.finish()
    }
}
