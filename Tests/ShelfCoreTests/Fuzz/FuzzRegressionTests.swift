import Foundation
import Testing

@testable import ShelfCore

/// Inputs the fuzzers (Scripts/fuzz) found shelf mishandling, each kept as a test of the fix.
@Suite(.timeLimit(.minutes(5))) struct FuzzRegressionTests {
    static func entry(_ inner: String) throws -> OPDSEntry {
        let xml = """
            <entry xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog"
              xmlns:dcterms="http://purl.org/dc/terms/"><id>urn:fuzz</id><title>T</title>\(inner)</entry>
            """
        return try OPDSParser(baseURL: URL(string: "https://library.example/feed.xml")).parseEntry(data: Data(xml.utf8))
    }

    @Test("an availability dated before 1970 is hashed for the store, not trapped on (opds1-feed)")
    func availabilityBefore1970() throws {
        let entry = try Self.entry("""
            <link rel="http://opds-spec.org/acquisition/borrow" href="/borrow" type="audio/mpeg">
              <opds:availability status="available" since="1960-01-01T00:00:00Z" until="1969-12-31T23:59:59Z"/></link>
            """)
        #expect(entry.availability?.since == Date(timeIntervalSince1970: -315_619_200))
        let record = EntryRecord(entry)
        // The same entry hashes the same; a different pre-1970 date hashes differently.
        #expect(EntryRecord(entry).contentHash == record.contentHash)
        var other = entry
        other.acquisitions[0].availability?.since = Date(timeIntervalSince1970: -1)
        #expect(EntryRecord(other).contentHash != record.contentHash)
    }

    @Test("a running time past 1,000 hours is dropped, and one stored earlier prints without a trap (dates)")
    func absurdDuration() throws {
        #expect(OPDSDuration.parse("2222222222222222222.3") == nil)
        #expect(OPDSDuration.parse("1e300") == nil)
        #expect(OPDSDuration.parse("3600000") == 3_600_000)
        #expect(OPDSDuration.clockString(1e300) == "1000:00:00")
        #expect(OPDSDuration.clockString(.infinity) == "0:00:00")
        #expect(try Self.entry("<dcterms:duration>1e300</dcterms:duration>").duration == nil)
        let opds2 = #"{"metadata":{"identifier":"urn:x","title":"T","duration":1e300},"links":[]}"#
        var durations: [Double?] = []
        _ = try OPDS2Parser().parse(data: Data(opds2.utf8)) { durations.append($0.duration) }
        #expect(durations == [nil])
    }

    @Test("a problem document whose only member is an empty type still gives a message (problem)")
    func emptyProblemType() throws {
        let problem = try #require(ProblemDocument.parse(Data(#"{"type":""}"#.utf8)))
        #expect(problem.text == "no detail")
    }

    @Test("a manifest part whose web URL has no host is refused; negative durations and lengths are dropped (manifest)")
    func manifestHrefWithoutHost() throws {
        let url = URL(string: "https://library.example/works/1/manifest.json")!
        let hostless = #"{"metadata":{"title":"T"},"readingOrder":[{"href":"http:part-1.mp3"}]}"#
        #expect(throws: FulfilmentError.malformedManifest(url: url.absoluteString, reason: "reading order item 1 has a bad href")) {
            try AudiobookManifest.parse(Data(hostless.utf8), url: url)
        }
        let negative = #"""
            {"metadata":{"title":"T","duration":-1},"readingOrder":[{"href":"a.mp3","duration":-5,"length":-3}],
             "toc":[{"href":"a.mp3#t=-20","title":"One"}]}
            """#
        let manifest = try AudiobookManifest.parse(Data(negative.utf8), url: url)
        #expect(manifest.duration == nil)
        #expect(manifest.parts.map(\.duration) == [nil])
        #expect(manifest.parts.map(\.length) == [nil])
        #expect(manifest.toc.map(\.offset) == [0])
    }
}

/// `Content-Range` as the downloader reads it (the `http-head` fuzzer checks the same on every head).
@Suite(.timeLimit(.minutes(5))) struct ContentRangeTests {
    @Test("a Content-Range is read strictly: no negative total, no signed or reversed range")
    func strict() {
        #expect(ContentRange("bytes 100-199/1000") == ContentRange(first: 100, last: 199, total: 1000))
        #expect(ContentRange("bytes */1000") == ContentRange(total: 1000))
        #expect(ContentRange("bytes 0-9/*") == ContentRange(first: 0, last: 9))
        #expect(ContentRange("Bytes 0-9/10") == ContentRange(first: 0, last: 9, total: 10))
        #expect(ContentRange("bytes 0-1/-5") == ContentRange())
        #expect(ContentRange("bytes -5-10/20") == ContentRange(total: 20))
        #expect(ContentRange("bytes 9-3/20") == ContentRange(total: 20))
        #expect(ContentRange("bytes 0-20/20") == ContentRange(total: 20))
        #expect(ContentRange("bytes +1-2/3") == ContentRange(total: 3))
        #expect(ContentRange("bytes 0-1/99999999999999999999") == ContentRange())
        #expect(ContentRange("items 0-1/2") == ContentRange())
    }

    @Test("the response head hands the downloader the Content-Range of the latest response")
    func throughTheHead() {
        var head = ResponseHead()
        for line in ["HTTP/1.1 206 Partial\r\n", "Content-Range: bytes 0-1/-5\r\n", "\r\n"] { head.take(Data(line.utf8)) }
        #expect(head.contentRange == ContentRange())
        for line in ["HTTP/1.1 206 Partial\r\n", "content-range:  bytes 5-9/10 \r\n"] { head.take(Data(line.utf8)) }
        #expect(head.contentRange == ContentRange(first: 5, last: 9, total: 10))
    }
}
