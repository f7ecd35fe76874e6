import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

/// Descriptions are stored as the author wrote them: the catalog's HTML read into plain text once, when the entry is
/// written, from OPDS 1 and OPDS 2 alike; a store written before keeps them decoded after its upgrade.
@Suite(.timeLimit(.minutes(5))) struct DescriptionTests {
    /// `&name;`, `&#8212;` or `&#x2019;`: what a reference left in the text would look like.
    static let reference = try! NSRegularExpression(pattern: "&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")

    static func references(in text: String) -> [String] {
        reference.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range, in: text).map { String(text[$0]) }
        }
    }

    static func storedDescriptions(_ store: Store) throws -> [String] {
        try store.read { db in try String.fetchAll(db, sql: "SELECT summary FROM edition WHERE summary IS NOT NULL") }
    }

    @Test func opds2DescriptionsAreReadAsHTMLLikeOPDS1Summaries() throws {
        let json = """
            {"metadata":{"title":"F"},"publications":[{"metadata":{"identifier":"urn:x:1","title":"T",
              "description":"<p>He&#x2019;d go &mdash; &eacute;tude&nbsp;one.</p><p>Two &amp;amp; three</p>"},
              "links":[{"rel":"http://opds-spec.org/acquisition","href":"/a.mp3","type":"audio/mpeg"}]}]}
            """
        var entries: [OPDSEntry] = []
        _ = try OPDS2Parser(baseURL: URL(string: "http://127.0.0.1/")).parse(data: Data(json.utf8)) { entries.append($0) }
        let record = EntryRecord(try #require(entries.first))
        #expect(record.description == "He\u{2019}d go \u{2014} \u{E9}tude\u{A0}one.\n\nTwo &amp; three")
        // Every description of the repo's OPDS 2 documents (Palace's, Readium's) reads without a reference.
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/opds2")
        var read = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".json") {
            try? OPDS2Parser(baseURL: nil).parse(data: try Data(contentsOf: folder.appendingPathComponent(name))) { entry in
                guard let html = entry.summary, let text = EntryRecord(entry).description else { return }
                read += 1
                let left = Self.references(in: text).filter { !html.contains("&amp;" + $0.dropFirst()) }
                #expect(left.isEmpty && !text.contains("<p>"), "\(name): \(text.prefix(120).debugDescription)")
            }
        }
        #expect(read >= 3, "only \(read) OPDS 2 descriptions read")
    }

    @Test func aGeneratedCatalogsDescriptionsAreStoredWithoutAReferenceOrATag() async throws {
        try await SyncFixture.with(DemoConfiguration(pageSize: 50, generatedEntries: 300)) { fixture in
            _ = try fixture.sync()
            let stored = try Self.storedDescriptions(fixture.store)
            #expect(stored.count >= 300)
            for text in stored {
                #expect(Self.references(in: text).isEmpty && !text.contains("<") && !text.contains("\n\n\n"), "\(text.prefix(120))")
            }
            // The generated ones' two paragraphs stay two.
            #expect(stored.contains { $0.range(of: #"\n\nCatalogue number \d+\.$"#, options: .regularExpression) != nil })
        }
    }

    @Test func aSyncStoresEveryDescriptionAsPlainTextAndAnUpgradeDecodesTheOldOnes() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            let stored = try Self.storedDescriptions(fixture.store)
            #expect(stored.count > 20)
            for text in stored {
                #expect(Self.references(in: text).isEmpty && !text.contains("<p>") && !text.contains("</"), "\(text.prefix(120))")
            }
            // The demo's one ampersand, escaped twice in the feed, is one `&` again; the paragraph's tags are gone.
            let frankenstein = try fixture.store.edition("7d3c0003", in: fixture.library).description ?? ""
            #expect(frankenstein.hasPrefix("Victor Frankenstein builds") && frankenstein.contains("ambition & its price"),
                    "\(frankenstein)")
            let pride = try fixture.store.resolveEdition("7d3c0001", in: fixture.library)

            // A store written before descriptions were decoded: its summaries are the feed's HTML.
            try fixture.store.write { db in
                try db.execute(sql: """
                    UPDATE edition SET summary = '<p>He&#x2019;d go &mdash; far.</p>' || char(10) || '<p>Then&nbsp;back.</p>'
                    WHERE id = ?
                    """, arguments: [pride.rowID])
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v23-plain-descriptions'")
            }
            let upgraded = try Store(home: fixture.test.home, busyTimeout: 0.3)
            let decoded = try upgraded.edition("7d3c0001", in: fixture.library).description
            #expect(decoded == "He\u{2019}d go \u{2014} far.\n\nThen\u{A0}back.")
            #expect(try Self.storedDescriptions(upgraded).allSatisfy { Self.references(in: $0).isEmpty })
        }
    }
}
