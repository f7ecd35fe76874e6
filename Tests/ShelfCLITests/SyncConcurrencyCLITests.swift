import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// A sync of a large, slow catalog holds the catalog's write lock while it applies it; listening positions live
/// where that lock never reaches, so the player and `shelf mark` save at once while it runs.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SyncConcurrencyCLITests {
    @Test func aSlowSyncNeverHoldsUpASavedPosition() async throws {
        var configuration = DemoConfiguration(pageSize: 1_000, generatedEntries: 20_000, partCount: 4)
        configuration.keepsBuiltInTitles = true
        let fixture = try await CLIFixture(configuration: configuration)
        try await fixture.signIn()
        let downloaded = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")

        // 20 catalog pages and the loans feed at 400 ms each: several seconds inside one sync.
        await fixture.server.state.setDelay(milliseconds: 400)
        let pagesBefore = await fixture.server.state.requestCount("/crawlable")
        let (sync, _, syncErrors) = try fixture.shelf.start(["sync", "--quiet"])
        let syncFinished = Background {
            let errors = syncErrors.fileHandleForReading.readDataToEndOfFile()
            sync.waitUntilExit()
            return (sync.terminationStatus, String(decoding: errors, as: UTF8.self))
        }
        // Under way once the library has answered a page of it; then its next page is held at the library's door
        // until the test is done, so the sync is still running (inside its catalog transaction) through all that
        // follows, however slow the machine.
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

        // Saves from this process, each timed.
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        let edition = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        let device = try store.deviceID()
        var slowest = Duration.zero
        for step in 0..<10 {
            let position = ListeningPosition(
                part: 1, seconds: Double(step), readingOrderItem: "part-2.mp3", device: device, deviceName: nil, at: Date())
            slowest = max(slowest, try clock.measure { try store.savePosition(position, of: edition, percent: 30, finished: false) })
            slowest = max(slowest, try clock.measure { try store.saveSpeed(step.isMultiple(of: 2) ? 1.25 : 1, of: edition) })
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(slowest < .milliseconds(100), "the slowest save took \(slowest)")
        // Meanwhile the sync holds the catalog's write lock: a catalog write that will not wait gives up.
        let impatient = try Store(home: home, busyTimeout: 0.05)
        #expect(throws: StoreError.locked(path: home.database.path)) {
            try impatient.write { db in try db.execute(sql: "UPDATE library SET name = name") }
        }

        // `shelf mark` in another process saves at once too (it used to wait 5 s and fail with exit 79).
        let markStarted = clock.now
        let mark = try await fixture.shelf.run(["mark", "7d3c0001", "--played"])
        #expect(mark.status == 0, "\(mark.stderr)")
        #expect(clock.now - markStarted < .seconds(2), "shelf mark took \(clock.now - markStarted)")

        let (playerStatus, playerOutput) = try await offloaded { try played.value() }
        #expect(playerStatus == 0, "\(playerOutput)")
        #expect(playerOutput.contains("Position saved."), "\(playerOutput)")
        // Everything above happened while the sync was still running, waiting for its page.
        #expect(!syncFinished.isDone, "the sync ended before the saves: the test did not overlap them")
        // (More than one when a very slow machine outlasted the client's 30 s stall limit and the sync asked again.)
        #expect(await fixture.server.state.heldRequests >= 1)
        await fixture.server.state.openGate()

        let (syncStatus, syncOutput) = try await offloaded { try syncFinished.value() }
        #expect(syncStatus == 0, "\(syncOutput)")
        let state = try store.listeningState(of: edition)
        #expect(state.consumption == .inProgress && state.position != nil)
        let marked = try store.listeningState(of: try store.resolveEdition("7d3c0001", in: try store.library(named: "demo")))
        #expect(marked.consumption == .finished)
        await fixture.finish()
    }
}
