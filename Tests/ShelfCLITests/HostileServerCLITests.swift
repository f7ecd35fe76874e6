import Foundation
import ShelfCore
import Testing

/// Documents a hostile or broken server might send, served on loopback and met by the real binary: each is refused
/// with one line and its own exit status, nothing is changed or kept, and the process stays small while refusing.
@Suite("Hostile servers through the CLI", .timeLimit(.minutes(5)))
struct HostileServerCLITests {
    /// A catalog of one open-access audiobook whose manifest is `manifest.json` beside it.
    private static let feed = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom">
        <id>urn:hostile</id><title>Hostile</title><updated>2026-01-01T00:00:00Z</updated>
        <entry><id>urn:book:long</id><title>A Long Book</title><updated>2026-01-01T00:00:00Z</updated>
        <link rel="http://opds-spec.org/acquisition/open-access" href="manifest.json" type="application/audiobook+json"/>
        </entry>
        </feed>
        """

    /// What the limits allow a refusal to take: the process's peak resident memory.
    private static let peakLimitKB = 64 * 1024

    /// A manifest of `count` parts, each `{"href": "…", "type": "audio/mpeg"}` with an href `padding` long (without
    /// the type when not `typed`).
    private static func manifest(parts count: Int, padding: Int, typed: Bool = true) -> Data {
        let href = String(repeating: "p", count: padding)
        var text = #"{"metadata": {"title": "A Long Book"}, "readingOrder": ["#
        text.reserveCapacity(count * (padding + 40) + 100)
        for index in 0..<count {
            if index > 0 { text += "," }
            text += typed ? #"{"href": "\#(href)\#(index).mp3", "type": "audio/mpeg"}"# : #"{"href":"\#(index)"}"#
        }
        text += "]}"
        return Data(text.utf8)
    }

    /// Serves the feed and `manifest`, adds the library and syncs it; runs `body` with the shelf, the store's
    /// listing before, and the manifest's file (to change between runs).
    private func withCatalog(
        _ manifest: Data, _ body: (ShelfRunner, _ listing: String, _ file: URL) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("feed.xml")
        let file = directory.appendingPathComponent("manifest.json")
        try Data(Self.feed.utf8).write(to: page)
        try manifest.write(to: file)
        let server = DocumentServer(
            documents: ["/opds": .init(file: page), "/manifest.json": .init(file: file, contentType: "application/audiobook+json")],
            origins: [])
        let root = try await server.start()
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        #expect(try await shelf.run(["library", "add", "hostile", root.absoluteString + "opds", "--no-check"]).status == 0)
        let sync = try await shelf.run(["sync", "--quiet"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let listing = try await shelf.run(["list", "--json"])
        #expect(listing.stdout.contains("A Long Book"), "\(listing.stdout)")
        do {
            try await body(shelf, listing.stdout, file)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The download's files: nothing may be kept of a refused manifest.
    private func downloadedFiles(_ shelf: ShelfRunner) -> [String] {
        let root = shelf.home.appendingPathComponent("downloads")
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { !$0.hasSuffix("/") && !$0.isEmpty }
            .filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
    }

    @Test func aManifestOfFourHundredThousandPartsIsRefusedSmallAndChangesNothing() async throws {
        // The audit's case: 24 MB of 400,000 parts took 1.24 GB before "more than 10000 parts". It is cut off as it
        // arrives, past the 16 MB a JSON document may hold.
        let large = Self.manifest(parts: 400_000, padding: 24)
        #expect(large.count > 20_000_000)
        // 400,000 parts in under 16 MB: the one pass over the bytes counts them before any tree is built.
        let short = Self.manifest(parts: 400_000, padding: 0, typed: false)
        #expect(short.count < InputLimit.documentBytes.value)
        try await withCatalog(large) { shelf, listing, file in
            let cases: [(Data, String)] = [
                (large, "is larger than 16 MB"),
                (short, "the manifest lists more than 10000 parts, over shelf's limit on parts per audiobook manifest"),
            ]
            for (manifest, reason) in cases {
                try manifest.write(to: file)
                let (refused, peakKB) = try await shelf.runMeasuringMemory(["download", "urn:book:long"])
                #expect(refused.status == ShelfExit.badData.rawValue, "\(refused.stderr)")
                #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
                #expect(refused.stderr.contains(reason), "\(refused.stderr)")
                #expect(peakKB <= Self.peakLimitKB, "refusing a manifest of \(manifest.count) bytes took \(peakKB) KB")
                print("hostile: manifest of \(manifest.count) bytes refused with a peak of \(peakKB) KB")
                #expect(downloadedFiles(shelf).isEmpty, "\(downloadedFiles(shelf))")
                let after = try await shelf.run(["list", "--json"])
                #expect(after.stdout == listing)
            }
        }
    }
}
