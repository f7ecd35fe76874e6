import Foundation
import ShelfCore
import Testing

/// A catalog page past one of shelf's input limits, served on loopback, as `shelf sync` meets it.
@Suite("Input limits through the CLI", .timeLimit(.minutes(5)))
struct InputLimitsCLITests {
    /// A feed of two audiobooks; `extra` goes into the second entry.
    private func feed(firstTitle: String, extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:dcterms="http://purl.org/dc/terms/">
        <id>urn:limits</id><title>Limits</title><updated>2026-01-01T00:00:00Z</updated>
        <entry><id>urn:book:one</id><title>\(firstTitle)</title><updated>2026-01-01T00:00:00Z</updated>
        <link rel="http://opds-spec.org/acquisition/open-access" href="one.mp3" type="audio/mpeg"/></entry>
        <entry><id>urn:book:two</id><title>Two</title><updated>2026-01-01T00:00:00Z</updated>
        <link rel="http://opds-spec.org/acquisition/open-access" href="two.mp3" type="audio/mpeg"/>\(extra)</entry>
        </feed>
        """
    }

    @Test func syncRefusesAPageWithTwoHundredThousandAttributesOnOneElementAndKeepsTheStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("feed.xml")
        try Data(feed(firstTitle: "One").utf8).write(to: page)
        let server = DocumentServer(documents: ["/opds": .init(file: page)], origins: [])
        let root = try await server.start()
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        #expect(try await shelf.run(["library", "add", "limits", root.absoluteString + "opds", "--no-check"]).status == 0)
        let first = try await shelf.run(["sync", "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try await shelf.run(["list", "--json"])
        #expect(before.stdout.contains("\"One\"") && before.stdout.contains("\"Two\""))

        // The same page, its first title changed, and 200,000 attributes on the second entry's last element.
        var attributes = ""
        attributes.reserveCapacity(2_600_000)
        for index in 0..<200_000 { attributes += " a\(index)=\"v\"" }
        let hostile = feed(firstTitle: "Changed", extra: "<link href=\"x\"\(attributes)/>")
        #expect(hostile.utf8.count > 2_250_000)
        try Data(hostile.utf8).write(to: page)
        let refused = try await shelf.run(["sync"])
        #expect(refused.status == ShelfExit.badData.rawValue, "\(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("an element at line 7 has more than 1000 attributes"), "\(refused.stderr)")
        #expect(refused.stderr.contains("shelf's limit on attributes per XML element"), "\(refused.stderr)")
        let after = try await shelf.run(["list", "--json"])
        #expect(after.stdout == before.stdout)
        await server.stop()
    }
}
