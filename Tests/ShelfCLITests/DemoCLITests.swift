import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// `shelf demo`: the demo library started beside shelf, synced into the patron's store, and stopped again.
@Suite(.serialized, .timeLimit(.minutes(5))) struct DemoCLITests {
    /// The demo library's root URL in what `shelf demo` printed.
    static func url(in text: String) -> URL? {
        guard let range = text.range(of: #"http://127\.0\.0\.1:\d+/"#, options: .regularExpression) else { return nil }
        return URL(string: String(text[range]))
    }

    /// The URL the store holds for a library, from `shelf library list --json`.
    static func storedURL(_ shelf: ShelfRunner, name: String = "demo") async throws -> String? {
        let list = try await shelf.run(["library", "list", "--json"])
        let libraries = try JSONDecoder.iso.decode([Library].self, from: Data(list.stdout.utf8))
        return libraries.first { $0.name == name }?.url
    }

    @Test func itPrintsTheShowcaseItAlwaysPrinted() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        let demo = try await shelf.run(["demo", "--port", "0"])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stderr.isEmpty, "\(demo.stderr)")
        let url = try #require(Self.url(in: demo.stdout), "\(demo.stdout)")
        let text = Snapshot.normalise(demo.stdout, url: url).replacingOccurrences(of: shelf.home.path, with: "HOME")
        try Snapshot.check(text, named: "demo.txt")
    }

    @Test func afterTheDemoStopsTheStoreStillAnswersAndTheNextDemoRepointsTheLibrary() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        let first = try await shelf.run(["demo", "--port", "0"])
        #expect(first.status == 0, "\(first.stderr)")
        let firstURL = try #require(Self.url(in: first.stdout), "\(first.stdout)")
        #expect(try await Self.storedURL(shelf) == firstURL.absoluteString)

        // The server is gone; what the store holds is still there to read.
        for arguments in [["list"], ["list", "--available"], ["show", "7d3c0002"], ["status"], ["library"]] {
            let result = try await shelf.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            #expect(!result.stdout.isEmpty, "\(arguments)")
        }
        let show = try await shelf.run(["show", "7d3c0002"])
        #expect(show.stdout.contains("The Adventures of Sherlock Holmes"), "\(show.stdout)")
        // Only what needs the library says it cannot be reached, in one line with its own status.
        let sync = try await shelf.run(["sync"])
        #expect(sync.status == ShelfExit.offline.rawValue, "\(sync.stdout) \(sync.stderr)")
        #expect(sync.stderr.split(separator: "\n").count == 1, "\(sync.stderr)")

        // The next demo points the same library at wherever it now listens, and finds nothing new (on another
        // port the links differ, so titles may count as updated; the default port keeps them the same).
        let second = try await shelf.run(["demo", "--port", "0"])
        #expect(second.status == 0, "\(second.stderr)")
        let secondURL = try #require(Self.url(in: second.stdout), "\(second.stdout)")
        #expect(try await Self.storedURL(shelf) == secondURL.absoluteString)
        #expect(second.stdout.contains(": synced 7 pages — 0 new, "), "\(second.stdout)")
        let libraries = try await shelf.run(["library", "list", "--json"])
        #expect(try JSONDecoder.iso.decode([Library].self, from: Data(libraries.stdout.utf8)).count == 1)
    }
}

extension DemoCLITests {
    static func isListening(_ url: URL) -> Bool { Loopback.isListening(url) }

    /// Waits up to `timeout` seconds for nothing to listen at the URL's port; whether that happened.
    static func stopsListening(_ url: URL, timeout: Double = 5) async throws -> Bool {
        try await offloaded { Loopback.waitUntilClosed(url, timeout: timeout) }
    }

    /// What a started process printed by the time `text` appears or `timeout` seconds pass, without waiting
    /// for it to end.
    static func output(of pipe: Pipe, until text: String, timeout: Double) async throws -> String {
        let handle = pipe.fileHandleForReading
        return try await offloaded {
            var data = Data()
            let deadline = Date().addingTimeInterval(timeout)
            while !String(decoding: data, as: UTF8.self).contains(text), Date() < deadline {
                var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) >= 0 else { break }
                guard descriptor.revents != 0 else { continue }
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    @Test func serveSyncsFirstThenServesUntilCtrlC() async throws {
        let shelf = ShelfRunner()
        let tmux = Tmux()
        defer {
            tmux.kill()
            shelf.cleanUp()
        }
        let home = shelf.home.path
        let exitFile = shelf.home.appendingPathComponent("exit-status")
        let command = "\(ShelfRunner.executable.path) demo --serve --port 0 --home \(home); echo \"EXIT=$?\" > \(exitFile.path)"
        try await offloaded { try tmux.start(command) }
        // Its own first sync completes at once, before it says the library is ready.
        _ = try await offloaded { try tmux.waitFor("press Ctrl-C") }
        let screen = try await offloaded { try tmux.run(["capture-pane", "-p", "-S", "-100", "-t", "0"], output: true) }
        #expect(screen.contains(": synced 7 pages — 27 new, 0 updated, 0 removed."), "\(screen)")
        #expect(!screen.contains("shelf:"), "\(screen)")
        let url = try #require(Self.url(in: screen), "\(screen)")
        #expect(try await Self.storedURL(shelf) == url.absoluteString)

        // While it serves, the other commands use it.
        let sync = try await shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout == "0 new, 0 updated, 0 removed\n")

        // Ctrl-C stops the library and shelf, which ends with status 0.
        try await offloaded { try tmux.keys("C-c") }
        let status = try await eventually { try? String(contentsOf: exitFile, encoding: .utf8) } ?? ""
        #expect(status == "EXIT=0\n")
        #expect(try await Self.stopsListening(url))
        let list = try await shelf.run(["list"])
        #expect(list.status == 0, "\(list.stderr)")
    }

    @Test func serveStopsOnTerminateAndLeavesNoLibraryRunningWhenKilled() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        for signal in [SIGTERM, SIGKILL] {
            let (process, out, _) = try shelf.start(["demo", "--serve", "--port", "0"])
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            let printed = try await Self.output(of: out, until: "press Ctrl-C", timeout: 20)
            #expect(printed.contains("— press Ctrl-C to stop it."), "\(printed)")
            let url = try #require(Self.url(in: printed), "\(printed)")
            #expect(Self.isListening(url))
            kill(process.processIdentifier, signal)
            try await offloaded { process.waitUntilExit() }
            if signal == SIGTERM {
                #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                        "shelf demo --serve ended by \(process.terminationReason) with status \(process.terminationStatus)")
            }
            // Either way the demo library stops with it.
            #expect(try await Self.stopsListening(url), "the demo library still listens after shelf got signal \(signal)")
        }
    }

    @Test func whenTheDefaultPortIsTakenAFreeOneIsUsed() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        // Hold the default port, unless something else on this machine already does.
        let holder = DemoLibraryServer(configuration: DemoConfiguration(port: 8469))
        let held = (try? await holder.start()) != nil || Self.isListening(URL(string: "http://127.0.0.1:8469/")!)
        let demo = try await shelf.run(["demo"])
        await holder.stop()
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stderr.isEmpty, "\(demo.stderr)")
        let url = try #require(Self.url(in: demo.stdout), "\(demo.stdout)")
        if held { #expect(url.port != 8469) }
    }

    @Test func aPortGivenThatIsTakenIsAnError() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        let holder = DemoLibraryServer()
        let taken = try await holder.start()
        let demo = try await shelf.run(["demo", "--port", "\(taken.port ?? 0)"])
        await holder.stop()
        #expect(demo.status != 0)
        #expect(demo.stderr.contains("could not listen on 127.0.0.1"), "\(demo.stderr)")
        #expect(demo.stdout.isEmpty, "\(demo.stdout)")
    }
}
