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

    @Test("a progression time on a hundredth's tie reads back as the time written, not a hair past 5 ms (progression)")
    func progressionTimeOnATie() throws {
        for seconds in [0.125, 1_000_000.125, 849.25] {
            let document = RemoteProgression.document(
                modified: Date(timeIntervalSince1970: 1_800_000_000), device: "urn:uuid:a", deviceName: "a",
                href: "part.mp3", type: nil, title: nil, part: 0, seconds: seconds, partProgression: nil,
                totalProgression: nil)
            guard case .success(let reread) = RemoteProgression.parse(document) else {
                Issue.record("the document for \(seconds) s does not read back")
                continue
            }
            #expect(reread.seconds == Double(String(format: "%.2f", seconds)))
            #expect(abs(reread.seconds! - seconds) <= 0.005 + 1e-9)
        }
    }

    @Test("Retry-After dates are read by hand in all three HTTP forms; other zones and bad days are not dates (http-head)")
    func retryAfterDates() {
        let now = Date(timeIntervalSince1970: 784_111_717)  // 1994-11-06 08:48:37 UTC
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(RetryPolicy.retryAfter(form, now: now) == 60, "\(form)")
        }
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 00:00:00 GMT") == Date(timeIntervalSince1970: 1_835_395_200))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        // A two-digit year more than 50 years ahead is the century before.
        #expect(HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT", now: Date(timeIntervalSince1970: 1_800_000_000))
                == Date(timeIntervalSince1970: 915_148_800))
        #expect(HTTPDate.parse("Wednesday, 01-Jan-30 00:00:00 GMT", now: Date(timeIntervalSince1970: 1_800_000_000))
                == Date(timeIntervalSince1970: 1_893_456_000))
        for bad in ["Sun, 06 Nov 1994 08:49:37 PST", "Tue, 29 Feb 2027 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                    "Sun, 06 Foo 1994 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT", "", "Sun, 6 Nov 19945 08:49:37 GMT"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("an announcement with an empty id is named by its content, as one without an id (authentication)")
    func announcementWithAnEmptyID() throws {
        let json = #"{"title":"L","authentication":[],"announcements":[{"id":"","content":"Closed Monday"},{"content":"Closed Monday"}]}"#
        let document = try AuthenticationDocument.parse(Data(json.utf8), url: URL(string: "https://library.example/auth")!)
        #expect(document.announcements.count == 2)
        #expect(document.announcements.allSatisfy { !$0.id.isEmpty })
        #expect(document.announcements[0].id == document.announcements[1].id)
    }
}
