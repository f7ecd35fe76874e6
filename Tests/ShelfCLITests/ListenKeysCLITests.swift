import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// The full-screen player's window and job control, typed at through tmux: the real binary, the demo library on
/// loopback, SDL's disk driver.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ListenKeysCLITests {
    /// A signed-in patron with Sherlock downloaded: four parts of 10 s.
    private func ready() async throws -> CLIFixture {
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: 10))
        try await fixture.signIn()
        let result = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(result.status == 0, "\(result.stderr)")
        return fixture
    }

    private func listen(_ fixture: CLIFixture, _ arguments: String) -> String {
        let home = fixture.shelf.home.path
        return "env SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE=\(home)/tmux.raw \(ShelfRunner.executable.path) listen 7d3c0002 --rewind off "
            + "--home \(home) \(arguments); echo \"EXIT=$?\" > \(home)/exit-status"
    }

    private func position(_ fixture: CLIFixture) throws -> ListeningPosition? {
        let store = try Store(home: Home(directory: fixture.shelf.home))
        return try store.listeningState(of: try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))).position
    }

    /// A screen that fills the window to its last row keeps its first: the title at 40×10, and the help's heading
    /// at 60×20, where the help turns pages.
    @Test func aFullWindowKeepsItsFirstLine() async throws {
        let fixture = try await ready()
        let tmux = Tmux()
        defer { tmux.kill() }
        try await offloaded { try tmux.start(listen(fixture, "--from 0:01"), columns: 40, rows: 10) }
        let screen = try await offloaded { try tmux.waitFor("q quit") }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.contains("The Adventures of Sherlock") == true, "\(screen)")
        try await offloaded { try tmux.run(["resize-window", "-t", "0", "-x", "60", "-y", "20"]) }
        let help = try await tmux.press("?", until: "pages")
        #expect(help.split(separator: "\n").first?.contains("Keys 1/") == true, "\(help)")
        let second = try await tmux.press("Down", until: "Keys 2/")
        #expect(second.contains("Ctrl-Z") && second.contains("quit (the position is saved)"), "\(second)")
        _ = try await tmux.press("Escape", until: "▶ playing")
        try await offloaded { try tmux.keys("q") }
        #expect(try await fixture.exitStatus() == "EXIT=0\n")
        await fixture.finish()
    }

    @Test func at80x24TheHintsShowHelpAndQuit() async throws {
        let fixture = try await ready()
        let tmux = Tmux()
        defer { tmux.kill() }
        let command = listen(fixture, "--from 0:01 --skip 10")
        try await offloaded { try tmux.start(command, columns: 80, rows: 24) }
        let screen = try await offloaded { try tmux.waitFor("q quit") }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains { $0.hasSuffix("? help · q quit") }, "\(screen)")
        #expect(screen.contains("←/→ 10 s") && screen.contains("▶ playing"), "\(screen)")
        // Shrunk to 20×5 while playing: it keeps drawing, cut to fit, and still takes keys.
        try await offloaded { try tmux.run(["resize-window", "-t", "0", "-x", "20", "-y", "5"]) }
        let small = try await tmux.press("Space", until: "❚❚ paused")
        #expect(small.contains("❚❚ paused"), "\(small)")
        #expect(small.split(separator: "\n").count <= 5, "\(small)")
        try await offloaded { try tmux.run(["resize-window", "-t", "0", "-x", "80", "-y", "24"]) }
        let back = try await tmux.press("Space", until: "▶ playing")
        #expect(back.contains("? help · q quit") && back.contains("▶ playing"), "\(back)")
        try await offloaded { try tmux.keys("q") }
        #expect(try await fixture.exitStatus() == "EXIT=0\n")
        // --skip is kept: the next session skips 10 s without being told.
        let again = Tmux()
        defer { again.kill() }
        try? FileManager.default.removeItem(at: fixture.shelf.home.appendingPathComponent("exit-status"))
        let next = listen(fixture, "")
        try await offloaded { try again.start(next, columns: 80, rows: 24) }
        let second = try await offloaded { try again.waitFor("q quit") }
        #expect(second.contains("←/→ 10 s"), "\(second)")
        try await offloaded { try again.keys("q") }
        #expect(try await fixture.exitStatus() == "EXIT=0\n")
        await fixture.finish()
    }

    @Test func ctrlZSuspendsToTheShellAndFgBringsTheScreenBackPaused() async throws {
        let fixture = try await ready()
        let tmux = Tmux()
        defer { tmux.kill() }
        try await offloaded { try tmux.start("env PS1=shelf-test-prompt$ bash --norc --noprofile -i", columns: 80, rows: 24) }
        _ = try await offloaded { try tmux.waitFor("shelf-test-prompt$") }
        // Typed at the shell alone: bash runs the rest of a list at once when its first command stops.
        let home = fixture.shelf.home.path
        let command = "env SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE=\(home)/tmux.raw \(ShelfRunner.executable.path) listen 7d3c0002 --rewind off "
            + "--home \(home) --from 0:01"
        try await offloaded { try tmux.keys(command, "Enter") }
        var screen = try await offloaded { try tmux.waitFor("▶ playing") }
        #expect(screen.contains("▶ playing"), "\(screen)")
        try await offloaded { Thread.sleep(forTimeInterval: 1) }
        // Ctrl-Z: the shell's prompt and its job line, the player's screen gone.
        screen = try await tmux.press("C-z", until: "Stopped")
        #expect(screen.contains("Stopped"), "\(screen)")
        #expect(screen.contains("shelf-test-prompt$"), "\(screen)")
        #expect(!screen.contains("q quit"), "\(screen)")
        let saved = try position(fixture)
        #expect(saved != nil && (saved?.seconds ?? 0) >= 1, "\(String(describing: saved))")
        // Suspended, it hears nothing and saves nothing more.
        try await offloaded { Thread.sleep(forTimeInterval: 1) }
        #expect(try position(fixture) == saved)
        // fg: the screen comes back, paused where it stopped.
        screen = try await tmux.press("fg", "Enter", until: "Paused while suspended")
        #expect(screen.contains("Paused while suspended"), "\(screen)")
        #expect(screen.contains("❚❚ paused") && screen.contains("q quit"), "\(screen)")
        #expect(!screen.contains("shelf-test-prompt$"), "\(screen)")
        // Still a player: space plays, q quits with status 0.
        screen = try await tmux.press("Space", until: "▶ playing")
        #expect(screen.contains("▶ playing"), "\(screen)")
        // Typed only at the shell's next prompt: keys sent while the player still reads the terminal are its own.
        screen = try await offloaded {
            try tmux.keys("q")
            return try tmux.waitUntil { $0.split(separator: "\n").last?.hasSuffix("shelf-test-prompt$") == true }
        }
        #expect(screen.split(separator: "\n").last?.hasSuffix("shelf-test-prompt$") == true, "\(screen)")
        // fg's status is the player's.
        try await offloaded { try tmux.keys("echo EXIT=$? > \(home)/exit-status", "Enter") }
        #expect(try await fixture.exitStatus() == "EXIT=0\n")
        await fixture.finish()
    }
}

extension Tmux {
    /// Starts `command` in a window of `columns` × `rows`; the server ends with it.
    func start(_ command: String, columns: Int, rows: Int) throws {
        try Self.spawn(["/usr/bin/tmux", "-L", socket, "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", command])
    }
}
