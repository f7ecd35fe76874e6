import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// The listening log and the minutes heard, kept by the real player: counted in the clock's time at any speed, kept
/// through a kill -9, shown by `shelf stats` and `shelf position`, and reported once to the loan's timeTracking link.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ListeningLogCLITests {
    private static let bytesPerSecond = 44_100 * 4

    private func ready() async throws -> CLIFixture {
        try await CLIFixture.withSherlockDownloaded(configuration: DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: 40))
    }

    private func store(_ fixture: CLIFixture) throws -> (Store, Library, EditionRef) {
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let library = try store.library(named: "demo")
        return (store, library, try store.resolveEdition("7d3c0002", in: library))
    }

    /// The seconds of audio the disk device took between the first and the last audible sample.
    private func audibleSeconds(_ file: URL) throws -> Double {
        let samples = try Data(contentsOf: file).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        guard let first = samples.firstIndex(where: { abs(Int($0)) > 200 }),
            let last = samples.lastIndex(where: { abs(Int($0)) > 200 })
        else { return 0 }
        return Double((last - first + 1) * 2) / Double(Self.bytesPerSecond)
    }

    /// Ten seconds at 2× are ten seconds heard (and twenty of the book); `shelf stats` and `shelf position` show
    /// them.
    @Test func timeHeardIsTheClocksAtAnySpeedAndStatsShowIt() async throws {
        let fixture = try await ready()
        let shelf = fixture.shelf
        let listen = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "0:01", "--speed", "2", "--for", "3s"],
                                         environment: ["SDL_AUDIODRIVER": "dummy"])
        #expect(listen.status == 0, "\(listen.stderr)")
        let (store, _, edition) = try store(fixture)
        let session = try #require(try store.listeningSessions(of: edition).first)
        // --for counts what was heard the same way, in the clock's time: 3 s, and one tick more at most.
        #expect(session.heard >= 3 && session.heard < 3.5, "\(session)")
        #expect(session.speed == 2 && session.fromPart == 0 && abs(session.fromSeconds - 1) < 0.01)
        // Of the book, at most twice the heard time (with a tick): the clock, not the book, counted the time heard
        // (a heard time of the book's would be 6 s). How much of the book a loaded machine's underruns held back is
        // the machine's, so there is no lower bound but some progress; `speedTwoHalvesTheTimeAndKeepsThePitch`
        // proves the speed from the samples the device wrote.
        let book = session.toSeconds - session.fromSeconds
        #expect(session.toPart == 0 && book > 0 && book < session.heard * 2 + 0.5, "\(session): \(book) s of the book")

        let stats = try await shelf.run(["stats", "--json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let json = try JSONDecoder.iso.decode(ListeningStats.self, from: Data(stats.stdout.utf8))
        #expect(json.period == .week && json.days.count == 7 && json.streak == 1)
        #expect(abs(json.seconds - session.heard) < 0.001 && json.days.last?.seconds == json.seconds)
        #expect(json.titles.map(\.shortID) == ["7d3c0002"] && json.titles.first?.sessions == 1)
        let text = try await shelf.run(["stats"])
        #expect(text.stdout.contains("The Adventures of Sherlock Holmes") && text.stdout.contains("Streak: 1 day in a row."),
                "\(text.stdout)")
        let position = try await shelf.run(["position", "7d3c0002"])
        #expect(position.stdout.contains("LAST SESSIONS") && position.stdout.contains("2.0×"), "\(position.stdout)")
        await fixture.finish()
    }

    /// Killed with SIGKILL: what was heard up to the last save (2 s) is in the log and waits for the library, which
    /// takes each minute once.
    @Test func aKillLosesAtMostTheLastSaveAndEachMinuteIsReportedOnce() async throws {
        let fixture = try await ready()
        let file = fixture.shelf.home.appendingPathComponent("out.raw")
        let (process, _, _) = try fixture.shelf.start(
            ["listen", "7d3c0002", "--no-ui", "--from", "0:01"],
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": file.path])
        let (store, library, edition) = try store(fixture)
        // Until the log holds 4 s heard, however slow the machine.
        _ = try await eventually { (try store.listeningSessions(of: edition).first?.heard ?? 0) >= 4 }
        kill(process.processIdentifier, SIGKILL)
        try await offloaded { process.waitUntilExit() }
        let heard = try audibleSeconds(file)
        let logged = try #require(try store.listeningSessions(of: edition).first).heard
        #expect(logged <= heard + 0.5 && logged >= heard - 2.5, "logged \(logged) s, heard \(heard) s")

        // The minutes wait for the library: all of them once they are over.
        let configuration = HTTPConfiguration()
        let reporter = try PlaytimeReporter(store: store, home: Home(directory: fixture.shelf.home), library: library,
                                            configuration: configuration)
        let report = reporter.pushPending(now: Date().addingTimeInterval(120))
        #expect(report.failure == nil && report.pending == 0 && report.taken >= 1, "\(report)")
        let entries = await fixture.server.state.playtimeEntries
        #expect(entries.allSatisfy { $0.workID == "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002" && $0.secondsPlayed <= 60 })
        let sent = entries.reduce(0) { $0 + $1.secondsPlayed }
        #expect(abs(Double(sent) - logged) <= Double(entries.count), "sent \(sent) s, logged \(logged) s")
        // Nothing is sent twice: the sync after finds nothing waiting.
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(await fixture.server.state.playtimeEntries.count == entries.count)
        await fixture.finish()
    }
}
