import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import Testing

/// Removing a library, credentials bound to the URL they were given for, the card number kept out of argv, and
/// the empty-catalog guard across a 304.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SafetyCLITests {
    private func credentialsFile(_ fixture: CLIFixture) -> URL {
        fixture.shelf.home.appendingPathComponent("credentials/demo.json")
    }

    private func booksDirectory(_ fixture: CLIFixture) throws -> URL {
        let home = Home(directory: fixture.shelf.home)
        return home.books(library: try Store(home: home).library(named: "demo").id)
    }

    @Test func removeErasesTheSignInAndAskedForTheBooks() async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        let download = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(download.status == 0, "\(download.stderr)")
        let books = try booksDirectory(fixture)
        #expect(FileManager.default.fileExists(atPath: books.path))

        // No terminal to ask on and no --yes: a usage error, and nothing is removed.
        let refused = try await fixture.shelf.run(["library", "remove", "demo"])
        #expect(refused.status == ShelfExit.usage.rawValue)
        #expect(refused.stderr.hasPrefix("shelf: removing demo deletes its 1 downloaded title ("), "\(refused.stderr)")
        #expect(refused.stderr.hasSuffix("add --yes to confirm when there is no terminal to ask\n"))
        #expect(FileManager.default.fileExists(atPath: credentialsFile(fixture).path))
        #expect(FileManager.default.fileExists(atPath: books.path))
        #expect(try await fixture.shelf.run(["library", "list"]).stdout.contains("demo"))

        let removed = try await fixture.shelf.run(["library", "remove", "demo", "--yes"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.hasPrefix("Removed demo; deleted its 1 downloaded title ("))
        #expect(removed.stdout.hasSuffix(" and erased its sign-in.\n"))
        #expect(!FileManager.default.fileExists(atPath: credentialsFile(fixture).path))
        #expect(!FileManager.default.fileExists(atPath: books.path))

        // The same name at another URL starts signed out: no card and PIN, and no token, goes to it.
        let other = DemoLibraryServer(configuration: DemoConfiguration(pageSize: 5))
        let otherURL = try await other.start()
        #expect(try await fixture.shelf.run(["library", "add", "demo", otherURL.absoluteString]).status == 0)
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let stats = await other.state.stats
        #expect(stats.basicRequests == 0 && stats.bearerRequests == 0 && stats.tokenRequests == 0)
        #expect(try await fixture.shelf.run(["status"]).stdout.contains("Account: not signed in"))
        await other.stop()
        await fixture.finish()
    }

    /// Runs `shelf ARGS` on a terminal of its own (util-linux `script`), typing `input` at it.
    private func onTerminal(_ shelf: ShelfRunner, _ arguments: [String], input: String) async throws -> ShelfRunner.Result {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([ShelfRunner.executable.path] + arguments + ["--home", shelf.home.path]).joined(separator: " ")
        process.arguments = ["-qec", command, "/dev/null"]
        let (stdin, stdout) = (Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Typed once the question is on the screen, as a patron would.
        try await Task.sleep(for: .milliseconds(500))
        stdin.fileHandleForWriting.write(Data(input.utf8))
        return try await offloaded {
            let output = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ShelfRunner.Result(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self), stderr: "")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script is absent"))
    func onATerminalRemoveAsksBeforeDeletingTheBooks() async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        #expect(try await fixture.shelf.run(["download", "7d3c0002"]).status == 0)
        let kept = try await onTerminal(fixture.shelf, ["library", "remove", "demo"], input: "n\n")
        #expect(kept.status == 0)
        #expect(kept.stdout.contains("Remove demo and delete its 1 downloaded title ("), "\(kept.stdout)")
        #expect(kept.stdout.contains("Kept demo; nothing was removed."))
        #expect(FileManager.default.fileExists(atPath: credentialsFile(fixture).path))
        #expect(FileManager.default.fileExists(atPath: try booksDirectory(fixture).path))

        let books = try booksDirectory(fixture)
        let removed = try await onTerminal(fixture.shelf, ["library", "remove", "demo"], input: "y\n")
        #expect(removed.status == 0)
        #expect(removed.stdout.contains("Removed demo; deleted its 1 downloaded title ("), "\(removed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: credentialsFile(fixture).path))
        #expect(!FileManager.default.fileExists(atPath: books.path))
        await fixture.finish()
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script is absent"))
    func decliningALargeDownloadIsNotAFailure() async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        // Each part says it is 300 MB more than it is, so the title looks larger than 500 MB.
        await fixture.server.state.setAudioFaults(
            AudioFaults(extraContentLength: 300 * 1_048_576), for: "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002")
        let declined = try await onTerminal(fixture.shelf, ["download", "7d3c0002"], input: "n\n")
        #expect(declined.stdout.contains("MB. Download it? [y/N]"), "\(declined.stdout)")
        #expect(declined.stdout.contains("Cancelled: The Adventures of Sherlock Holmes was not downloaded."))
        #expect(declined.status == 0)
        #expect(await fixture.server.state.stats.partBytesSent.values.reduce(0, +) == 0)
        await fixture.finish()
    }

    @Test func aLibraryWithNothingOnDiskIsRemovedWithoutAsking() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        let removed = try await fixture.shelf.run(["library", "remove", "demo"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "Removed demo; erased its sign-in.\n")
        #expect(!FileManager.default.fileExists(atPath: credentialsFile(fixture).path))
        await fixture.finish()
    }

    @Test func credentialsGivenForAnotherURLAreNeverSent() async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        // The library is pointed at another server (as `shelf demo` re-points its library): the sign-in stays
        // with the URL it was given for.
        let other = DemoLibraryServer(configuration: DemoConfiguration(pageSize: 5))
        let otherURL = try await other.start()
        try Store(home: Home(directory: fixture.shelf.home)).setLibraryURL(name: "demo", url: otherURL)
        for command in [["sync"], ["borrow", "7d3c000a"]] {
            let result = try await fixture.shelf.run(command)
            #expect(result.status == ShelfExit.notPermitted.rawValue, "\(command): \(result.stderr)")
            #expect(result.stderr == "shelf: the sign-in stored for demo was given for \(fixture.url.absoluteString), "
                + "not for its URL now; it is not sent: run `shelf login demo` (or `shelf logout demo`)\n")
        }
        let status = try await fixture.shelf.run(["status"])
        #expect(status.stdout.contains("Account: the sign-in stored for demo was given for"))
        let stats = await other.state.stats
        #expect(stats.basicRequests == 0 && stats.bearerRequests == 0 && stats.tokenRequests == 0)

        // Signing in again binds them to the new URL.
        let login = try await fixture.shelf.run(["login", "--password-stdin"], input: "demo\n1234\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try await fixture.shelf.run(["sync"]).status == 0)
        #expect(await other.state.stats.tokenRequests >= 1)
        await other.stop()
        await fixture.finish()
    }

    /// Rewrites the credentials file as shelf wrote it before credentials were bound to a URL.
    private func unbind(_ file: URL) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(object.removeValue(forKey: "libraryURL") != nil)
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }

    @Test func aCredentialsFileWithoutAURLIsBoundToTheLibraryOnFirstUse() async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        let file = credentialsFile(fixture)
        try unbind(file)
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("2 loans"))
        let stored = try JSONDecoder().decode(Credentials.self, from: Data(contentsOf: file))
        #expect(stored.libraryURL == fixture.url.absoluteString)

        // One older than the library itself was left by an earlier library of that name: refused.
        try unbind(file)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: file.path)
        let refused = try await fixture.shelf.run(["sync"])
        #expect(refused.status == ShelfExit.notPermitted.rawValue)
        #expect(refused.stderr.contains("was given for an earlier library of that name, not for its URL now"))
        await fixture.finish()
    }

    @Test func theCardNumberCanComeFromTheEnvironmentOrStandardInput() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let fromEnvironment = try await fixture.shelf.run(
            ["login", "--password-stdin"], environment: ["SHELF_USERNAME": "demo"], input: "1234\n")
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(fromEnvironment.stdout.contains("with card ••mo"))
        _ = try await fixture.shelf.run(["logout"])

        let fromInput = try await fixture.shelf.run(["login", "--password-stdin"], input: "demo\n1234\n")
        #expect(fromInput.status == 0, "\(fromInput.stderr)")
        #expect(try JSONDecoder().decode(Credentials.self, from: Data(contentsOf: credentialsFile(fixture))).username == "demo")

        // Only one line: the card number was read, and no PIN is left.
        _ = try await fixture.shelf.run(["logout"])
        let short = try await fixture.shelf.run(["login", "--password-stdin"], input: "demo\n")
        #expect(short.status == ShelfExit.usage.rawValue)
        #expect(short.stderr.contains("no terminal to ask for the"))
        await fixture.finish()
    }

    @Test func a304ForAPageThatCameBackEmptyKeepsTheTitles() async throws {
        let fixture = try await CLIFixture()
        let first = try await fixture.shelf.run(["sync"])
        #expect(first.stdout.hasPrefix("27 new"), "\(first.stdout)")
        for index in 1...27 {
            try await fixture.server.state.remove(id: String(format: "urn:uuid:7d3c%04x-5a1e-4c6b-9f0e-d0c5e1f%05x", index, index))
        }
        await fixture.server.state.resetStats()
        for run in 1...2 {
            let sync = try await fixture.shelf.run(["sync"])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.hasPrefix("0 new, 0 updated, 0 removed"), "run \(run): \(sync.stdout)")
            #expect(sync.stderr.contains("the catalog came back empty; kept the 27 titles already stored"), "run \(run)")
        }
        // The second run was told page 1 had not changed: the guard held across the 304.
        #expect(await fixture.server.state.notModifiedCount("/crawlable") >= 1)
        let list = try await fixture.shelf.run(["list", "--json", "--full"])
        #expect(try JSONDecoder.iso.decode([EditionSummary].self, from: Data(list.stdout.utf8)).count == 27)
        await fixture.finish()
    }

    @Test func underQuietAnEmptyCatalogIsOneLineTheFirstRunAndNothingTheNext() async throws {
        let fixture = try await CLIFixture()
        #expect(try await fixture.shelf.run(["sync", "--quiet"]).stdout.isEmpty)
        for title in await fixture.server.state.catalog.titles { try await fixture.server.state.remove(id: title.id) }
        let first = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        #expect(first.stdout == "demo: warning: the catalog came back empty; kept the 27 titles already stored (run sync "
                    + "again later)\n", "\(first.stdout)")
        let second = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(second.status == 0 && second.stdout.isEmpty && second.stderr.isEmpty, "\(second.stdout)\(second.stderr)")
        await fixture.finish()
    }
}
