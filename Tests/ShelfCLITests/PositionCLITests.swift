import DemoLibrary
import Foundation
import ShelfCore
import Testing

@Suite(.serialized, .timeLimit(.minutes(5))) struct PositionCLITests {
    private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"

    /// Saves a position as the player would, through the store in the runner's home.
    /// Saves a position as the player does; when it was saved.
    @discardableResult
    private func play(_ fixture: CLIFixture, part: Int, seconds: Double, percent: Double) throws -> Date {
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let rowID = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        let now = Date()
        try store.savePosition(
            ListeningPosition(part: part, seconds: seconds, readingOrderItem: "\(part + 1).mp3", device: try store.deviceID(),
                              deviceName: nil, at: now),
            of: rowID, percent: percent, finished: false)
        return now
    }

    @Test func syncPushesThePositionAndPositionListsEveryDevice() async throws {
        let fixture = try await CLIFixture.withSherlockDownloaded()
        let played = try play(fixture, part: 1, seconds: 2, percent: 43)
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
            device: "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000aa", time: played.addingTimeInterval(-30))
        let json = try await fixture.shelf.run(["position", "7d3c0002", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys).isSuperset(of: ["id", "title", "consumption", "percent", "speed", "pendingPush", "devices"]))
        #expect(object["consumption"] as? String == "in-progress" && object["pendingPush"] as? Bool == false)
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        // Newest first: the other device played half a minute before this computer (however long the steps between
        // took: a time relative to now put it first once they took over 30 s on a loaded machine).
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

    /// Hostile annotations from the library: each is refused with a one-line reason, the command still succeeds, this
    /// computer's position is untouched and another device's good annotation in the same list is still read.
    @Test func hostileAnnotationsAreRefusedAndNoPositionIsLost() async throws {
        let fixture = try await CLIFixture.withSherlockDownloaded()
        try play(fixture, part: 1, seconds: 2, percent: 43)
        let other = "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000aa"
        try await fixture.server.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling, readingOrderItem: "3.mp3", offsetMilliseconds: 1_500,
            device: other, time: Date().addingTimeInterval(-30))
        let reasons: [(MalformedAnnotation, String)] = [
            (.hugeOffset, "1e+20 ms is more than 1,000 hours"), (.offsetPastTheEnd, "is past the end of part 1"),
            (.negativeOffset, "-5000 ms is negative"), (.nanOffset, "its locator is not valid JSON"),
            (.wrongHref, "names no part of this book (another-book.mp3)"), (.otherBook, "it belongs to another title"),
            (.deepLocator, "nested more than 8 levels deep"),
        ]
        for (kind, reason) in reasons {
            await fixture.server.state.setMalformedAnnotation(kind)
            let result = try await fixture.shelf.run(["position", "7d3c0002", "--json"])
            #expect(result.status == 0, "\(kind): \(result.stderr)")
            let warnings = result.stderr.split(separator: "\n")
            #expect(warnings.count == 1 && warnings[0].hasPrefix("shelf: warning: ignored annotation "), "\(kind): \(result.stderr)")
            #expect(result.stderr.contains(reason) && result.stderr.contains("kept the local position"), "\(kind): \(result.stderr)")
            let report = try JSONDecoder.iso.decode(PositionReport.self, from: Data(result.stdout.utf8))
            #expect(report.localOnly == nil)
            let ours = try #require(report.devices.first { $0.thisDevice })
            #expect(ours.part == 1 && ours.seconds == 2, "\(kind)")
            let theirs = try #require(report.devices.first { !$0.thisDevice })
            #expect(theirs.device == other && theirs.part == 2 && theirs.seconds == 1.5, "\(kind)")
        }

        // A 50 MB list is refused while it arrives: the positions stored here are shown, with the reason.
        await fixture.server.state.setMalformedAnnotation(.hugeBody)
        let huge = try await fixture.shelf.run(["position", "7d3c0002"])
        #expect(huge.status == 0, "\(huge.stderr)")
        #expect(huge.stdout.contains("Showing the positions stored here only (the response from "), "\(huge.stdout)")
        #expect(huge.stdout.contains("is larger than 8 MB; refusing it)"), "\(huge.stdout)")
        let after = try await fixture.shelf.run(["position", "7d3c0002", "--json"])
        let report = try JSONDecoder.iso.decode(PositionReport.self, from: Data(after.stdout.utf8))
        #expect(report.devices.first { $0.thisDevice }.map { $0.part == 1 && $0.seconds == 2 } == true)
        fixture.shelf.cleanUp()
    }

    @Test func markSetsTheProgressOthersAreUsageErrors() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let played = try await fixture.shelf.run(["mark", "7d3c0001", "--played"])
        #expect(played.status == 0)
        #expect(played.stdout == "Marked Pride and Prejudice as played.\n")
        let list = try await fixture.shelf.run(["list", "--json", "--full"])
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
