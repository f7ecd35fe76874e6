import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// `shelf library set NAME --sync-positions on|off`, and the library's patron profile beside it.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SyncPositionsSwitchCLITests {
    private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    private let dummy = ["SDL_AUDIODRIVER": "dummy"]

    private func ready() async throws -> CLIFixture {
        try await CLIFixture.withSherlockDownloaded(configuration: DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: 40))
    }

    private func annotations(_ fixture: CLIFixture) async -> [DemoAnnotation] {
        await fixture.server.state.annotations(for: "demo", workID: sherlock)
    }

    /// Off: the player and the sync neither read nor send; the position waits here, and is sent once it is on.
    @Test func offKeepsPositionsHereAndOnSendsThem() async throws {
        let fixture = try await ready()
        let shelf = fixture.shelf
        let off = try await shelf.run(["library", "set", "demo", "--sync-positions", "off"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(off.stdout == "demo: positions and bookmarks are no longer synced: shelf keeps them on this computer and "
                + "sends them if this is turned on again; the library keeps the place and bookmarks it last had from your "
                + "devices.\n", "\(off.stdout)")
        let listen = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "0:05", "--for", "1s"], environment: dummy)
        #expect(listen.status == 0, "\(listen.stderr)")
        let sync = try await shelf.run(["sync", "--no-download"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(await annotations(fixture).isEmpty)
        let position = try await shelf.run(["position", "7d3c0002"])
        #expect(position.stdout.contains("Showing the positions stored here only (positions are not synced with demo; shelf "
                                         + "keeps them on this computer, and `shelf library set demo --sync-positions on` "
                                         + "syncs them)."), "\(position.stdout)")
        // Following the advice: on, and the next sync sends what waited.
        let on = try await shelf.run(["library", "set", "demo", "--sync-positions", "on"])
        #expect(on.status == 0 && on.stdout == "demo: positions and bookmarks sync with the library.\n", "\(on.stdout)\(on.stderr)")
        _ = try await shelf.run(["sync", "--quiet", "--no-download"])
        let sent = await annotations(fixture)
        #expect(sent.contains { $0.motivation == .idling && $0.readingOrderItem.hasSuffix("1.mp3") }, "\(sent)")
        await fixture.finish()
    }

    /// The library's patron profile says not to keep positions: the sync says so once and sends nothing; following
    /// its advice opts in at the library and sends what waited.
    @Test func aProfileThatSaysNoIsHonouredAndOnOptsIn() async throws {
        let fixture = try await ready()
        let shelf = fixture.shelf
        await fixture.server.state.setSynchronizeAnnotations(false, for: "demo")
        _ = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "0:05", "--for", "1s"], environment: dummy)
        let sync = try await shelf.run(["sync", "--no-download"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let advice = "demo: your library account is set not to keep reading positions, so shelf keeps them on this "
            + "computer only; `shelf library set demo --sync-positions on` syncs them again (and tells the library)"
        #expect(sync.stdout.contains(advice), "\(sync.stdout)")
        // Told once; and the next sync sends nothing either.
        let again = try await shelf.run(["sync", "--no-download"])
        #expect(!again.stdout.contains("set not to keep reading positions"), "\(again.stdout)")
        #expect(await annotations(fixture).isEmpty)
        let position = try await shelf.run(["position", "7d3c0002"])
        #expect(position.stdout.contains("(your library account is set not to keep them)"), "\(position.stdout)")

        let on = try await shelf.run(["library", "set", "demo", "--sync-positions", "on"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout == "demo: positions and bookmarks sync with the library; your library account now keeps them too.\n",
                "\(on.stdout)")
        #expect(await fixture.server.state.synchronizesAnnotations("demo") == true)
        _ = try await shelf.run(["sync", "--quiet", "--no-download"])
        let sent = await annotations(fixture)
        #expect(sent.contains { $0.motivation == .idling }, "\(sent)")
        await fixture.finish()
    }
}
