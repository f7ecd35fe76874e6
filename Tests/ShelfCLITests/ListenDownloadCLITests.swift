import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `shelf listen` while the title downloads, and the title's files taken away while it plays: the real binary, the
/// demo library on loopback with its throttling switches, SDL's dummy driver.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ListenDownloadCLITests {
    static let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    static let dummy = ["SDL_AUDIODRIVER": "dummy"]

    /// A signed-in patron with Sherlock on loan in `parts` parts of `seconds` each, nothing downloaded.
    private func ready(parts: Int = 4, seconds: Int = 3) async throws -> CLIFixture {
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, partCount: parts, partSeconds: seconds))
        try await fixture.signIn()
        return fixture
    }

    private func opened(_ fixture: CLIFixture) throws -> (Store, Library, EditionRef) {
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let library = try store.library(named: "demo")
        return (store, library, try store.resolveEdition("7d3c0002", in: library))
    }

    private func listening(_ fixture: CLIFixture) throws -> ListeningState {
        let (store, _, edition) = try opened(fixture)
        return try store.listeningState(of: edition)
    }

    @Test func aLastPartStillComingIsWaitedForInTwentyRuns() async throws {
        let fixture = try await ready()
        let lastPart = await fixture.server.state.partPath(Self.sherlock, 4)
        for run in 1...20 {
            if run > 1 {
                let archived = try await fixture.shelf.run(["archive", "7d3c0002"])
                #expect(archived.status == 0, "run \(run): \(archived.stderr)")
            }
            // The fourth part is held at the library's door until the player says it waits for it: near the end
            // of the third, it must play on into the fourth once it comes, however busy the machine.
            let result = try await fixture.run(
                ["listen", "7d3c0002", "--no-ui", "--from", "8.6", "--for", "1"], environment: Self.dummy,
                holding: lastPart, until: "Buffering: waiting for part 4")
            #expect(result.status == 0, "run \(run): \(result.stderr)")
            #expect(!result.stderr.contains("not on this computer"), "run \(run): \(result.stderr)")
            #expect(result.stdout.contains("Buffering: waiting for part 4"), "run \(run): \(result.stdout)")
            #expect(try listening(fixture).position?.part == 3, "run \(run): \(result.stdout)")
            if result.status != 0 { break }
        }
        await fixture.finish()
    }

    @Test func aListenWhileAnotherShelfDownloadsWaitsForThatShelfsParts() async throws {
        let fixture = try await ready()
        // Part 3 takes about two seconds; part 4 is held at the library's door until the player waits for a part.
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [3], bytesPerSecond: 6_000), for: Self.sherlock)
        let part4 = await fixture.server.state.partPath(Self.sherlock, 4)
        await fixture.server.state.closeGate(for: part4)  // before the other shelf asks for it
        let downloader = try fixture.shelf.start(["download", "7d3c0002", "--quiet"])
        let files = try fixture.files(of: "7d3c0002")
        let begun = try await eventually {
            FileManager.default.fileExists(atPath: files.appendingPathComponent("part-001.mp3").path)
        }
        #expect(begun, "the other shelf did not begin its download")
        // Near the end of the third part, which the other shelf is still fetching, then on into the fourth.
        let result = try await fixture.run(
            ["listen", "7d3c0002", "--no-ui", "--from", "8.6", "--for", "1"], environment: Self.dummy,
            holding: part4, until: "Buffering: waiting for part")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("not on this computer"), "\(result.stderr)")
        #expect(result.stdout.contains("Buffering: waiting for part"), "\(result.stdout)")
        #expect(try listening(fixture).position?.part == 3, "\(result.stdout)")
        let (process, downloadOut, downloadErr) = downloader
        let downloadErrors = try await offloaded {
            _ = downloadOut.fileHandleForReading.readDataToEndOfFile()
            let data = downloadErr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        #expect(process.terminationStatus == 0, "\(downloadErrors)")
        await fixture.finish()
    }

    @Test func resumingAtTheLastPartFetchesItFirst() async throws {
        let fixture = try await ready(parts: 8, seconds: 2)
        // A first download that fetched nothing: the parts are known, none is on disk.
        await fixture.server.state.setAudioFaults(AudioFaults(missingParts: Array(1...8)), for: Self.sherlock)
        let failed = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(failed.status != 0)
        await fixture.server.state.clearSwitches()
        await fixture.server.state.resetStats()
        // Listened up to the last part on this computer before.
        let (store, _, edition) = try opened(fixture)
        let book = try store.audiobook(edition, home: Home(directory: fixture.shelf.home))
        try store.savePosition(
            ListeningPosition(part: 7, seconds: 0.5, readingOrderItem: book.parts[7].readingOrderItem, device: try store.deviceID(),
                              deviceName: nil, at: Date()),
            of: edition, percent: 90, finished: false)
        try await expectLastPartFirst(fixture, [], saying: "Resuming at 0:14.")
        await fixture.finish()
    }

    /// Runs half a second of `shelf listen` with `options` and expects it to say `words` and to have asked for the
    /// last of 8 parts in the first wave: four at a time, the last part, then the book from its start (in book
    /// order, 5 to 8 came last); part 4 waits for one of them to finish.
    private func expectLastPartFirst(_ fixture: CLIFixture, _ options: [String], saying words: String) async throws {
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "0.5"] + options,
                                                 environment: Self.dummy)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(words), "\(result.stdout)")
        let order = await fixture.server.state.stats.partRequestOrder.map { $0.split(separator: "/").last.map(String.init) ?? "" }
        #expect(Set(order.prefix(4)) == ["8", "1", "2", "3"], "\(order)")
        #expect(order.firstIndex(of: "8") ?? 99 < order.firstIndex(of: "4") ?? -1, "\(order)")
    }

    /// A title never downloaded, started in its last part: the parts are known only once the manifest is in, and
    /// the part the session starts in is still in the first wave, not the first four in book order.
    /// (The chapters are the opening credits, then one a part: the 9th starts part 8, at 0:14.)
    @Test(arguments: [(["--from", "0:15"], "0:15"), (["--chapter", "8"], "0:14")])
    func startingInTheLastPartOfATitleNeverDownloadedFetchesItFirst(_ start: [String], at time: String) async throws {
        let fixture = try await ready(parts: 8, seconds: 2)
        await fixture.server.state.resetStats()
        try await expectLastPartFirst(fixture, start, saying: "Playing The Adventures of Sherlock Holmes at \(time)")
        await fixture.finish()
    }

    // MARK: - The title taken away while it plays

    /// A player of Sherlock (four parts of 10 s, downloaded) running in the background, once it holds the title.
    private func playing(_ fixture: CLIFixture) async throws -> (ChildProcess, Pipe, Pipe) {
        let downloaded = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let started = try fixture.shelf.start(["listen", "7d3c0002", "--no-ui"], environment: Self.dummy)
        // It saves a position as soon as it plays, holding the title's lock by then.
        let held = try await eventually { try listening(fixture).position != nil }
        #expect(held, "the player did not start")
        return started
    }

    /// What the player printed and its status, once it ends (killed after `seconds`, failing the test).
    private func ended(_ player: (ChildProcess, Pipe, Pipe), within seconds: Double) async throws -> ShelfRunner.Result {
        let (process, out, err) = player
        let inTime = try await offloaded { () -> Bool in
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            return Date() < deadline
        }
        #expect(inTime, "the player went on playing")
        return try await offloaded {
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ShelfRunner.Result(
                status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: stderr, as: UTF8.self))
        }
    }

    @Test func archiveRefusesTheTitlePlayingUnlessForcedAndThePlayerEndsCleanly() async throws {
        let fixture = try await ready(seconds: 10)
        let player = try await playing(fixture)
        let pid = player.0.processIdentifier
        let refused = try await fixture.shelf.run(["archive", "7d3c0002"])
        #expect(refused.status == ShelfExit.busy.rawValue, "\(refused.stderr)")
        #expect(refused.stderr == "shelf: cannot archive The Adventures of Sherlock Holmes: it is playing now (shelf listen, "
                + "pid \(pid)); quit the player first, or add --force to archive it anyway (the player stops and keeps its "
                + "position)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.files(of: "7d3c0002").path).count >= 4)
        #expect(player.0.isRunning)

        let forced = try await fixture.shelf.run(["archive", "7d3c0002", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let result = try await ended(player, within: 5)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("shelf:") }
        #expect(lines == ["shelf: the files of The Adventures of Sherlock Holmes were removed (archived or returned) — "
                          + "the position is saved"], "\(result.stderr)")
        #expect(result.stdout.contains("Position saved."), "\(result.stdout)")
        let saved = try listening(fixture).position
        #expect((saved?.seconds ?? 0) > 0 || (saved?.part ?? 0) > 0, "\(String(describing: saved))")
        await fixture.finish()
    }

    @Test func returnRefusesTheTitlePlayingUnlessForcedAndThePlayerEndsCleanly() async throws {
        let fixture = try await ready(seconds: 10)
        let player = try await playing(fixture)
        let refused = try await fixture.shelf.run(["return", "7d3c0002", "--yes"])
        #expect(refused.status == ShelfExit.busy.rawValue, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("shelf: cannot return The Adventures of Sherlock Holmes: it is playing now (shelf listen, pid "),
                "\(refused.stderr)")
        #expect(player.0.isRunning)
        let loans = try await fixture.shelf.run(["loans"])
        #expect(loans.stdout.contains("Sherlock"), "\(loans.stdout)")

        let forced = try await fixture.shelf.run(["return", "7d3c0002", "--yes", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout == "Returned The Adventures of Sherlock Holmes.\n")
        let result = try await ended(player, within: 5)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("shelf: the files of The Adventures of Sherlock Holmes were removed (archived or returned) — "
                                       + "the position is saved"), "\(result.stderr)")
        #expect(try listening(fixture).position != nil)
        await fixture.finish()
    }
}
