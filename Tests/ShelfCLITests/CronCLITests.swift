import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// The unattended life end to end: `shelf sync --quiet` as cron runs it, three times, while the library changes.
@Suite(.serialized, .timeLimit(.minutes(5))) struct CronCLITests {
    static let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    static let secretGarden = "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a"
    static let warOfTheWorlds = "urn:uuid:7d3c000c-5a1e-4c6b-9f0e-d0c5e1f0000c"

    /// The audio files of a title, by name, with their bytes.
    private func audio(_ directory: URL) throws -> [String: Data] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".mp3") }
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: directory.appendingPathComponent($0))) })
    }

    private func lines(_ output: String) -> [String] { output.split(separator: "\n").map(String.init) }

    @Test func threeCronRunsWhileTheLibraryChangesTellEachEventOnceAndKeepTheRightFiles() async throws {
        let fixture = try await CLIFixture()
        let state = fixture.server.state
        try await state.prepareAudio()
        // Someone else has the only copy of The War of the Worlds; the patron waits for it.
        _ = try await state.borrow(Self.warOfTheWorlds, as: "other")
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        #expect(login.status == 0, "\(login.stderr)")
        let reserve = try await fixture.shelf.run(["reserve", "7d3c000c", "--quiet"])
        #expect(reserve.status == 0, "\(reserve.stdout)\(reserve.stderr)")
        var told: [String] = []

        // Run 1: the loan the patron has is downloaded by itself and told once.
        let first = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        told += lines(first.stdout)
        #expect(told.contains { $0.hasPrefix("The Adventures of Sherlock Holmes: new loan, due ") }, "\(first.stdout)")
        #expect(told.contains { $0.hasPrefix("The Adventures of Sherlock Holmes: downloaded (") }, "\(first.stdout)")
        let sherlock = try fixture.files(of: "7d3c0002")
        let old = try audio(sherlock)
        #expect(!old.isEmpty)
        #expect(try audio(fixture.files(of: "7d3c000a")).isEmpty)

        // Between runs: a loan arrives, the hold becomes ready, and a catalog page answers 503 twice.
        _ = try await state.borrow(Self.secretGarden, as: "demo")
        try await state.revoke(Self.warOfTheWorlds, as: "other")
        await state.setFaults(PageFaults(status: 503, statusTimes: 2, retryAfter: "1"), page: 2)
        let pageTwo = await state.requestCount("/crawlable?page=2")

        // Run 2: the 503s are retried without a word; the new loan is downloaded; each news told once.
        let second = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
        #expect(await state.requestCount("/crawlable?page=2") - pageTwo >= 3, "two 503s, then the page")
        let secondLines = lines(second.stdout)
        #expect(secondLines.contains { $0.hasPrefix("The Secret Garden: new loan, due ") }, "\(second.stdout)")
        #expect(secondLines.contains { $0.hasPrefix("The Secret Garden: downloaded (") }, "\(second.stdout)")
        #expect(secondLines.contains { $0.hasPrefix("The War of the Worlds: ready to borrow until ") }, "\(second.stdout)")
        #expect(!second.stdout.contains("Sherlock"), "told by the run before")
        told += secondLines
        let garden = try audio(fixture.files(of: "7d3c000a"))
        #expect(!garden.isEmpty)
        #expect(try audio(sherlock) == old, "a title downloaded before is left alone")

        // Between runs: the publisher changes Sherlock Holmes; the new parts come slowly.
        _ = try await state.touch(id: Self.sherlock)
        // Slowly enough (a 16 KB part in about 8 s) that the staged copy is still there when the test looks.
        await state.setAudioFaults(AudioFaults(bytesPerSecond: 2_000, changedParts: Array(1...old.count)), for: Self.sherlock)

        // Run 3: the update is fetched beside the old copy, which stays whole until the new one is complete.
        let (process, out, err) = try fixture.shelf.start(["sync", "--quiet"])
        let staging = sherlock.deletingLastPathComponent().appendingPathComponent(sherlock.lastPathComponent + ".next")
        // Watched for as long as the sync runs: on a loaded machine the catalog part of the sync alone has outlasted
        // a fixed 30 s watch.
        let staged = { FileManager.default.fileExists(atPath: staging.path) }
        let sawStaging = try await eventually { staged() || !process.isRunning } && staged()
        if sawStaging { #expect(try audio(sherlock) == old, "the old files are whole while the update downloads") }
        let third = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let thirdErrors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && thirdErrors.isEmpty, "\(thirdErrors)")
        #expect(sawStaging, "the update was staged beside the old copy")
        let thirdLines = lines(third)
        #expect(thirdLines.contains { $0.hasPrefix("The Adventures of Sherlock Holmes: updated by the publisher") }, "\(third)")
        #expect(thirdLines.contains { $0.hasPrefix("The Adventures of Sherlock Holmes: downloaded the update (") }, "\(third)")
        told += thirdLines
        let new = try audio(sherlock)
        #expect(Set(new.keys) == Set(old.keys) && new != old, "the new files replaced the old ones")
        #expect(!FileManager.default.fileExists(atPath: staging.path))
        #expect(try audio(fixture.files(of: "7d3c000a")) == garden)

        // Each event was printed exactly once; a fourth run has nothing to tell.
        #expect(Set(told).count == told.count, "\(told)")
        let fourth = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(fourth.status == 0 && fourth.stdout.isEmpty && fourth.stderr.isEmpty, "\(fourth.stdout)\(fourth.stderr)")
        // The log holds them all, each once.
        let events = try JSONDecoder.iso.decode([Notice].self, from: Data(try await fixture.shelf.run(["events", "--json"]).stdout.utf8))
        #expect(events.filter { $0.kind == .holdReady }.count == 1)
        #expect(events.filter { $0.kind == .updated }.count == 1)
        #expect(events.filter { $0.kind == .downloaded }.count == 3)
        await fixture.finish()
    }
}
