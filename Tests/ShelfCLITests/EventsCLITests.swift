import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// Unattended syncs: each event told once, the download policy, follows.
@Suite(.serialized, .timeLimit(.minutes(5))) struct EventsCLITests {
    static let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    static let secretGarden = "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a"
    static let frankenstein = "urn:uuid:7d3c0003-5a1e-4c6b-9f0e-d0c5e1f00003"
    static let warOfTheWorlds = "urn:uuid:7d3c000c-5a1e-4c6b-9f0e-d0c5e1f0000c"

    /// Synced and signed in, nothing downloaded yet.
    private func ready() async throws -> CLIFixture {
        let fixture = try await CLIFixture()
        try await fixture.server.state.prepareAudio()
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        #expect(login.status == 0, "\(login.stderr)")
        return fixture
    }

    private func audioFiles(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".mp3") }.sorted()
    }

    @Test func eachEventIsPrintedOnceAcrossQuietSyncsAndEventsUnseenEmpties() async throws {
        let fixture = try await ready()
        let first = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.isEmpty)
        let firstLines = first.stdout.split(separator: "\n")
        #expect(firstLines.count == 2, "\(first.stdout)")
        #expect(firstLines.contains { $0.hasPrefix("The Adventures of Sherlock Holmes: new loan, due ") }, "\(first.stdout)")
        let again = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(again.stdout.isEmpty && again.stderr.isEmpty, "\(again.stdout)")

        // A loan arrives and a hold becomes ready between runs: each is told by the next run, and only by it.
        _ = try await fixture.server.state.borrow(Self.secretGarden, as: "demo")
        try await fixture.server.state.borrow(Self.warOfTheWorlds, as: "other")
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        _ = try await fixture.shelf.run(["reserve", "7d3c000c"])
        try await fixture.server.state.revoke(Self.warOfTheWorlds, as: "other")
        let changed = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(changed.stdout.contains("The Secret Garden: new loan, due ") == false, "told by the run before")
        #expect(changed.stdout.split(separator: "\n").count == 1, "\(changed.stdout)")
        #expect(changed.stdout.hasPrefix("The War of the Worlds: ready to borrow until "), "\(changed.stdout)")
        for _ in 0..<2 {
            let quiet = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
            #expect(quiet.stdout.isEmpty, "\(quiet.stdout)")
        }

        let unseen = try await fixture.shelf.run(["events", "--unseen", "--json"])
        let events = try JSONDecoder.iso.decode([Notice].self, from: Data(unseen.stdout.utf8))
        #expect(events.map(\.kind).filter { $0 == .holdReady }.count == 1)
        #expect(events.contains { $0.kind == .newLoan && $0.text.hasPrefix("The Secret Garden") })
        #expect(try await fixture.shelf.run(["events", "--unseen"]).stdout == "No new events.\n")
        #expect(try await fixture.shelf.run(["events"]).stdout.contains("The War of the Worlds: ready to borrow"))
        await fixture.finish()
    }

    @Test func aLoansFeedThatListsALoanTwiceIsOneEvent() async throws {
        let fixture = try await ready()
        await fixture.server.state.updateSwitches { $0.duplicateLoans = true }
        let sync = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let lines = sync.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("The Adventures of Sherlock Holmes: new loan") }.count == 1, "\(sync.stdout)")
        let events = try JSONDecoder.iso.decode(
            [Notice].self, from: Data(try await fixture.shelf.run(["events", "--json"]).stdout.utf8))
        #expect(events.filter { $0.kind == .newLoan }.count == 2)
        await fixture.finish()
    }

    @Test func autoDownloadGetsANewLoansFilesAndNoDownloadGetsNone() async throws {
        let fixture = try await ready()
        let none = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(none.status == 0)
        #expect(audioFiles(try fixture.files(of: "7d3c0002")).isEmpty)

        _ = try await fixture.server.state.borrow(Self.secretGarden, as: "demo")
        let sync = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stderr.isEmpty, "\(sync.stderr)")
        for query in ["7d3c0002", "7d3c000a"] {
            #expect(!audioFiles(try fixture.files(of: query)).isEmpty, "\(query)")
            #expect(try await fixture.shelf.run(["show", query]).stdout.contains("State         Downloaded"))
        }
        let lines = sync.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("The Secret Garden: new loan") })
        #expect(lines.contains { $0.hasPrefix("The Secret Garden: downloaded (") }, "\(sync.stdout)")
        #expect(lines.contains { $0.hasPrefix("The Adventures of Sherlock Holmes: downloaded (") })
        // The ebook on loan is not an audiobook: nothing is tried, nothing fails.
        #expect(!sync.stdout.contains("failed"))
        #expect(try await fixture.shelf.run(["sync", "--quiet"]).stdout.isEmpty)

        // The policy none downloads nothing.
        let set = try await fixture.shelf.run(["library", "set", "demo", "--auto-download", "none"])
        #expect(set.stdout == "demo: sync downloads nothing by itself (shelf download by hand).\n", "\(set.stdout)")
        // The demo's limit is 3 loans: the ebook goes back first.
        _ = try await fixture.server.state.revoke(Self.frankenstein, as: "demo")
        _ = try await fixture.server.state.borrow(Self.warOfTheWorlds, as: "demo")
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(audioFiles(try fixture.files(of: "7d3c000c")).isEmpty)
        let wrong = try await fixture.shelf.run(["library", "set", "demo", "--auto-download", "sometimes"])
        #expect(wrong.status == ShelfExit.usage.rawValue)
        #expect(wrong.stderr.contains("--auto-download is none, loans (or audiobooks) or all, not 'sometimes'"))
        await fixture.finish()
    }

    @Test func anUpdateKeepsTheOldFilesPlayableUntilTheNewOnesAreComplete() async throws {
        let fixture = try await ready()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let directory = try fixture.files(of: "7d3c0002")
        let names = audioFiles(directory)
        #expect(!names.isEmpty)
        let old = try names.map { try Data(contentsOf: directory.appendingPathComponent($0)) }

        // The publisher changes the book: new bytes, served slowly enough (a 16 KB part in about 8 s) that the staged
        // copy is still there when the test looks, however loaded the machine (at 60 KB/s it came and went unseen).
        _ = try await fixture.server.state.touch(id: Self.sherlock)
        await fixture.server.state.setAudioFaults(
            AudioFaults(bytesPerSecond: 2_000, changedParts: Array(1...names.count)), for: Self.sherlock)
        let (process, out, _) = try fixture.shelf.start(["sync", "--quiet"])
        let staging = directory.deletingLastPathComponent().appendingPathComponent(directory.lastPathComponent + ".next")
        let staged = { FileManager.default.fileExists(atPath: staging.path) }
        let sawStaging = try await eventually { staged() || !process.isRunning } && staged()
        if sawStaging {
            // Mid-download the old copy is whole and in place.
            let now = try names.map { try Data(contentsOf: directory.appendingPathComponent($0)) }
            #expect(now == old)
        }
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(sawStaging, "the update was staged beside the old copy")
        #expect(stdout.contains("The Adventures of Sherlock Holmes: updated by the publisher"), "\(stdout)")
        #expect(stdout.contains("The Adventures of Sherlock Holmes: downloaded the update ("), "\(stdout)")
        let new = try audioFiles(directory).map { try Data(contentsOf: directory.appendingPathComponent($0)) }
        #expect(new.count == old.count && new != old)
        #expect(!FileManager.default.fileExists(atPath: staging.path))
        #expect(try await fixture.shelf.run(["show", "7d3c0002"]).stdout.contains("State         Downloaded"))
        await fixture.finish()
    }

    @Test func keepArchivesTheOldestFinishedAndMaxSizeStopsBeforeTheBudget() async throws {
        let fixture = try await ready()
        _ = try await fixture.server.state.borrow(Self.secretGarden, as: "demo")
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(!audioFiles(try fixture.files(of: "7d3c0002")).isEmpty)
        #expect(!audioFiles(try fixture.files(of: "7d3c000a")).isEmpty)
        // Sherlock finished first, then The Secret Garden: keeping one archives Sherlock.
        #expect(try await fixture.shelf.run(["mark", "7d3c0002", "--played"]).status == 0)
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await fixture.shelf.run(["mark", "7d3c000a", "--played"]).status == 0)
        let set = try await fixture.shelf.run(["library", "set", "demo", "--keep", "1", "--max-size", "1k"])
        #expect(set.status == 0, "\(set.stderr)")
        let keep = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(keep.status == 0, "\(keep.stderr)")
        #expect(audioFiles(try fixture.files(of: "7d3c0002")).isEmpty)
        #expect(!audioFiles(try fixture.files(of: "7d3c000a")).isEmpty)

        // A new loan that would go past the 1 KB budget is left out, said once.
        // The demo's limit is 3 loans: the ebook goes back first.
        _ = try await fixture.server.state.revoke(Self.frankenstein, as: "demo")
        _ = try await fixture.server.state.borrow(Self.warOfTheWorlds, as: "demo")
        let budget = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(audioFiles(try fixture.files(of: "7d3c000c")).isEmpty)
        #expect(budget.stdout.contains("The War of the Worlds: not downloaded: it would take demo's downloads past the 1 KB budget"),
                "\(budget.stdout)")
        #expect(try await fixture.shelf.run(["sync", "--quiet"]).stdout.isEmpty)
        await fixture.finish()
    }

    @Test func aLoanPastItsEndIsClearedAtTheNextCommandEvenOffline() async throws {
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, loanDuration: 4))
        try await fixture.server.state.prepareAudio()
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        _ = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        _ = try await fixture.server.state.borrow(Self.secretGarden, as: "demo")
        let sync = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(sync.stdout.contains("The Secret Garden: downloaded ("), "\(sync.stdout)")
        let directory = try fixture.files(of: "7d3c000a")
        #expect(!audioFiles(directory).isEmpty)
        await fixture.server.stop()
        try await Task.sleep(for: .seconds(4.5))
        let list = try await fixture.shelf.run(["loans"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!list.stdout.contains("The Secret Garden"))
        // Signed in all along: an ended loan is no reason to ask.
        #expect(!list.stdout.contains("shelf login"), "\(list.stdout)")
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        let events = try await fixture.shelf.run(["events", "--unseen"])
        #expect(events.stdout.contains("The Secret Garden: the loan expired; its files were removed"), "\(events.stdout)")
        fixture.shelf.cleanUp()
    }

    @Test func aLibraryAnnouncementIsShownOnce() async throws {
        let fixture = try await ready()
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        await fixture.server.state.setAnnouncements([DemoAnnouncement(id: "closed-1", content: "Closed on\nMonday.")])
        let first = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(first.stdout == "Shelf Demo Library announces: Closed on Monday.\n", "\(first.stdout)")
        #expect(try await fixture.shelf.run(["sync", "--quiet", "--no-download"]).stdout.isEmpty)
        await fixture.finish()
    }

    @Test func followsCountNewTitlesAndNewsClearsThem() async throws {
        let fixture = try await ready()
        #expect(try await fixture.shelf.run(["follow", "author", "jane austen"]).stdout == "Following the author jane austen.\n")
        #expect(try await fixture.shelf.run(["follow", "series", "Demo Saga"]).status == 0)
        var title = try #require(await fixture.server.state.title(id: Self.secretGarden))
        title.id = "urn:uuid:7d3c0fff-5a1e-4c6b-9f0e-d0c5e1f00fff"
        title.title = "Lady Susan"
        title.authors = ["Jane Austen"]
        try await fixture.server.state.add(title)
        let sync = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(sync.stdout.contains("Lady Susan: new by Jane Austen"), "\(sync.stdout)")
        let following = try JSONDecoder.iso.decode(
            [Follow].self, from: Data(try await fixture.shelf.run(["following", "--json"]).stdout.utf8))
        #expect(following.first { $0.kind == .author }?.newTitles == 1)
        #expect(try await fixture.shelf.run(["status"]).stdout.contains("jane austen [1 new]"))
        let news = try await fixture.shelf.run(["news"])
        #expect(news.stdout.contains("Lady Susan"))
        #expect(try await fixture.shelf.run(["news"]).stdout == "No news from the authors and series you follow.\n")
        #expect(!(try await fixture.shelf.run(["status"]).stdout.contains("[1 new]")))
        let unfollow = try await fixture.shelf.run(["unfollow", "author", "Nobody"])
        #expect(unfollow.status == ShelfExit.notFound.rawValue)
        await fixture.finish()
    }
}
