import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// The real player while another device moves on: positions pulled while playing, offered and never jumped to.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ListenSyncCLITests {
    private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"

    /// A second device posts a position far ahead while `shelf listen --no-ui` plays: the pull a minute in finds it,
    /// the offer is printed, and the player plays on where it was.
    @Test func anotherDeviceAheadWhilePlayingIsOfferedNotJumpedTo() async throws {
        // Four parts of 40 s: long enough to play past the first pull, a minute in.
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: 40))
        try await fixture.signIn()
        let download = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(download.status == 0, "\(download.stderr)")

        let shelf = fixture.shelf
        async let listening = shelf.run(
            ["listen", "7d3c0002", "--no-ui", "--from", "0:01", "--for", "66s"], environment: ["SDL_AUDIODRIVER": "dummy"])
        // Once the player has saved its first position (it is playing), the other device moves on.
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let edition = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        let waited = Date()
        while try store.listeningState(of: edition).position == nil && Date().timeIntervalSince(waited) < 30 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try await Task.sleep(for: .seconds(1))
        try await fixture.server.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling,
            readingOrderItem: "urn:org.thepalaceproject:readingOrderItem:3", offsetMilliseconds: 20_000,
            device: "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000cc")
        let result = try await listening
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Playing The Adventures of Sherlock Holmes at 0:01 of 2:") == true, "\(lines)")
        #expect(lines.contains("Another device is at 2:20 — press j to jump there"), "\(lines)")
        // It played on from where it was: about 67 s into the book, in part 2, not at the other device's 2:20.
        let state = try store.listeningState(of: edition)
        #expect(state.position?.part == 1, "\(String(describing: state.position))")
        await fixture.finish()
    }
}
