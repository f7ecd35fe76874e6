import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import Testing

/// `shelf listen` driven over MPRIS as a desktop drives it: the real binary on a private session bus the test starts,
/// with `playerctl`, the demo library on loopback and SDL's disk driver.
@Suite(.serialized, .timeLimit(.minutes(5))) struct MprisCLITests {
    static var isAvailable: Bool {
        ["/usr/bin/dbus-daemon", "/usr/bin/playerctl", "/usr/bin/dbus-send", "/usr/bin/dbus-monitor"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Sherlock, four parts of 20 s: chapter 1 at 0:01, chapters 2, 3 and 4 at 0:20, 0:40 and 1:00.
    private func ready() async throws -> CLIFixture {
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: 20))
        try await fixture.signIn()
        let result = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(result.status == 0, "\(result.stderr)")
        return fixture
    }

    /// Standard error without the disk driver's two "CRITICAL:" notices (SDL's own).
    static func shelfLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { !$0.hasPrefix("CRITICAL: ") }
    }

    private func environment(_ fixture: CLIFixture, _ bus: NotificationBus?) -> [String: String] {
        ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": fixture.shelf.home.appendingPathComponent("out.raw").path,
         "DBUS_SESSION_BUS_ADDRESS": bus?.address ?? "unix:path=/nonexistent/shelf-test-bus"]
    }

    /// Runs a client on the bus; its standard output, trimmed, and what it said, for the transcript.
    @discardableResult
    private func client(_ bus: NotificationBus, _ transcript: Transcript, _ program: String, _ arguments: [String])
        async throws -> String
    {
        let address = bus.address
        let output = try await offloaded {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
            process.environment = ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = out
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        transcript.add("$ \(URL(fileURLWithPath: program).lastPathComponent) \(arguments.joined(separator: " "))\n\(output)")
        return output
    }

    @discardableResult
    private func playerctl(_ bus: NotificationBus, _ transcript: Transcript, _ arguments: String...) async throws -> String {
        try await client(bus, transcript, "/usr/bin/playerctl", ["--player=shelf"] + arguments)
    }

    /// Asks `arguments` until the answer passes `done` (the player takes calls ten times a second), for up to
    /// `patience`.
    private func poll(_ bus: NotificationBus, _ transcript: Transcript, _ arguments: String...,
                      until done: (String) -> Bool) async throws -> String {
        var answer = ""
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            answer = try await client(bus, transcript, "/usr/bin/playerctl", ["--player=shelf"] + arguments)
            if done(answer) { return answer }
            try await Task.sleep(for: .milliseconds(200))
        }
        return answer
    }

    @Test(.enabled(if: MprisCLITests.isAvailable, "needs dbus-daemon, dbus-send and playerctl (Scripts/setup --test)"))
    func playerctlDrivesThePlayer() async throws {
        let fixture = try await ready()
        let bus = try NotificationBus()
        let transcript = Transcript()
        defer { bus.stop() }
        // From 0:03, inside "Chapter 1" (the opening credits last a second, gone by the time playerctl asks).
        let (process, out, err) = try fixture.shelf.start(
            ["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--from", "0:03"], environment: environment(fixture, bus))
        // playerctl --follow prints the status as PropertiesChanged signals come.
        let follow = ChildProcess()
        follow.executableURL = URL(fileURLWithPath: "/usr/bin/playerctl")
        follow.arguments = ["--player=shelf", "--follow", "status"]
        follow.environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let followed = Pipe()
        follow.standardOutput = followed
        follow.standardError = FileHandle.nullDevice
        try follow.run()
        // dbus-monitor writes down every Seeked signal.
        let monitor = ChildProcess()
        monitor.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        monitor.arguments = ["--address", bus.address, "type='signal',interface='org.mpris.MediaPlayer2.Player',member='Seeked'"]
        let monitored = Pipe()
        monitor.standardOutput = monitored
        monitor.standardError = FileHandle.nullDevice
        try monitor.run()

        #expect(try await poll(bus, transcript, "status") { $0 == "Playing" } == "Playing", "\(transcript)")
        // Held inside "Chapter 1" before asking, however long a loaded machine took to get here (paused, it stays).
        try await playerctl(bus, transcript, "pause")
        #expect(try await poll(bus, transcript, "status") { $0 == "Paused" } == "Paused", "\(transcript)")
        try await playerctl(bus, transcript, "position", "10")
        _ = try await poll(bus, transcript, "position") { abs((Double($0) ?? 0) - 10) < 0.3 }
        let metadata = try await playerctl(
            bus, transcript, "metadata", "--format", "{{xesam:title}}|{{xesam:album}}|{{xesam:artist}}|{{mpris:length}}|{{mpris:trackid}}")
        let fields = metadata.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        #expect(fields.count == 5, "\(transcript)")
        // The cover the download kept beside the parts, for desktop media widgets.
        let art = try await playerctl(bus, transcript, "metadata", "mpris:artUrl")
        #expect(art.hasPrefix("file:///") && art.hasSuffix("/cover.png"), "\(transcript)")
        #expect(FileManager.default.fileExists(atPath: URL(string: art)?.path ?? "/nonexistent"), "\(art)")
        if fields.count == 5 {
            #expect(fields[0] == "Chapter 1", "\(transcript)")
            #expect(fields[1] == "The Adventures of Sherlock Holmes")
            #expect(fields[2] == "Arthur Conan Doyle", "\(transcript)")
            #expect(abs((Double(fields[3]) ?? 0) / 1_000_000 - 80) < 1, "\(transcript)")
            #expect(fields[4] == "'/org/mpris/MediaPlayer2/shelf/book'")
        }
        try await playerctl(bus, transcript, "metadata")

        try await playerctl(bus, transcript, "pause")
        #expect(try await poll(bus, transcript, "status") { $0 == "Paused" } == "Paused", "\(transcript)")
        try await playerctl(bus, transcript, "position", "30")
        let position = try await poll(bus, transcript, "position") { abs((Double($0) ?? 0) - 30) < 0.3 }
        #expect(abs((Double(position) ?? 0) - 30) < 0.3, "\(transcript)")
        #expect(try await playerctl(bus, transcript, "metadata", "xesam:title") == "Chapter 2")
        // Seek, relative to where it is.
        try await playerctl(bus, transcript, "position", "5-")
        let back = try await poll(bus, transcript, "position") { abs((Double($0) ?? 0) - 25) < 0.3 }
        #expect(abs((Double(back) ?? 0) - 25) < 0.3, "\(transcript)")

        try await playerctl(bus, transcript, "next")
        let title = try await poll(bus, transcript, "metadata", "xesam:title") { $0 == "Chapter 3" }
        #expect(title == "Chapter 3", "\(transcript)")
        #expect(abs((Double(try await playerctl(bus, transcript, "position")) ?? 0) - 40) < 0.3, "\(transcript)")

        try await playerctl(bus, transcript, "volume", "0.5")
        #expect(Double(try await poll(bus, transcript, "volume") { Double($0) == 0.5 }) == 0.5, "\(transcript)")
        try await playerctl(bus, transcript, "play")
        #expect(try await poll(bus, transcript, "status") { $0 == "Playing" } == "Playing", "\(transcript)")
        try await playerctl(bus, transcript, "stop")
        #expect(try await poll(bus, transcript, "status") { $0 == "Stopped" } == "Stopped", "\(transcript)")
        try await playerctl(bus, transcript, "play-pause")
        #expect(try await poll(bus, transcript, "status") { $0 == "Playing" } == "Playing", "\(transcript)")
        // Paused again, so where it stops does not depend on how long the quit takes to arrive on a busy machine.
        try await playerctl(bus, transcript, "play-pause")
        #expect(try await poll(bus, transcript, "status") { $0 == "Paused" } == "Paused", "\(transcript)")
        let paused = Double(try await playerctl(bus, transcript, "position")) ?? -1
        #expect(paused >= 40, "\(transcript)")
        // Quit ends the session as q does: saved, and said where.
        try await client(bus, transcript, "/usr/bin/dbus-send", [
            "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.shelf", "/org/mpris/MediaPlayer2",
            "org.mpris.MediaPlayer2.Quit"])
        let stdout = try await offloaded {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        #expect(process.terminationStatus == 0, "\(transcript)")
        // "Stopped at 0:41 of 1:20": where it was paused.
        let stopped = stdout.split(separator: "\n").first { $0.hasPrefix("Stopped at ") }
            .flatMap { $0.dropFirst("Stopped at ".count).split(separator: " ").first }
            .map { $0.split(separator: ":").compactMap { Double($0) } }
        #expect(stopped.map { $0.count == 2 && abs($0[0] * 60 + $0[1] - paused) <= 1 } == true, "\(stdout) paused at \(paused)")
        #expect(Self.shelfLines(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)).isEmpty)

        kill(follow.processIdentifier, SIGKILL)
        follow.waitUntilExit()
        kill(monitor.processIdentifier, SIGKILL)
        monitor.waitUntilExit()
        let signals = String(decoding: monitored.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // SetPosition, Seek and Next each moved the player: a Seeked signal each.
        let seeked = signals.components(separatedBy: "member=Seeked").count - 1
        #expect(seeked >= 3, "\(signals)")
        transcript.add("$ dbus-monitor … member='Seeked'\n\(seeked) Seeked signals")
        let statuses = String(decoding: followed.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        transcript.add("$ playerctl --player=shelf --follow status\n\(statuses.joined(separator: "\n"))")
        // Each change arrived as a signal, in order.
        let changes = statuses.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(changes.starts(with: ["Playing", "Paused", "Playing", "Stopped", "Playing"]), "\(statuses)")
        // The transcript for a reader (an issue note), only when asked for: SHELF_MPRIS_TRANSCRIPT=FILE.
        if let file = ProcessInfo.processInfo.environment["SHELF_MPRIS_TRANSCRIPT"] {
            try? Data(transcript.text.utf8).write(to: URL(fileURLWithPath: file))
        }
        await fixture.finish()
    }

    @Test(.enabled(if: MprisCLITests.isAvailable, "needs dbus-daemon, dbus-send and playerctl (Scripts/setup --test)"))
    func aBusThatGoesAwayLeavesThePlayerPlaying() async throws {
        let fixture = try await ready()
        let bus = try NotificationBus()
        let transcript = Transcript()
        let (process, out, err) = try fixture.shelf.start(
            ["listen", "7d3c0002", "--no-ui", "--rewind", "off", "--from", "0:02"], environment: environment(fixture, bus))
        #expect(try await poll(bus, transcript, "status") { $0 == "Playing" } == "Playing", "\(transcript)")
        bus.stop()
        try await offloaded { Thread.sleep(forTimeInterval: 2) }
        #expect(process.isRunning)
        kill(process.processIdentifier, SIGTERM)
        let (stdout, stderr) = try await offloaded {
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
        }
        #expect(process.terminationStatus == 128 + SIGTERM)
        // No word about the bus without --verbose, and the position saved as always.
        #expect(Self.shelfLines(stderr).isEmpty, "\(stderr)")
        #expect(stdout.contains("Position saved."), "\(stdout)")
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let state = try store.listeningState(of: try store.resolveEdition("7d3c0002", in: try store.library(named: "demo")))
        #expect((state.position?.seconds ?? 0) > 3, "\(String(describing: state.position))")
        await fixture.finish()
    }

    @Test func withoutASessionBusThereIsNoMprisAndNoError() async throws {
        let fixture = try await ready()
        let environment = environment(fixture, nil)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "1s"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.shelfLines(result.stderr).isEmpty, "\(result.stderr)")
        let verbose = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "1s", "--verbose"], environment: environment)
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stderr.split(separator: "\n").filter { $0.contains("MPRIS") }.count == 1, "\(verbose.stderr)")
        await fixture.finish()
    }
}

/// What the clients said, in order (printed when an expectation fails).
final class Transcript: @unchecked Sendable, CustomStringConvertible {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var text: String { lock.withLock { lines.joined(separator: "\n") } }
    var description: String { text }
}
