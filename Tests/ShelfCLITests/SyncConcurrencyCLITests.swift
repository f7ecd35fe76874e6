import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// A sync reads every page before it takes the catalog's write lock, and listening positions live where that lock
/// never reaches: the patron's commands and the player never wait for a slow library.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SyncConcurrencyCLITests {
    @Test func aSlowSyncOfAHundredThousandTitlesNeverHoldsUpThePatron() async throws {
        var configuration = DemoConfiguration(pageSize: 5_000, generatedEntries: 100_000, partCount: 4)
        configuration.keepsBuiltInTitles = true
        let fixture = try await CLIFixture(configuration: configuration)
        try await fixture.server.state.prepareAudio()
        let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        #expect(login.status == 0, "\(login.stderr)")
        let first = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try await fixture.shelf.run(["borrow", "7d3c000a"]).status == 0)
        for id in ["7d3c0002", "7d3c000a"] {
            let downloaded = try await fixture.shelf.run(["download", id])
            #expect(downloaded.status == 0, "\(downloaded.stderr)")
        }

        // Every catalog page and the loans feed at 400 ms each, some titles changed: seconds inside one sync.
        for index in 0..<50 {
            try await fixture.server.state.touch(id: String(format: "urn:uuid:5eed0000-0000-4000-8000-%012x", index * 2_000 + 1))
        }
        await fixture.server.state.setDelay(milliseconds: 400)
        let pagesBefore = await fixture.server.state.requestCount("/crawlable")
        let (sync, _, syncErrors) = try fixture.shelf.start(["sync", "--quiet", "--no-download"])
        let syncFinished = Background {
            let errors = syncErrors.fileHandleForReading.readDataToEndOfFile()
            sync.waitUntilExit()
            return (sync.terminationStatus, String(decoding: errors, as: UTF8.self))
        }
        // Under way once the library has answered a page of it; then its next page is held at the library's door
        // until the test is done, so the sync is still running through all that follows, however slow the
        // machine. Had it held the catalog's write lock, each command below would wait for it and fail after 5 s.
        let clock = ContinuousClock()
        #expect(try await eventually { await fixture.server.state.requestCount("/crawlable") > pagesBefore + 1 })
        await fixture.server.state.closeGate(for: "/crawlable")
        await fixture.server.state.untilHeld(1)

        // A player saving as it plays, in a process of its own.
        let out = fixture.shelf.home.appendingPathComponent("out.raw")
        let (player, playerOut, playerErr) = try fixture.shelf.start(
            ["listen", "7d3c0002", "--no-ui", "--from", "0:01", "--for", "2s"],
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": out.path])
        let played = Background {
            let output = playerOut.fileHandleForReading.readDataToEndOfFile()
            let errors = playerErr.fileHandleForReading.readDataToEndOfFile()
            player.waitUntilExit()
            return (player.terminationStatus, String(decoding: output + errors, as: UTF8.self))
        }

        // Writes of the catalog and of positions from this process, each timed: none waits.
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home, busyTimeout: 1)
        let edition = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        let device = try store.deviceID()
        var slowest = Duration.zero
        for step in 0..<10 {
            let position = ListeningPosition(
                part: 1, seconds: Double(step), readingOrderItem: "part-2.mp3", device: device, deviceName: nil, at: Date())
            slowest = max(slowest, try clock.measure { try store.savePosition(position, of: edition, percent: 30, finished: false) })
            slowest = max(slowest, try clock.measure { try store.saveSpeed(step.isMultiple(of: 2) ? 1.25 : 1, of: edition) })
            slowest = max(slowest, try clock.measure {
                try store.write { db in try db.execute(sql: "UPDATE library SET notify = notify") }
            })
        }
        #expect(slowest < .seconds(1), "the slowest write took \(slowest)")

        // The patron's commands, each in a process of its own, while the sync waits for its page.
        var commands: [(String, Duration)] = []
        for arguments in [
            ["return", "7d3c0003", "--yes"], ["borrow", "7d3c0010"], ["follow", "author", "Mary Shelley"],
            ["archive", "7d3c000a"], ["library", "set", "demo", "--keep", "5"], ["mark", "7d3c0001", "--played"],
        ] {
            let started = clock.now
            let result = try await fixture.shelf.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            commands.append((arguments.joined(separator: " "), clock.now - started))
        }
        // A process starting and talking to the library takes its time on a loaded machine; waiting for the sync's
        // lock would have taken the store's whole 5 s patience and failed.
        for (command, took) in commands { #expect(took < .seconds(5), "shelf \(command) took \(took)") }

        let (playerStatus, playerOutput) = try await offloaded { try played.value() }
        #expect(playerStatus == 0, "\(playerOutput)")
        #expect(playerOutput.contains("Position saved."), "\(playerOutput)")
        // Everything above happened while the sync was still running, waiting for its page.
        #expect(!syncFinished.isDone, "the sync ended before the patron's commands: the test did not overlap them")
        #expect(await fixture.server.state.heldRequests >= 1)
        await fixture.server.state.setDelay(milliseconds: 0)
        await fixture.server.state.openGate()

        let (syncStatus, syncOutput) = try await offloaded { try syncFinished.value() }
        #expect(syncStatus == 0, "\(syncOutput)")
        // The sync applied what it read without undoing a word of the patron's.
        let library = try store.library(named: "demo")
        #expect(library.keepFinished == 5)
        let loans = try await fixture.shelf.run(["loans"])
        #expect(!loans.stdout.contains("Frankenstein") && loans.stdout.contains("Jane Eyre"), "\(loans.stdout)")
        let garden = try store.resolveEdition("7d3c000a", in: library)
        #expect(try store.archivedBy(garden) == .patron && store.summary(of: garden).state == .new)
        #expect(try await fixture.shelf.run(["following"]).stdout.contains("Mary Shelley"))
        let state = try store.listeningState(of: edition)
        #expect(state.consumption == .inProgress && state.position != nil)
        let marked = try store.listeningState(of: try store.resolveEdition("7d3c0001", in: library))
        #expect(marked.consumption == .finished)
        let list = try await fixture.shelf.run(["status", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        await fixture.finish()
    }
}
