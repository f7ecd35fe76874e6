import DemoLibrary
import Foundation
import ShelfCore
import Testing
@testable import ShelfCLI

/// One table of exit statuses, the man page made from it, and failures under --json as JSON objects.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ExitStatusTests {
    @Test func everyExitStatusIsInTheTableOnceAndTheTableHasNoOther() {
        let documented = ExitStatusTable.rows.map(\.0)
        #expect(Set(documented) == Set(ShelfExit.allCases))
        #expect(documented.count == Set(documented).count)
        #expect(Set(ShelfExit.allCases.map(\.rawValue)).count == ShelfExit.allCases.count)
        #expect(ExitStatusTable.rows.allSatisfy { !$0.1.isEmpty })
    }

    @Test func theManPageListsTheTable() throws {
        // Tests/ShelfCLITests/ExitStatusTests.swift → the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("man/shelf.1"), encoding: .utf8)
        for (code, meaning) in ExitStatusTable.rows {
            // generate-manual escapes backslashes and hyphens; compare the start of each line's text.
            let start = String(meaning.prefix { $0 != "-" && $0 != "`" && $0 != "\\" }.prefix(30))
            #expect(page.contains("\(code.rawValue)  \(start)"), "exit status \(code.rawValue) is not in man/shelf.1")
        }
    }

    /// Runs shelf with --json and decodes the error object from standard output.
    private func jsonFailure(_ shelf: ShelfRunner, _ arguments: [String]) async throws
        -> (status: Int32, object: [String: Any], stderr: String)
    {
        let result = try await shelf.run(arguments)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        return (result.status, object, result.stderr)
    }

    @Test func rootHelpListsTheSubcommandsBeforeTheReferenceSections() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        for arguments in [["--help"], ["-h"]] {
            let help = try await shelf.run(arguments)
            #expect(help.status == 0, "\(arguments): \(help.stderr)")
            let text = help.stdout
            let order = ["OVERVIEW:", "USAGE:", "OPTIONS:", "SUBCOMMANDS:", "JSON OUTPUT", "EXIT STATUS", "LIMITS"]
                .map { text.range(of: $0)?.lowerBound }
            #expect(!order.contains(nil), "\(arguments): \(text)")
            let found = order.compactMap { $0 }
            #expect(found == found.sorted(), "\(arguments): the sections are out of order")
        }
        // A subcommand's help is as ArgumentParser writes it.
        let sync = try await shelf.run(["sync", "--help"])
        #expect(sync.stdout.hasPrefix("OVERVIEW: Fetch the library's catalog"))
    }

    @Test func underJSONAFailureIsAJSONObjectOnStandardOutput() async throws {
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        let none = try await jsonFailure(shelf, ["list", "--json"])
        #expect(none.status == ShelfExit.configuration.rawValue)
        #expect(none.object["exit"] as? Int == Int(ShelfExit.configuration.rawValue))
        #expect((none.object["error"] as? String)?.hasPrefix("no library yet: add one") == true)
        #expect(none.stderr.hasPrefix("shelf: no library yet"))

        // A command line that does not parse.
        let usage = try await jsonFailure(shelf, ["list", "--json", "--no-such-option"])
        #expect(usage.status == ShelfExit.usage.rawValue)
        #expect(usage.object["exit"] as? Int == 64)
        #expect((usage.object["error"] as? String)?.contains("--no-such-option") == true)

        let server = DemoLibraryServer(configuration: DemoConfiguration(pageSize: 5))
        let url = try await server.start()
        #expect(try await shelf.run(["library", "add", "demo", url.absoluteString]).status == 0)
        let added = try await jsonFailure(shelf, ["library", "add", "demo", url.absoluteString, "--json"])
        #expect(added.status == ShelfExit.usage.rawValue)
        #expect(added.object["error"] as? String == "a library named 'demo' already exists; remove it first or pick another name")

        let unknown = try await jsonFailure(shelf, ["show", "nope", "--json"])
        #expect(unknown.status == ShelfExit.notFound.rawValue && unknown.object["exit"] as? Int == 66)

        _ = try await shelf.run(["sync", "--quiet"])
        let borrow = try await jsonFailure(shelf, ["borrow", "7d3c0002", "--json"])
        #expect(borrow.status == ShelfExit.notPermitted.rawValue && borrow.object["exit"] as? Int == 77)

        // A sync that fails says so as an object too, with the libraries that did sync.
        await server.stop()
        let offline = try await jsonFailure(shelf, ["sync", "--json"])
        #expect(offline.status == ShelfExit.offline.rawValue)
        #expect((offline.object["error"] as? String)?.contains("offline") == true)
        #expect((offline.object["synced"] as? [Any])?.isEmpty == true)
    }

    @Test func signingInToALibraryThatAsksForNoSignInIsItsOwnExitStatus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let feed = directory.appendingPathComponent("feed.xml")
        try Data("""
            <feed xmlns="http://www.w3.org/2005/Atom"><id>urn:open</id><title>Open</title>
            <updated>2026-01-01T00:00:00Z</updated></feed>
            """.utf8).write(to: feed)
        let server = DocumentServer(documents: ["/opds": .init(file: feed)], origins: [])
        let root = try await server.start()
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        #expect(try await shelf.run(["library", "add", "open", root.absoluteString + "opds", "--no-check"]).status == 0)
        let login = try await shelf.run(["login", "--password-stdin"], input: "card\npin\n")
        #expect(login.status == ShelfExit.nothingToSignIn.rawValue, "\(login.stderr)")
        #expect(login.stderr == "shelf: open does not ask for a sign-in: its catalog opens without one and links no authentication document\n")
        #expect(!FileManager.default.fileExists(atPath: shelf.home.appendingPathComponent("credentials/open.json").path))
        await server.stop()
    }
}
