import Foundation
import Testing

@testable import ShelfCore

@Suite("OPDS parser: fields, namespaces and links", .timeLimit(.minutes(5)))
struct OPDSFieldTests {
    @Test("namespaces are matched by URI: unusual prefixes work and look-alike prefixes are ignored")
    func unusualPrefixes() throws {
        let base = URL(string: "https://library.example/opds/feed.xml")!
        let (info, entries) = try parseAll(FixturePaths.opds("namespaces-unusual-prefixes.xml"), baseURL: base)
        #expect(info.id == "urn:feed:prefixes")
        #expect(info.title == "Prefixes")
        #expect(info.next?.href == "https://library.example/opds/page2.xml")
        #expect(entries.map(\.id) == ["urn:book:prefixed", "urn:book:default"])
        #expect(info.entryCount == 2)

        let prefixed = entries[0]
        #expect(prefixed.title == "Prefixed Entry")
        #expect(prefixed.subtitle == "A Subtitle")
        #expect(prefixed.additionalType == "http://bib.schema.org/Audiobook")
        #expect(prefixed.narrators.map(\.name) == ["Nora Narrator"])
        #expect(prefixed.publisher == "Prefix Press")
        #expect(prefixed.distributor == "Prefix Distribution")
        let borrow = try #require(prefixed.acquisitions.first)
        #expect(borrow.href == "https://library.example/opds/borrow/1")
        #expect(borrow.availability == Availability(status: "available"))
        #expect(borrow.copies == Copies(total: 3, available: 2))
        #expect(
            borrow.paths.last == ["application/atom+xml;type=entry;profile=opds-catalog", "application/audiobook+json"])

        let defaulted = entries[1]
        #expect(defaulted.title == "Default Namespace Entry")
        #expect(defaulted.availability == Availability(status: "reserved"))
    }

    @Test("the same entry reads identically whatever the prefixes")
    func prefixInvariance() throws {
        let plain = """
            <entry xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog" \
            xmlns:opf="http://www.idpf.org/2007/opf">
            <id>urn:x</id><title>T</title><contributor opf:role="nrt"><name>N</name></contributor>
            <link rel="http://opds-spec.org/acquisition/borrow" href="http://e/b" type="a/b">
            <opds:holds total="4" position="2"/></link></entry>
            """
        let odd = """
            <q:entry xmlns:q="http://www.w3.org/2005/Atom" xmlns:atom="http://opds-spec.org/2010/catalog" \
            xmlns:opds="http://www.idpf.org/2007/opf">
            <q:id>urn:x</q:id><q:title>T</q:title><q:contributor opds:role="nrt"><q:name>N</q:name></q:contributor>
            <q:link rel="http://opds-spec.org/acquisition/borrow" href="http://e/b" type="a/b">
            <atom:holds total="4" position="2"/></q:link></q:entry>
            """
        let a = try OPDSParser().parseEntry(data: Data(plain.utf8))
        let b = try OPDSParser().parseEntry(data: Data(odd.utf8))
        #expect(a == b)
        #expect(a.holds == Holds(total: 4, position: 2))
        #expect(a.narrators.count == 1)
    }

    @Test("a full entry: every field of the model")
    func fullEntry() throws {
        let base = URL(string: "https://library.example/opds/works/1")!
        let entry = try OPDSParser(baseURL: base).parseEntry(
            data: Data(contentsOf: FixturePaths.opds("full-entry.xml")))
        #expect(entry.id == "urn:isbn:9780000000001")
        #expect(entry.title == "The Paid Draft")
        #expect(entry.isDraft)
        #expect(entry.additionalType == "http://bib.schema.org/Audiobook")
        #expect(
            entry.authors == [
                Contributor(
                    name: "Ann Author", roles: ["aut"], sortName: "Author, Ann", uri: "https://example.com/people/ann"),
                Contributor(name: "Bob Second", uri: "https://library.example/contributors/bob"),
            ])
        #expect(
            entry.contributors == [
                Contributor(name: "Nick Narrator", roles: ["nrt"]),
                Contributor(name: "Tess Translator", roles: ["trl"]),
            ])
        #expect(entry.narrators.map(\.name) == ["Nick Narrator"])
        #expect(entry.summary == "<p>Plenty of &amp; markup</p>")
        #expect(entry.content == "Rich content here")
        #expect(entry.issued == "2001")
        #expect(entry.issuedDate == utc(2001, 1, 1))
        #expect(entry.updated == "2023-11-13T11:51:35.250+01:00")
        #expect(entry.updatedDate == utc(2023, 11, 13, 10, 51, 35).addingTimeInterval(0.25))
        #expect(entry.publishedDate == utc(2022, 12, 16))
        #expect(entry.coverURL == "https://library.example/opds/works/covers/large.jpg")
        #expect(entry.thumbnailURL == "https://cdn.example.com/thumb.jpg")

        #expect(entry.acquisitions.map(\.kind) == [.buy, .sample])
        let buy = entry.acquisitions[0]
        #expect(buy.href == "https://library.example/opds/works/buy?id=1&x=2")
        #expect(buy.price == Price(value: "14.99", currency: "USD"))
        #expect(
            buy.paths == [
                [
                    "application/atom+xml;type=entry;profile=opds-catalog",
                    "application/vnd.readium.lcp.license.v1.0+json", "application/audiobook+lcp",
                ]
            ])
        #expect(entry.isPaid)
        #expect(entry.isAudiobook)
        #expect(entry.acquisitions[1].paths == [["audio/mpeg"]])

        #expect(
            entry.links == [
                OPDSLink(
                    href: "https://example.com/odd", rel: "http://opds-spec.org/acquisition/unknown-kind",
                    type: "text/plain"),
                OPDSLink(
                    href: "https://library.example/opds/works/1", rel: "alternate",
                    type: "application/atom+xml;type=entry;profile=opds-catalog"),
                OPDSLink(href: "https://library.example/opds/works/no-rel-at-all"),
                OPDSLink(href: "http:// clearly not valid", rel: "related", title: "Broken absolute"),
            ])
        #expect(entry.revokeURL == "https://library.example/opds/works/loans/1/revoke")
        #expect(entry.annotationsURL == "https://library.example/opds/works/annotations/1/")
    }

    @Test("without a base URL, relative links are kept as written")
    func noBaseURL() throws {
        let entry = try OPDSParser().parseEntry(data: Data(contentsOf: FixturePaths.opds("full-entry.xml")))
        #expect(entry.coverURL == "covers/large.jpg")
        #expect(entry.thumbnailURL == "//cdn.example.com/thumb.jpg")
        #expect(entry.revokeURL == "loans/1/revoke")
    }

    @Test("a relative href that is not a valid URI reference is kept as written")
    func unresolvableRelative() throws {
        let xml = """
            <entry xmlns="http://www.w3.org/2005/Atom"><id>u</id><title>t</title>
            <link rel="alternate" href="a%zz"/><link rel="alternate" href="two words"/>
            <link rel="related" href="?page=2#top"/><link rel="related" href="/livres/été"/></entry>
            """
        let entry = try OPDSParser(baseURL: URL(string: "https://e.example/feed/x?page=1")!).parseEntry(
            data: Data(xml.utf8))
        #expect(
            entry.links.map(\.href) == [
                "a%zz", "two words", "https://e.example/feed/x?page=2#top", "https://e.example/livres/%C3%A9t%C3%A9",
            ])
    }

    @Test("text is trimmed, character references decoded, CDATA kept as text")
    func textHandling() throws {
        let xml = """
            <entry xmlns="http://www.w3.org/2005/Atom">
              <id>
                urn:trim
              </id>
              <title>Caf&#233; &amp; <![CDATA[<Bar>]]></title>
              <summary type="html">  &lt;p&gt;x&lt;/p&gt;  </summary>
            </entry>
            """
        let entry = try OPDSParser().parseEntry(data: Data(xml.utf8))
        #expect(entry.id == "urn:trim")
        #expect(entry.title == "Café & <Bar>")
        #expect(entry.summary == "<p>x</p>")
    }

    @Test("availability dates that do not parse become nil; odd numbers become nil")
    func badCirculationValues() throws {
        let xml = """
            <entry xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog">
              <id>u</id><title>t</title>
              <link rel="http://opds-spec.org/acquisition/borrow" href="http://e/b">
                <opds:availability status="unavailable" since="yesterday" until="2024-02-30T00:00:00Z"/>
                <opds:holds total="many" position="-1"/>
                <opds:copies total="" available="2"/>
              </link>
            </entry>
            """
        let entry = try OPDSParser().parseEntry(data: Data(xml.utf8))
        #expect(entry.availability == Availability(status: "unavailable"))
        #expect(entry.holds == Holds(total: nil, position: -1))
        #expect(entry.copies == Copies(total: nil, available: 2))
    }

    @Test("feed links: all kept, relative ones resolved, feed-level elements after entries still read")
    func feedLinks() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom">
              <entry><id>e1</id><title>One</title></entry>
              <id>urn:late</id><title>Late Title</title><updated>2024-01-01T00:00:00Z</updated>
              <link rel="self" href="/feed?page=1"/>
              <link rel="next" href="/feed?page=2"/>
              <link rel="http://opds-spec.org/crawlable" href="/crawlable"/>
              <link rel="http://opds-spec.org/facet" href="?sort=title" title="Title"/>
              <link rel="start" href="https://other.example/"/>
            </feed>
            """
        let (info, entries) = try parseAll(xml: xml, baseURL: URL(string: "https://lib.example/feed?page=1")!)
        #expect(entries.count == 1)
        #expect(info.id == "urn:late")
        #expect(info.title == "Late Title")
        #expect(info.updated == "2024-01-01T00:00:00Z")
        #expect(
            info.links.map(\.href) == [
                "https://lib.example/feed?page=1", "https://lib.example/feed?page=2", "https://lib.example/crawlable",
                "https://lib.example/feed?sort=title", "https://other.example/",
            ])
        #expect(info.crawlable?.href == "https://lib.example/crawlable")
    }

    @Test("an error thrown by the entry handler stops the parse and reaches the caller")
    func handlerErrorPropagates() throws {
        struct Stop: Error {}
        var seen = 0
        #expect(throws: Stop.self) {
            _ = try OPDSParser().parse(file: FixturePaths.opds("entry-without-id.xml")) { _ in
                seen += 1
                throw Stop()
            }
        }
        #expect(seen == 1)
    }

    @Test("a namespace prefix that is not declared is reported as a warning, not a crash")
    func undeclaredPrefix() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><id>u</id><title>t</title>
            <opds:availability status="x"/></entry></feed>
            """
        let (info, entries) = try parseAll(xml: xml)
        #expect(entries.map(\.id) == ["u"])
        #expect(info.warnings.count == 1)
        #expect(info.warnings.first?.contains("opds") == true)
    }
}

@Suite("OPDS parser: line numbers in long feeds", .timeLimit(.minutes(5)))
struct OPDSLineNumberTests {
    @Test("an entry without id past line 65535 is reported near its real line")
    func warningPastSixteenBitLines() throws {
        var xml = "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n"
        for i in 0..<14_000 {
            xml +=
                "<entry>\n<id>urn:\(i)</id>\n<title>T\(i)</title>\n<updated>2024-01-01T00:00:00Z</updated>\n</entry>\n"
        }
        let line = xml.utf8.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        xml += "<entry>\n<title>No id</title>\n</entry>\n<entry><id>urn:last</id><title>Last</title></entry>\n</feed>\n"
        var last: String?
        let info = try OPDSParser().parse(data: Data(xml.utf8)) { last = $0.id }
        #expect(line > 65_535)
        #expect(last == "urn:last")
        #expect(info.entryCount == 14_001)
        let warning = try #require(info.warnings.first)
        let reported = Int(warning.split(separator: " ")[3]) ?? 0
        #expect((line...line + 10).contains(reported), "\(warning), expected line \(line)")
    }
}

@Suite("OPDS parser: encodings and threads", .timeLimit(.minutes(5)))
struct OPDSEncodingAndThreadTests {
    @Test("a Latin-1 document is decoded by its declaration; a UTF-8 byte-order mark is accepted")
    func encodings() throws {
        let latin1 = """
            <?xml version="1.0" encoding="ISO-8859-1"?>
            <entry xmlns="http://www.w3.org/2005/Atom"><id>u</id><title>Café</title></entry>
            """
        let entry = try OPDSParser().parseEntry(data: latin1.data(using: .isoLatin1)!)
        #expect(entry.title == "Café")

        let bom =
            Data([0xEF, 0xBB, 0xBF])
            + Data(#"<entry xmlns="http://www.w3.org/2005/Atom"><id>b</id><title>Ü</title></entry>"#.utf8)
        #expect(try OPDSParser().parseEntry(data: bom).title == "Ü")
    }

    @Test("parsers on several threads at once do not interfere, including their errors")
    func concurrentParses() {
        let feed = OPDSThroughputTests.palaceFeed(entries: 2_000)
        let broken = Data("<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>x</id></feed>".utf8)
        let results = LockedResults(count: 8)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let outcome: String
            do {
                if index.isMultiple(of: 2) {
                    outcome = "entries \(try OPDSParser().parse(data: feed) { _ in }.entryCount)"
                } else {
                    _ = try OPDSParser().parse(data: broken) { _ in }
                    outcome = "parsed"
                }
            } catch let OPDSParseError.malformed(line, _, _) {
                outcome = "malformed at \(line)"
            } catch {
                outcome = "\(error)"
            }
            results.set(index, outcome)
        }
        let all = results.values
        #expect(
            all.enumerated().allSatisfy {
                $0.offset.isMultiple(of: 2) ? $0.element == "entries 2000" : $0.element == "malformed at 1"
            })
    }
}

/// Outcomes written from several threads; a lock rather than `Mutex`, which needs macOS 15.
private final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String]

    init(count: Int) { storage = Array(repeating: "", count: count) }

    func set(_ index: Int, _ value: String) { lock.withLock { storage[index] = value } }

    var values: [String] { lock.withLock { storage } }
}
