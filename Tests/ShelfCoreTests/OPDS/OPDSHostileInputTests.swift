import Foundation
import Testing

@testable import ShelfCore

@Suite("OPDS parser: hostile and broken input", .timeLimit(.minutes(5)))
struct OPDSHostileInputTests {
    @Test("an external entity is never read: the entry arrives without the file's content")
    func externalEntityIsNotLoaded() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-xxe-\(UUID().uuidString).txt")
        try "TOP-SECRET-MARKER".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let template = try String(contentsOf: FixturePaths.opds("xxe-system-entity.xml"), encoding: .utf8)
        let xml = template.replacingOccurrences(of: "SECRET_FILE_URL", with: secret.absoluteString)

        let (_, entries) = try parseAll(xml: xml)

        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.title == "Before  after")
        #expect(!entry.title.contains("root:"))
        #expect(entry.summary == "Secret:")
        #expect(!(entry.summary ?? "").contains("TOP-SECRET-MARKER"))
    }

    @Test("external parameter entities in the DTD are neither fetched nor read")
    func parameterEntitiesAreNotLoaded() throws {
        let start = Date()
        let (_, entries) = try parseAll(FixturePaths.opds("xxe-parameter-entity.xml"))
        #expect(entries.map(\.title) == ["Parameter entities"])
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test(
        "billion laughs neither expands nor takes long",
        arguments: ["billion-laughs.xml", "billion-laughs-attribute.xml"])
    func billionLaughs(fixture: String) throws {
        let start = Date()
        var entries: [OPDSEntry] = []
        let error = parseError {
            entries = try parseAll(FixturePaths.opds(fixture)).1
        }
        #expect(Date().timeIntervalSince(start) < 2)
        // libxml2 2.9 stops at the amplification with "Detected an entity reference loop"; a later version
        // may instead leave the references unexpanded, which is as safe.
        if let error {
            guard case .malformed(_, _, let message) = error else {
                Issue.record("expected malformed, got \(error)")
                return
            }
            #expect(!message.isEmpty)
        } else {
            // Unexpanded: no field holds more than a few bytes of laughter.
            for entry in entries {
                #expect((entry.summary ?? "").utf8.count < 1000)
                #expect(entry.title.utf8.count < 1000)
                #expect(entry.links.allSatisfy { $0.href.utf8.count < 1000 })
                #expect(entry.categories.allSatisfy { $0.term.utf8.count < 1000 })
            }
        }
    }

    @Test("a mismatched tag is malformed, with libxml2's message, line and column")
    func mismatchedTag() {
        let error = parseError { _ = try parseAll(FixturePaths.opds("malformed-mismatched-tag.xml")) }
        guard case .malformed(let line, let column, let message)? = error else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
        #expect(line == 5)
        #expect(column > 1)
        #expect(message.contains("title"))
        #expect(error?.localizedDescription.contains("line 5") == true)
    }

    @Test("a truncated document is malformed")
    func truncated() {
        let error = parseError { _ = try parseAll(FixturePaths.opds("malformed-truncated.xml")) }
        guard case .malformed(let line, _, let message)? = error else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
        #expect(line >= 5)
        #expect(!message.isEmpty)
    }

    @Test("an empty document is malformed, not a crash")
    func empty() {
        let error = parseError { _ = try OPDSParser().parse(data: Data()) { _ in } }
        guard case .malformed? = error else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
    }

    @Test("content after the root element is malformed")
    func trailingContent() {
        let xml = #"<feed xmlns="http://www.w3.org/2005/Atom"><id>x</id></feed><feed/>"#
        let error = parseError { _ = try parseAll(xml: xml) }
        guard case .malformed(let line, _, _)? = error else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
        #expect(line == 1)
    }

    @Test("RSS is not Atom")
    func rss() {
        let error = parseError { _ = try parseAll(FixturePaths.opds("not-atom-rss.xml")) }
        #expect(error == .notAtom(root: "<rss>"))
    }

    @Test("a feed element in another namespace is not Atom, whatever its name")
    func wrongNamespace() {
        let error = parseError { _ = try parseAll(FixturePaths.opds("not-atom-wrong-namespace.xml")) }
        #expect(error == .notAtom(root: "<{http://purl.org/atom/ns#}feed>"))
    }

    @Test("an HTML page gives a clear error whether or not it happens to be well-formed XML")
    func htmlPage() {
        let xhtml = parseError { _ = try parseAll(FixturePaths.opds("xhtml-page.html")) }
        #expect(xhtml == .notAtom(root: "<{http://www.w3.org/1999/xhtml}html>"))
        #expect(xhtml?.localizedDescription.contains("OPDS") == true)

        // libxml2 reads ahead, so an HTML error a few bytes after the root can be reported before the root.
        let unclosed = parseError { _ = try parseAll(FixturePaths.opds("html-error-page-unclosed-meta.html")) }
        guard case .malformed(3, _, let message)? = unclosed else {
            Issue.record("expected malformed at line 3, got \(String(describing: unclosed))")
            return
        }
        #expect(message.contains("meta"))
        #expect(unclosed?.localizedDescription.contains("error page") == true)

        let shouting = parseError { _ = try parseAll(FixturePaths.opds("html-error-page-broken.html")) }
        #expect(shouting == .notAtom(root: "<HTML>"))

        let text = parseError { _ = try parseAll(xml: "Service Unavailable") }
        guard case .malformed(1, 1, _)? = text else {
            Issue.record("expected malformed at 1:1, got \(String(describing: text))")
            return
        }
    }

    @Test("an entry without id is skipped with a warning and the next entries still arrive")
    func entryWithoutID() throws {
        let (info, entries) = try parseAll(FixturePaths.opds("entry-without-id.xml"))
        #expect(entries.map(\.id) == ["urn:book:1", "urn:book:3"])
        #expect(info.entryCount == 2)
        #expect(info.warnings.count == 2)
        #expect(info.warnings.first?.contains("line 8") == true)
        #expect(info.warnings.first?.contains("Nameless") == true)
        #expect(info.warnings.last?.contains("Blank id") == true)
    }

    @Test("parseEntry refuses a document with no usable entry")
    func parseEntryWithoutEntry() throws {
        let feed = #"<feed xmlns="http://www.w3.org/2005/Atom"><id>x</id></feed>"#
        #expect(throws: OPDSParseError.notAtom(root: "a feed with no entry")) {
            try OPDSParser().parseEntry(data: Data(feed.utf8))
        }
        let entry = #"<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title></entry>"#
        #expect(throws: OPDSParseError.notAtom(root: "an entry without an id")) {
            try OPDSParser().parseEntry(data: Data(entry.utf8))
        }
    }

    @Test("an unreadable file is reported as such")
    func missingFile() {
        let error = parseError {
            _ = try parseAll(URL(fileURLWithPath: "/nonexistent/shelf/feed.xml"))
        }
        guard case .unreadable(let reason)? = error else {
            Issue.record("expected unreadable, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("/nonexistent/shelf/feed.xml"))
    }
}
