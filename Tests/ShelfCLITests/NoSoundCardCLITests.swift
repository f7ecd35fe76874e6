import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// `shelf listen` on a computer with no sound card at all (this test machine): ALSA, which SDL loads itself, would
/// print its own errors ("ALSA lib confmisc.c:… cannot find card '0'") before shelf's one line.
@Suite(.timeLimit(.minutes(5))) struct NoSoundCardCLITests {
    /// Whether ALSA has no card here: /proc/asound lists none.
    static var noSoundCard: Bool {
        let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        return !cards.contains("]:")
    }

    @Test(.enabled(if: NoSoundCardCLITests.noSoundCard, "this computer has a sound card: ALSA would open it"))
    func alsaWithoutACardIsShelfsOneLineAndItsStatus() async throws {
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, partCount: 4))
        try await fixture.signIn()
        #expect(try await fixture.shelf.run(["download", "7d3c0002"]).status == 0)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui"], environment: ["SDL_AUDIODRIVER": "alsa"])
        #expect(result.status == ShelfExit.audioDevice.rawValue, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("shelf: no audio device") == true, "\(result.stderr)")
        await fixture.finish()
    }
}
