import Foundation
import Testing

@testable import ShelfCore

/// Huge entries are generated here rather than committed.
@Suite("OPDS parser: entry size limit", .timeLimit(.minutes(5)))
struct OPDSSizeLimitTests {
    /// Writes a feed whose second entry is made of `chunks` copies of `chunk` between `open` and `close`.
    private func writeFeed(open: String, chunk: String, chunks: Int, close: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-huge-\(UUID().uuidString).xml")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let head = """
            <feed xmlns="http://www.w3.org/2005/Atom">
            <id>urn:feed:huge</id>
            <entry><id>urn:book:small</id><title>Small</title></entry>
            <entry>
            <id>urn:book:huge</id>

            """
        try handle.write(contentsOf: Data((head + open).utf8))
        let block = Data(String(repeating: chunk, count: max(1, (1 << 20) / chunk.utf8.count)).utf8)
        var written = 0
        while written < chunks * chunk.utf8.count {
            try handle.write(contentsOf: block)
            written += block.count
        }
        try handle.write(contentsOf: Data((close + "</entry></feed>\n").utf8))
        return url
    }

    private func expectTooLarge(_ url: URL, limit: Int = 8 << 20) {
        defer { try? FileManager.default.removeItem(at: url) }
        let start = Date()
        var received: [String] = []
        let error = parseError {
            _ = try OPDSParser(maxEntryBytes: limit).parse(file: url) { received.append($0.id) }
        }
        #expect(error == .entryTooLarge(line: 4, limit: limit))
        #expect(received == ["urn:book:small"])
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test("a 50 MB summary: one text node, refused without reading it all")
    func singleHugeTextNode() throws {
        let chunk = "All work and no play makes Jack a dull boy. "
        let url = try writeFeed(
            open: "<summary>", chunk: chunk, chunks: 50_000_000 / chunk.utf8.count, close: "</summary>")
        expectTooLarge(url)
    }

    @Test("50 MB of XHTML content in many small elements, counted as it accumulates")
    func manySmallTextNodes() throws {
        let chunk = "<p>" + String(repeating: "x", count: 1000) + "</p>"
        let url = try writeFeed(
            open: #"<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">"#, chunk: chunk,
            chunks: 50_000_000 / chunk.utf8.count, close: "</div></content>")
        expectTooLarge(url)
    }

    @Test("50 MB of categories: attribute values count too")
    func manyAttributes() throws {
        let chunk = #"<category term="t" label=""# + String(repeating: "y", count: 1000) + #""/>"#
        let url = try writeFeed(open: "", chunk: chunk, chunks: 50_000_000 / chunk.utf8.count, close: "")
        expectTooLarge(url)
    }

    @Test("a small limit applies to ordinary entries; entries under it pass")
    func smallLimit() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom">
            <entry><id>a</id><title>short</title></entry>
            <entry><id>b</id>
            <title>\(String(repeating: "long ", count: 100))</title></entry>
            </feed>
            """
        var ids: [String] = []
        let error = parseError {
            _ = try OPDSParser(maxEntryBytes: 100).parse(data: Data(xml.utf8)) { ids.append($0.id) }
        }
        #expect(ids == ["a"])
        #expect(error == .entryTooLarge(line: 3, limit: 100))
        #expect(error?.localizedDescription.contains("line 3") == true)
    }
}
