import Foundation
import ShelfCore
import Testing

/// `shelf demo`: the demo library started beside shelf, synced into the patron's store, and stopped again.
@Suite(.serialized) struct DemoCLITests {
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
        #expect(second.stdout.contains(": synced 6 pages — 0 new, "), "\(second.stdout)")
        let libraries = try await shelf.run(["library", "list", "--json"])
        #expect(try JSONDecoder.iso.decode([Library].self, from: Data(libraries.stdout.utf8)).count == 1)
    }
}
