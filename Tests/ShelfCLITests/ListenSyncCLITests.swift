import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// The real player while another device moves on: positions pulled while playing, offered and never jumped to, and
/// never overwritten on the library until the patron chooses.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ListenSyncCLITests {
    private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    private let phone = "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000cc"
    private let dummy = ["SDL_AUDIODRIVER": "dummy"]

    /// Four parts of 40 s, signed in, Sherlock downloaded.
    private func ready() async throws -> CLIFixture {
        try await CLIFixture.withSherlockDownloaded(configuration: DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: 40))
    }

    private func store(_ fixture: CLIFixture) throws -> (Store, EditionRef) {
        let store = try Store(home: Home(directory: fixture.shelf.home))
        return (store, try store.resolveEdition("7d3c0002", in: try store.library(named: "demo")))
    }

    /// The place the library gives any device now: its newest idling annotation of Sherlock.
    private func libraryPlace(_ fixture: CLIFixture) async -> DemoAnnotation? {
        await fixture.server.state.annotations(for: "demo", workID: sherlock).last { $0.motivation == .idling }
    }

    /// The phone posts a place: by default 2:20 (20 s into part 4).
    private func phonePosts(_ fixture: CLIFixture, name: String? = nil, part: Int = 3, seconds: Int = 20) async throws {
        try await fixture.server.state.postAnnotation(
            username: "demo", workID: sherlock, motivation: .idling,
            readingOrderItem: "urn:org.thepalaceproject:readingOrderItem:\(part)", offsetMilliseconds: seconds * 1000,
            device: phone, deviceName: name)
    }

    /// The audit's trial: a phone posts 2:20 while `shelf listen --no-ui` plays at 0:0x. The pull a minute in offers
    /// it, the player plays on where it was, and the library still holds the phone's place when the player quits;
    /// the next start offers it again, and following the advice printed moves this computer there.
    @Test func anotherDevicesNewerPlaceWhilePlayingIsOfferedAndNeverOverwritten() async throws {
        let fixture = try await ready()
        let shelf = fixture.shelf
        async let listening = shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--from", "0:01", "--for", "66s"], environment: dummy)
        // Once the player has saved its first position (it is playing), the other device moves on.
        let (store, edition) = try store(fixture)
        _ = try await eventually { try store.listeningState(of: edition).position != nil }
        try await Task.sleep(for: .seconds(1))
        try await phonePosts(fixture)
        let result = try await listening
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Playing The Adventures of Sherlock Holmes at 0:01 of 2:") == true, "\(lines)")
        let advice = "— `shelf position 7d3c0002 --take-other` goes there, `--keep-here` stays here"
        #expect(lines.contains { $0.hasPrefix("Another device was at 2:20, ") && $0.hasSuffix(advice) }, "\(lines)")
        // It played on from where it was: about 67 s into the book, in part 2, not at the other device's 2:20.
        #expect(try store.listeningState(of: edition).position?.part == 1)
        // The library still holds the phone's place: this computer's pushes were held back.
        var place = await libraryPlace(fixture)
        #expect(place?.device == phone && place?.offsetMilliseconds == 20_000, "\(String(describing: place))")

        // The next start offers it again, and resumes here.
        let next = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--for", "1s"], environment: dummy)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout.hasPrefix("Resuming at 1:0"), "\(next.stdout)")
        #expect(next.stdout.split(separator: "\n").contains { $0.hasPrefix("Another device was at 2:20, ") && $0.hasSuffix(advice) },
                "\(next.stdout)")
        place = await libraryPlace(fixture)
        #expect(place?.device == phone, "\(String(describing: place))")

        // `shelf position` shows the offer with the same advice; following it goes there.
        let report = try await shelf.run(["position", "7d3c0002"])
        #expect(report.stdout.contains("`shelf position 7d3c0002 --take-other` goes there"), "\(report.stdout)")
        let take = try await shelf.run(["position", "7d3c0002", "--take-other"])
        #expect(take.status == 0 && take.stderr.isEmpty, "\(take.stderr)")
        #expect(take.stdout.hasPrefix("Took the place the other device saved."), "\(take.stdout)")
        place = await libraryPlace(fixture)
        #expect(place?.device == (try store.deviceID()) && place?.offsetMilliseconds == 20_000, "\(String(describing: place))")
        let resumed = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--for", "1s"], environment: dummy)
        #expect(resumed.stdout.hasPrefix("Resuming at 2:20."), "\(resumed.stdout)")
        #expect(!resumed.stdout.contains("Another device"), "\(resumed.stdout)")
        await fixture.finish()
    }

    /// This computer listened after its last push while the phone, named, moved on: `shelf sync` does not push over
    /// the phone's place; the full-screen player offers it by name, and `j` goes there; a later place of the phone's
    /// is offered again, and `x` stays here. Then the sync pushes what the patron chose.
    @Test func theFullScreenPlayerAsksAndJOrXAnswers() async throws {
        let fixture = try await ready()
        let shelf = fixture.shelf
        _ = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--from", "0:05", "--for", "1s"], environment: dummy)
        _ = try await shelf.run(["sync", "--quiet", "--no-download"])
        let (store, edition) = try store(fixture)
        let ours = try store.deviceID()
        #expect(await libraryPlace(fixture)?.device == ours)
        try await Task.sleep(for: .seconds(1))
        try await phonePosts(fixture, name: "Pixel 7")
        try await Task.sleep(for: .seconds(1))
        _ = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--from", "0:10", "--for", "1s"], environment: dummy)
        let sync = try await shelf.run(["sync", "--no-download"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(await libraryPlace(fixture)?.device == phone)

        let tmux = Tmux()
        defer { tmux.kill() }
        let home = shelf.home.path
        let command = "env SDL_AUDIODRIVER=dummy \(ShelfRunner.executable.path) listen 7d3c0002 --home \(home); "
            + "echo \"EXIT=$?\" > \(home)/exit-status"
        try await offloaded { try tmux.start(command) }
        var screen = try await offloaded { try tmux.waitFor("Another device (Pixel 7) was at 2:20, ") }
        #expect(screen.contains("press j to go there, x to stay here"), "\(screen)")
        screen = try await tmux.press("j", until: "Went to 2:20, where Pixel 7 was.")
        #expect(screen.contains("Went to 2:20, where Pixel 7 was."), "\(screen)")
        _ = try await offloaded { try tmux.keys("q") }
        #expect(try await fixture.exitStatus().hasPrefix("EXIT=0"))
        _ = try await shelf.run(["sync", "--quiet", "--no-download"])
        var place = await libraryPlace(fixture)
        #expect(place?.device == ours && place?.readingOrderItem.hasSuffix("4.mp3") == true, "\(String(describing: place))")

        // The phone goes back to 1:20 while this computer plays on: offered again; `x` keeps this computer's place.
        try await Task.sleep(for: .seconds(1))
        try await phonePosts(fixture, name: "Pixel 7", part: 2, seconds: 0)
        try await Task.sleep(for: .seconds(1))
        _ = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--from", "2:25", "--for", "1s"], environment: dummy)
        _ = try await shelf.run(["sync", "--quiet", "--no-download"])
        #expect(await libraryPlace(fixture)?.device == phone)
        try FileManager.default.removeItem(atPath: "\(home)/exit-status")
        let tmux2 = Tmux()
        defer { tmux2.kill() }
        try await offloaded { try tmux2.start(command) }
        screen = try await offloaded { try tmux2.waitFor("Another device (Pixel 7) was at 1:20, ") }
        #expect(screen.contains("press j to go there, x to stay here"), "\(screen)")
        screen = try await tmux2.press("x", until: "Staying here")
        #expect(screen.contains("Staying here: the library gets this computer's place."), "\(screen)")
        _ = try await offloaded { try tmux2.keys("q") }
        #expect(try await fixture.exitStatus().hasPrefix("EXIT=0"))
        _ = try await shelf.run(["sync", "--quiet", "--no-download"])
        place = await libraryPlace(fixture)
        #expect(place?.device == ours && place?.readingOrderItem.hasSuffix("4.mp3") == true, "\(String(describing: place))")
        #expect(try store.openOffer(of: edition) == nil)
        await fixture.finish()
    }

    /// The no-UI player's advice, followed: `shelf position --keep-here` pushes this computer's place over the phone's.
    @Test func keepHereFromTheCommandLinePushesThisComputersPlace() async throws {
        let fixture = try await ready()
        let shelf = fixture.shelf
        _ = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--from", "0:05", "--for", "1s"], environment: dummy)
        _ = try await shelf.run(["sync", "--quiet", "--no-download"])
        try await Task.sleep(for: .seconds(1))
        try await phonePosts(fixture)
        try await Task.sleep(for: .seconds(1))
        _ = try await shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--from", "0:10", "--for", "1s"], environment: dummy)
        // The sync (cron's too) says so once, with what to run.
        let sync = try await shelf.run(["sync", "--no-download"])
        #expect(sync.stdout.contains("another device saved a newer place in The Adventures of Sherlock Holmes (2:20); "
                                     + "this computer's is not pushed over it until you choose: `shelf position 7d3c0002 "
                                     + "--take-other` goes there, `--keep-here` keeps this computer's"), "\(sync.stdout)")
        let again = try await shelf.run(["sync", "--no-download"])
        #expect(!again.stdout.contains("newer place"), "\(again.stdout)")
        #expect(await libraryPlace(fixture)?.device == phone)
        let keep = try await shelf.run(["position", "7d3c0002", "--keep-here"])
        #expect(keep.status == 0 && keep.stderr.isEmpty, "\(keep.stderr)")
        #expect(keep.stdout.hasPrefix("Kept this computer's place."), "\(keep.stdout)")
        let (store, _) = try store(fixture)
        let place = await libraryPlace(fixture)
        #expect(place?.device == (try store.deviceID()) && place?.readingOrderItem.hasSuffix("1.mp3") == true,
                "\(String(describing: place))")
        // Answered once: asking again says there is nothing to answer.
        let answered = try await shelf.run(["position", "7d3c0002", "--keep-here"])
        #expect(answered.stdout.hasPrefix("No other device's place waits for an answer."), "\(answered.stdout)")
        await fixture.finish()
    }
}
