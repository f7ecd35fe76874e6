import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import Testing

/// Runs the built `shelf` executable as a patron would, with its own home directory.
struct ShelfRunner: Sendable {
    let home: URL

    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the test bundle is `<bin>/shelfPackageTests.xctest`; the executables sit beside it.
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("shelf")
            if FileManager.default.isExecutableFile(atPath: candidate.path), !candidate.hasDirectoryPath {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    return candidate
                }
            }
            directory.deleteLastPathComponent()
        }
        fatalError("the shelf executable was not built next to \(testBinary.path): run `swift build` first")
    }()

    init() {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-cli-\(UUID().uuidString)")
    }

    /// A runner whose home is `home` (on a disk of the test's choosing).
    init(home: URL) {
        self.home = home
    }

    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Starts `shelf args` with `--home` appended, through `wrapper` when given (a program and its arguments, as
    /// `runuser -u nobody --` or `/usr/bin/time …`, with shelf's path and arguments after them); the caller waits.
    func start(_ arguments: [String], environment: [String: String] = [:], input: String? = nil, wrapper: [String] = [])
        throws -> (ChildProcess, Pipe, Pipe)
    {
        let process = ChildProcess()
        let command = wrapper + [Self.executable.path] + arguments + ["--home", home.path]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        // Never the keyring of the desktop the tests run on: a test that wants one starts its own and says so.
        env["SHELF_KEYRING"] = "off"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        return (process, out, err)
    }

    /// Runs `shelf args` to completion on a thread of its own (never blocking the test's executor), through
    /// `wrapper` when given (see `start`).
    func run(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil, wrapper: [String] = []
    ) async throws -> Result {
        let (process, out, err) = try start(arguments, environment: environment, input: input, wrapper: wrapper)
        return try await offloaded {
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Result(
                status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: stderr, as: UTF8.self))
        }
    }

    /// Runs `shelf args` under GNU time (`/usr/bin/time`, Debian's `time`), itself run by `inside` when given (a
    /// wrapper as `start` takes): the result, and the process's peak resident memory in kilobytes.
    func runMeasuringMemory(_ arguments: [String], environment: [String: String] = [:], inside: [String] = [])
        async throws -> (Result, Int)
    {
        let report = home.deletingLastPathComponent().appendingPathComponent("rss-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let result = try await run(
            arguments, environment: environment, wrapper: inside + ["/usr/bin/time", "-f", "%M", "-o", report.path])
        let text = try String(contentsOf: report, encoding: .utf8)
        // GNU time writes "Command exited with non-zero status N" first when it did.
        let kilobytes = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return (result, try #require(kilobytes, "GNU time wrote \(text)"))
    }

    func cleanUp() { try? FileManager.default.removeItem(at: home) }
}

extension CLIFixture {
    /// Runs `shelf args` with the library holding every request for `path` at its door until the command prints
    /// `marker`: the command is seen waiting for what cannot have come yet, however busy the machine. (What it
    /// printed before the marker is in the result like the rest.)
    func run(_ arguments: [String], environment: [String: String] = [:], holding path: String, until marker: String)
        async throws -> ShelfRunner.Result
    {
        await server.state.closeGate(for: path)
        let (process, out, err) = try shelf.start(arguments, environment: environment)
        let before = try await out.read { $0.contains(marker) }
        await server.state.openGate()
        return try await offloaded {
            let rest = out.fileHandleForReading.readDataToEndOfFile()
            let errors = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ShelfRunner.Result(
                status: process.terminationStatus, stdout: String(decoding: before + rest, as: UTF8.self),
                stderr: String(decoding: errors, as: UTF8.self))
        }
    }
}

/// A demo library and a runner whose default library points at it.
final class CLIFixture: @unchecked Sendable {
    let server: DemoLibraryServer
    let url: URL
    let shelf = ShelfRunner()

    init(pageSize: Int = 5, configuration: DemoConfiguration? = nil) async throws {
        server = DemoLibraryServer(configuration: configuration ?? DemoConfiguration(pageSize: pageSize))
        url = try await server.start()
        let added = try await shelf.run(["library", "add", "demo", url.absoluteString])
        #expect(added.status == 0, "\(added.stderr)")
    }

    func finish() async {
        await server.stop()
        shelf.cleanUp()
    }

    /// Runs `body` with a new fixture and finishes it once `body` has ended, however it ended.
    static func with(_ body: (CLIFixture) async throws -> Void) async throws {
        try await finishing(try await CLIFixture(), { await $0.finish() }, body)
    }
}

extension CLIFixture {
    /// The demo's audio made, the catalog synced, signed in as `demo` and the loans synced (nothing downloaded).
    func signIn() async throws {
        try await server.state.prepareAudio()
        _ = try await shelf.run(["sync", "--quiet"])
        _ = try await shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        _ = try await shelf.run(["sync", "--quiet", "--no-download"])
    }

    /// Signed in as `demo`, synced, Sherlock downloaded (from a demo library made with `configuration`).
    static func withSherlockDownloaded(configuration: DemoConfiguration? = nil) async throws -> CLIFixture {
        let fixture = try await CLIFixture(configuration: configuration)
        try await fixture.signIn()
        let download = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(download.status == 0, "\(download.stderr)")
        return fixture
    }

    /// The `EXIT=n` line a tmux pane's command writes when the player ends ("" if it never does).
    func exitStatus() async throws -> String {
        let file = shelf.home.appendingPathComponent("exit-status")
        return try await eventually { try? String(contentsOf: file, encoding: .utf8) } ?? ""
    }

    /// Where the demo library's title `query` (any unique part of its id) keeps its files.
    func files(of query: String) throws -> URL {
        let home = Home(directory: shelf.home)
        let store = try Store(home: home)
        let library = try store.library(named: "demo")
        return home.files(library: library.id, edition: try store.resolveEdition(query, in: library).rowID)
    }
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct CLITests {
    @Test func syncPrintsOneSummaryLineAndListShowsTheTitles() async throws {
        let fixture = try await CLIFixture()
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0)
        #expect(sync.stdout == "27 new, 0 updated, 0 removed\n")
        #expect(sync.stderr.isEmpty)

        let list = try await fixture.shelf.run(["list"])
        #expect(list.status == 0)
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 28)
        #expect(lines[0].hasPrefix("ID"))
        #expect(lines.contains { $0.contains("Pride and Prejudice") && $0.contains("Jane Austen") && $0.contains("New") })
        // Not a terminal: no escape sequences.
        #expect(!list.stdout.contains("\u{1B}["))

        let again = try await fixture.shelf.run(["sync"])
        #expect(again.stdout == "0 new, 0 updated, 0 removed\n")
        await fixture.finish()
    }

    @Test func listJSONCarriesStatesAndFilters() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let all = try await fixture.shelf.run(["list", "--json", "--full"])
        let editions = try JSONDecoder.iso.decode([EditionSummary].self, from: Data(all.stdout.utf8))
        #expect(editions.count == 27)
        #expect(editions.allSatisfy { $0.state == .new })
        let moby = try #require(editions.first { $0.title == "Moby Dick" })
        #expect(moby.actions == [.reserve])
        #expect(moby.circulation.hasPrefix("all copies out"))

        let available = try await fixture.shelf.run(["list", "--available", "--json", "--full"])
        let availableEditions = try JSONDecoder.iso.decode([EditionSummary].self, from: Data(available.stdout.utf8))
        #expect(!availableEditions.contains { $0.title == "Moby Dick" })
        #expect(availableEditions.contains { $0.title == "Pride and Prejudice" })
        #expect(availableEditions.count < editions.count)

        let downloaded = try await fixture.shelf.run(["list", "--state", "downloaded"])
        #expect(downloaded.status == 0)
        #expect(downloaded.stdout == "No titles match.\n")

        let bad = try await fixture.shelf.run(["list", "--state", "lost"])
        #expect(bad.status == ShelfExit.usage.rawValue)
        #expect(bad.stderr.contains("unknown state 'lost'"))
        await fixture.finish()
    }

    @Test func showPrintsDetailsActionsAndHistory() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let show = try await fixture.shelf.run(["show", "7d3c0001"])
        #expect(show.status == 0, "\(show.stderr)")
        let text = show.stdout
        #expect(text.hasPrefix("Pride and Prejudice\n"))
        #expect(text.contains("by Jane Austen · read by Rosalind Hale"))
        #expect(text.contains("Publisher     LibriVox"))
        #expect(text.contains("State         New"))
        #expect(text.contains("Actions       download"))
        #expect(text.contains("Elizabeth Bennet meets the proud Mr. Darcy"))
        #expect(!text.contains("<p>"))
        #expect(text.contains("open-access  \(fixture.url.absoluteString)"))
        #expect(text.contains("first seen"))

        // The history of a download says what happened in words, never an event's Swift name.
        let downloaded = try await fixture.shelf.run(["download", "7d3c0001"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let history = try await fixture.shelf.run(["show", "7d3c0001"]).stdout
        #expect(history.contains("New → Authorising (download asked for)"), "\(history)")
        #expect(history.range(of: "\\([a-z]+[A-Z][a-z]+\\)", options: .regularExpression) == nil, "\(history)")

        let json = try await fixture.shelf.run(["show", "7d3c0001", "--json"])
        let detail = try JSONDecoder.iso.decode(EditionDetail.self, from: Data(json.stdout.utf8))
        #expect(detail.summary.id == "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001")

        let missing = try await fixture.shelf.run(["show", "no-such-title"])
        #expect(missing.status == ShelfExit.notFound.rawValue)
        #expect(missing.stderr == "shelf: no title with id 'no-such-title' in the store; run `shelf sync`, or see `shelf list`\n")

        let ambiguous = try await fixture.shelf.run(["show", "7d3c00"])
        #expect(ambiguous.status == ShelfExit.notFound.rawValue)
        #expect(ambiguous.stderr.contains("matches"))
        await fixture.finish()
    }

    /// `9781488208676` is the whole id of one title and the end of another's (`urn:isbn:9781488208676`): every command
    /// that names a title by it opens the whole match and says so on standard error, and the other title opens by
    /// the id it is shown as.
    @Test func anIDThatIsOneTitlesWholeIDAndTheEndOfAnothersOpensTheWholeMatchAndSaysSo() async throws {
        let maze = try FeedMaze { path, _ in
            path == "/" ? .atom(MazeFeed.books(id: "urn:isbns", [
                ("urn:isbn:9781488208676", "The Prefixed One"), ("9781488208676", "The Bare One"),
            ])) : nil
        }
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        #expect(try await shelf.run(["library", "add", "isbns", maze.base + "/", "--no-check"]).status == 0)
        let sync = try await shelf.run(["sync"])
        #expect(sync.status == 0 && sync.stdout == "2 new, 0 updated, 0 removed\n", "\(sync.stdout)\(sync.stderr)")
        struct Listed: Decodable {
            var id: String
            var shortID: String
        }
        let list = try await shelf.run(["list", "--json"])
        let shown = Dictionary(uniqueKeysWithValues: try JSONDecoder().decode([Listed].self, from: Data(list.stdout.utf8))
            .map { ($0.id, $0.shortID) })
        let other = try #require(shown["urn:isbn:9781488208676"])
        #expect(shown["9781488208676"] == "9781488208676" && other != "9781488208676", "\(shown)")
        let note = "shelf: note: 9781488208676 is the whole id of one title and the end of another's "
            + "(urn:isbn:9781488208676, shown as \(other)); this is the whole match\n"

        let show = try await shelf.run(["show", "9781488208676"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.hasPrefix("The Bare One\n"), "\(show.stdout)")
        #expect(show.stderr == note)
        let json = try await shelf.run(["show", "9781488208676", "--json"])
        #expect(try JSONDecoder.iso.decode(EditionDetail.self, from: Data(json.stdout.utf8)).summary.id == "9781488208676")
        #expect(json.stderr == note)
        let quiet = try await shelf.run(["show", "9781488208676", "--quiet"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        // The other title, by the id it is shown as: no note, for nothing else is named by it.
        let prefixed = try await shelf.run(["show", other])
        #expect(prefixed.stdout.hasPrefix("The Prefixed One\n"), "\(prefixed.stdout)")
        #expect(prefixed.stdout.contains("urn:isbn:9781488208676") && prefixed.stderr.isEmpty, "\(prefixed.stderr)")

        // The player and the export name the title the same way, before finding it is not on disk.
        let disk = ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": shelf.home.appendingPathComponent("out.raw").path]
        let listen = try await shelf.run(["listen", "9781488208676", "--no-ui"], environment: disk)
        #expect(listen.stderr.hasPrefix(note), "\(listen.stderr)")
        let out = shelf.home.appendingPathComponent("book.m4b")
        let export = try await shelf.run(["export", "9781488208676", "--m4b", out.path])
        #expect(export.stderr.hasPrefix(note), "\(export.stderr)")
    }

    @Test func statusShowsCountsAndWhatTheLastSyncChanged() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        try await fixture.server.state.touch(id: "urn:uuid:7d3c0006-5a1e-4c6b-9f0e-d0c5e1f00006")
        try await fixture.server.state.remove(id: "urn:uuid:7d3c0007-5a1e-4c6b-9f0e-d0c5e1f00007")
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.stdout == "0 new, 1 updated, 1 removed\n")
        let status = try await fixture.shelf.run(["status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("demo — Shelf Demo Library"))
        #expect(status.stdout.contains("ok: 0 new, 1 updated, 1 removed"))
        #expect(status.stdout.contains("Titles: 26 in the catalog, 1 removed"))
        #expect(status.stdout.contains("New 26 ·"))
        #expect(status.stdout.contains("changed      The Time Machine — updated"))
        #expect(status.stdout.contains("removed      Little Women — no longer in the catalog"))

        let json = try await fixture.shelf.run(["status", "--json"])
        let report = try JSONDecoder.iso.decode(StatusReport.self, from: Data(json.stdout.utf8))
        #expect(report.states["new"] == 26)
        #expect(report.states.count == LifecycleState.allCases.count)
        await fixture.finish()
    }

    @Test func quietPrintsNothingOnSuccessAndOneLineOnFailure() async throws {
        let fixture = try await CLIFixture()
        let quiet = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)

        await fixture.server.state.setFaults(PageFaults(status: 500), page: 2)
        try await fixture.server.state.touch(id: "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001")
        let failed = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(failed.status == ShelfExit.serverError.rawValue)
        #expect(failed.stdout.isEmpty)
        #expect(failed.stderr.split(separator: "\n").count == 1)
        #expect(failed.stderr.contains("sync stopped at page 2 of the catalog"))
        #expect(failed.stderr.contains("answered 500"))

        let status = try await fixture.shelf.run(["status"])
        #expect(status.stdout.contains("failed: sync stopped at page 2"))
        #expect(status.stdout.contains("Last good sync:"))
        await fixture.finish()
    }

    @Test func exitStatusesAreDistinctPerFailure() async throws {
        let fixture = try await CLIFixture()
        await fixture.server.state.setFaults(PageFaults(html: true), page: 1)
        let html = try await fixture.shelf.run(["sync"])
        #expect(html.status == ShelfExit.badData.rawValue)
        #expect(html.stderr.contains("HTML page"))
        await fixture.server.stop()
        let offline = try await fixture.shelf.run(["sync"])
        #expect(offline.status == ShelfExit.offline.rawValue)
        #expect(offline.stderr.contains("offline: cannot reach 127.0.0.1"))

        let empty = ShelfRunner()
        let none = try await empty.run(["sync"])
        #expect(none.status == ShelfExit.configuration.rawValue)
        #expect(none.stderr.contains("no library yet"))
        let unknown = try await empty.run(["list", "--library", "nowhere"])
        #expect(unknown.status == ShelfExit.configuration.rawValue || unknown.status == ShelfExit.notFound.rawValue)
        let badURL = try await empty.run(["library", "add", "x", "ftp://example.org/"])
        #expect(badURL.status == ShelfExit.usage.rawValue)
        empty.cleanUp()
        fixture.shelf.cleanUp()
    }

    @Test func aSecondSyncWaitsForTheFirstThenGivesUp() async throws {
        let fixture = try await CLIFixture()
        await fixture.server.state.setDelay(milliseconds: 400)
        let (first, out, _) = try fixture.shelf.start(["sync", "--quiet"])
        // The second starts once the first holds the lock (a loaded machine may take seconds to start it).
        let lock = Home(directory: fixture.shelf.home).syncLock
        let clock = ContinuousClock()
        let started = clock.now
        while FileLock.holder(of: lock) != first.processIdentifier, clock.now - started < .seconds(20) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let second = try await fixture.shelf.run(["sync", "--wait", "0.3"])
        #expect(second.status == ShelfExit.busy.rawValue)
        #expect(second.stderr.contains("another shelf sync is running (pid \(first.processIdentifier))"))
        try await offloaded {
            _ = out.fileHandleForReading.readDataToEndOfFile()
            first.waitUntilExit()
        }
        #expect(first.terminationStatus == 0)
        await fixture.finish()
    }

    @Test func aSyncKilledMidwayLeavesTheLastGoodStateAndTheNextOneCompletes() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let before = try await fixture.shelf.run(["list", "--json"])
        try await fixture.server.state.touch(id: "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001")
        try await fixture.server.state.remove(id: "urn:uuid:7d3c0017-5a1e-4c6b-9f0e-d0c5e1f00017")
        await fixture.server.state.setDelay(milliseconds: 300)
        let (process, _, _) = try fixture.shelf.start(["sync", "--quiet"])
        try await Task.sleep(for: .milliseconds(1_000))
        kill(process.processIdentifier, SIGKILL)
        try await offloaded { process.waitUntilExit() }
        #expect(process.terminationReason == .uncaughtSignal)

        let after = try await fixture.shelf.run(["list", "--json"])
        #expect(after.stdout == before.stdout)
        await fixture.server.state.setDelay(milliseconds: 0)
        // The lock died with the process; the next sync applies everything.
        let next = try await fixture.shelf.run(["sync", "--wait", "0"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout == "0 new, 1 updated, 1 removed\n")
        await fixture.finish()
    }

    @Test func aDamagedDatabaseIsReportedAndLeftInPlaceAndItsAdviceLosesNothing() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        try FileManager.default.createDirectory(at: shelf.home, withIntermediateDirectories: true)
        let database = shelf.home.appendingPathComponent("shelf.sqlite")
        let garbage = Data(repeating: 0x42, count: 32_768)
        try garbage.write(to: database)
        for command in [["sync"], ["list"], ["status"]] {
            let result = try await shelf.run(command)
            #expect(result.status == ShelfExit.storeFailure.rawValue, "\(command)")
            #expect(result.stderr.hasPrefix("shelf: the catalog database \(database.path) is damaged"))
            #expect(result.stderr.contains("run `shelf doctor --repair`"))
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        #expect(try Data(contentsOf: database) == garbage)
        // The advice, followed: nothing of it can be read, which the repair says, leaving it as it was.
        let repair = try await shelf.run(["doctor", "--repair"])
        #expect(repair.status == ShelfExit.storeFailure.rawValue)
        #expect(repair.stderr == "shelf: nothing in \(database.path) can be read as shelf's database (it was overwritten, or is not one); it is left as it is: rename it (mv \(database.path) \(database.path).unreadable) and shelf starts a new one, where `shelf library add` adds your libraries again (sign-ins are kept apart and still work)\n")
        #expect(try Data(contentsOf: database) == garbage)
        // And its advice: the file renamed, shelf starts anew and keeps the old one.
        try FileManager.default.moveItem(atPath: database.path, toPath: database.path + ".unreadable")
        let add = try await shelf.run(["library", "add", "demo", "http://127.0.0.1:9/", "--no-check"])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database.path + ".unreadable")) == garbage)
    }

    @Test func libraryCommands() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        #expect(try await shelf.run(["library", "add", "one", "http://127.0.0.1:9/", "--no-check"]).status == 0)
        #expect(try await shelf.run(["library", "add", "two", "http://127.0.0.1:9/two", "--no-check"]).status == 0)
        let duplicate = try await shelf.run(["library", "add", "one", "http://127.0.0.1:9/"])
        #expect(duplicate.status == ShelfExit.usage.rawValue)
        let list = try await shelf.run(["library", "list", "--json"])
        let libraries = try JSONDecoder.iso.decode([Library].self, from: Data(list.stdout.utf8))
        #expect(libraries.map(\.name) == ["one", "two"])
        #expect(libraries.first?.isDefault == true)
        #expect(try await shelf.run(["library", "default", "two"]).status == 0)
        #expect(try await shelf.run(["library", "remove", "two"]).stdout == "Removed two.\n")
        let text = try await shelf.run(["library"])
        #expect(text.stdout.contains("one"))
        #expect(!text.stdout.contains("two"))
    }

    @Test func demoSyncsTheEmbeddedLibraryAndListsIt() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        let demo = try await shelf.run(["demo"])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains(": synced 7 pages — 27 new, 0 updated, 0 removed."))
        #expect(demo.stdout.contains("Pride and Prejudice"))
        #expect(demo.stdout.contains("States: New 27 ·"))
        // Run again: the library is re-pointed at the new port and nothing is new.
        let again = try await shelf.run(["demo"])
        #expect(again.stdout.contains("0 new, 0 updated, 0 removed"))
    }
}

extension JSONDecoder {
    static let iso: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
