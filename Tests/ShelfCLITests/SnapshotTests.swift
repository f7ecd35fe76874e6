import Foundation
import DemoLibrary
import ShelfCore
import Testing

/// Compares command output with the files in Snapshots/. Re-record with `SHELF_RECORD_SNAPSHOTS=1 swift test`.
enum Snapshot {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    /// Replaces what changes from run to run (the demo's port, timestamps) with fixed placeholders.
    static func normalise(_ text: String, url: URL) -> String {
        text.replacingOccurrences(of: url.absoluteString, with: "http://demo.invalid/")
            .replacingOccurrences(of: "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}", with: "YYYY-MM-DD hh:mm", options: .regularExpression)
            .replacingOccurrences(of: "\\(\\d+ (minute|hour|day)s? ago\\)|\\(just now\\)", with: "(a moment ago)", options: .regularExpression)
    }

    static func check(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["SHELF_RECORD_SNAPSHOTS"] != nil {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "output differs from Snapshots/\(name); re-record with SHELF_RECORD_SNAPSHOTS=1",
                sourceLocation: sourceLocation)
    }
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct SnapshotTests {
    @Test func listShowAndStatusOfTheDemoLibrary() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        try await fixture.server.state.touch(id: "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002", updated: Date(timeIntervalSince1970: 1_790_000_000))
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        for (name, arguments) in [
            ("list.txt", ["list"]),
            ("list-available.txt", ["list", "--available"]),
            ("show-sherlock.txt", ["show", "7d3c0002"]),
            ("show-moby-dick.txt", ["show", "7d3c0004"]),
            ("status.txt", ["status"]),
        ] {
            let result = try await fixture.shelf.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            try Snapshot.check(Snapshot.normalise(result.stdout, url: fixture.url), named: name)
        }
        await fixture.finish()
    }
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct LargeListSnapshotTests {
    /// 100 titles (the built-in ones, then generated Palace-style works) through `shelf list` and `list --json`:
    /// the streamed printer must write what the one that gathered every row first wrote.
    @Test func listOfAHundredTitles() async throws {
        var configuration = DemoConfiguration(pageSize: 50, generatedEntries: 74)
        configuration.keepsBuiltInTitles = true
        let fixture = try await CLIFixture(configuration: configuration)
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        for (name, arguments) in [
            ("list-100.txt", ["list"]), ("list-100.json", ["list", "--json"]), ("list-100-full.json", ["list", "--json", "--full"]),
        ] {
            let result = try await fixture.shelf.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            try Snapshot.check(Snapshot.normalise(result.stdout, url: fixture.url), named: name)
        }
        await fixture.finish()
    }
}
