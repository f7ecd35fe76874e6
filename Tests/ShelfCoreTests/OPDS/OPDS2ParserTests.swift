import Foundation
import Testing

@testable import ShelfCore

/// Parses a JSON document held in a string, as a sync would with the given media type.
func parseOPDS2(json: String, contentType: String? = "application/opds+json", base: String = "http://127.0.0.1:8080/opds2/")
    throws -> (OPDSFeedInfo, [OPDSEntry])
{
    var entries: [OPDSEntry] = []
    let info = try FeedDocument(baseURL: URL(string: base)).parse(data: Data(json.utf8), contentType: contentType) {
        entries.append($0)
    }
    return (info, entries)
}

/// The OPDS 2 collections (navigation, groups, facets), Palace's extensions, and documents that are not feeds.
@Suite("OPDS 2 parser", .timeLimit(.minutes(5)))
struct OPDS2ParserTests {
    /// A groups feed in the shape Palace's OPDS 2 serializer writes: lanes with their `self` links, facets whose
    /// active link is `self`, templated search, pagination, and a loan whose generic acquisition is "ready".
    static let groupsFeed = """
        {
          "metadata": {"title": "Palace Library", "modified": "2024-05-01T10:00:00Z", "itemsPerPage": 2},
          "links": [
            {"rel": "self", "href": "/opds2/", "type": "application/opds+json"},
            {"rel": ["next", "http://example.org/rel/more"], "href": "?page=2", "type": "application/opds+json"},
            {"rel": "search", "href": "/search{?query}", "type": "application/opds+json", "templated": true},
            {"rel": "http://opds-spec.org/shelf", "href": "/loans/"},
            {"rel": "http://palaceproject.io/terms/rel/sort", "href": "?order=title", "title": "Title",
             "properties": {"http://palaceproject.io/terms/properties/active-sort": "true"}}
          ],
          "navigation": [
            {"href": "/opds2/fiction", "title": "Fiction", "type": "application/opds+json", "properties": {"numberOfItems": 42}}
          ],
          "facets": [
            {"metadata": {"title": "Availability"}, "links": [
              {"rel": "self", "href": "?available=all", "title": "All"},
              {"href": "?available=now", "title": "Available now", "properties": {"numberOfItems": 7}}
            ]},
            {"metadata": {"title": "Collection"}, "links": [{"href": "?collection=full", "title": "Everything"}]}
          ],
          "groups": [
            {
              "metadata": {"title": "Mysteries", "numberOfItems": 12},
              "links": [{"rel": "self", "href": "/opds2/lanes/mysteries", "title": "Mysteries"}],
              "publications": [{
                "metadata": {
                  "@type": "http://bib.schema.org/Audiobook", "title": "The Hound", "identifier": "urn:isbn:1",
                  "duration": "PT6H12M", "belongsTo": {"name": "Sherlock Holmes", "position": 5},
                  "author": {"name": "Arthur Conan Doyle", "sortAs": "Doyle, Arthur Conan",
                             "links": [{"href": "/contributors/doyle"}]},
                  "narrator": [{"name": "Jane Reader"}], "translator": "Someone Else",
                  "subject": ["Mystery"]
                },
                "links": [
                  {"rel": "http://opds-spec.org/acquisition", "href": "/works/1/fulfill",
                   "type": "application/vnd.librarysimplified.bearer-token+json",
                   "properties": {
                     "availability": {"state": "ready", "since": "2024-04-01T00:00:00Z", "until": "2024-04-22T00:00:00Z"},
                     "indirectAcquisition": [{"type": "application/audiobook+json"}],
                     "holds": {"total": 3, "position": 0}, "copies": {"total": 2, "available": 0}
                   }},
                  {"rel": "http://librarysimplified.org/terms/rel/revoke", "href": "/works/1/revoke"}
                ],
                "images": [{"rel": "http://opds-spec.org/image/thumbnail", "href": "/covers/1-small.png"},
                           {"rel": "http://opds-spec.org/image", "href": "/covers/1.png"}]
              }],
              "navigation": [{"href": "/opds2/lanes/mysteries/more", "title": "More mysteries"}]
            },
            {
              "metadata": {"title": "Staff picks"},
              "links": [{"rel": "self", "href": "/opds2/lanes/picks"}],
              "publications": [{
                "metadata": {"title": "Priced", "identifier": "urn:isbn:2", "belongsTo": {"series": [{"name": "Series A", "position": 2.5}]}},
                "links": [{"rel": "http://opds-spec.org/acquisition/buy", "href": "/buy/2",
                           "properties": {"price": {"value": 4.99, "currency": "USD"}}}]
              }]
            }
          ]
        }
        """

    @Test("groups: publications with a collection link to their lane, lane navigation, facets, feed links")
    func groupsFeed() throws {
        let (info, entries) = try parseOPDS2(json: Self.groupsFeed)
        #expect(info.version == .opds2)
        #expect(info.title == "Palace Library" && info.updated == "2024-05-01T10:00:00Z")
        #expect(info.entryCount == 2 && entries.count == 2)
        #expect(info.next?.href == "http://127.0.0.1:8080/opds2/?page=2")
        #expect(info.link("http://example.org/rel/more")?.href == "http://127.0.0.1:8080/opds2/?page=2")
        #expect(info.search == OPDSLink(
            href: "http://127.0.0.1:8080/search{?query}", rel: "search", type: "application/opds+json", templated: true))
        #expect(info.shelf?.href == "http://127.0.0.1:8080/loans/")
        #expect(info.link("http://palaceproject.io/terms/rel/sort")?.activeFacet == true)
        #expect(info.navigation == [
            OPDSLink(href: "http://127.0.0.1:8080/opds2/fiction", type: "application/opds+json", title: "Fiction", count: 42),
            OPDSLink(href: "http://127.0.0.1:8080/opds2/lanes/mysteries/more", title: "More mysteries"),
        ])
        #expect(info.facets == [
            OPDSLink(href: "http://127.0.0.1:8080/opds2/?available=all", rel: OPDSVocabulary.relFacet, title: "All",
                     facetGroup: "Availability", activeFacet: true),
            OPDSLink(href: "http://127.0.0.1:8080/opds2/?available=now", rel: OPDSVocabulary.relFacet,
                     title: "Available now", facetGroup: "Availability", count: 7),
            OPDSLink(href: "http://127.0.0.1:8080/opds2/?collection=full", rel: OPDSVocabulary.relFacet,
                     title: "Everything", facetGroup: "Collection"),
        ])
        #expect(info.isNavigation == false)

        let hound = entries[0]
        #expect(hound.links == [OPDSLink(
            href: "http://127.0.0.1:8080/opds2/lanes/mysteries", rel: "collection", title: "Mysteries", count: 12)])
        #expect(hound.duration == 22_320)
        #expect(hound.series == Series(name: "Sherlock Holmes", position: "5"))
        #expect(hound.authors == [Contributor(
            name: "Arthur Conan Doyle", sortName: "Doyle, Arthur Conan", uri: "http://127.0.0.1:8080/contributors/doyle")])
        #expect(hound.contributors == [
            Contributor(name: "Someone Else", roles: ["trl"]), Contributor(name: "Jane Reader", roles: ["nrt"]),
        ])
        #expect(hound.narrators.map(\.name) == ["Jane Reader"])
        #expect(hound.categories == [Category(term: "Mystery", label: "Mystery")])
        #expect(hound.coverURL == "http://127.0.0.1:8080/covers/1.png")
        #expect(hound.thumbnailURL == "http://127.0.0.1:8080/covers/1-small.png")
        #expect(hound.revokeURL == "http://127.0.0.1:8080/works/1/revoke")
        let loan = try #require(hound.acquisitions.first)
        #expect(loan.kind == .generic)
        #expect(loan.availability == Availability(status: "ready", since: utc(2024, 4, 1), until: utc(2024, 4, 22)))
        #expect(loan.holds == Holds(total: 3, position: 0) && loan.copies == Copies(total: 2, available: 0))
        #expect(loan.paths == [["application/vnd.librarysimplified.bearer-token+json", "application/audiobook+json"]])
        // Palace's OPDS 2 calls a loan "ready"; it is the patron's loan (with its due date), not a ready hold.
        #expect(EntryRecord.entitlement(of: hound) == .loan)

        let priced = entries[1]
        #expect(priced.series == Series(name: "Series A", position: "2.5"))
        #expect(priced.acquisitions[0].price == Price(value: "4.99", currency: "USD"))
        #expect(priced.isPaid)
        #expect(priced.links.map(\.href) == ["http://127.0.0.1:8080/opds2/lanes/picks"])
    }

    @Test("a navigation feed: no publications, only ways to other feeds")
    func navigationFeed() throws {
        let (info, entries) = try parseOPDS2(json: """
            {"metadata": {"title": "Example for navigation"},
             "links": [{"rel": "self", "href": "http://127.0.0.1:8080/opds", "type": "application/opds+json"}],
             "navigation": [
               {"href": "/new", "title": "New Publications", "type": "application/opds+json", "rel": "http://opds-spec.org/sort/new"},
               {"href": "/popular", "title": "Popular Publications", "type": "application/opds+json"}]}
            """)
        #expect(entries.isEmpty && info.isNavigation)
        #expect(info.navigation.map(\.href) == ["http://127.0.0.1:8080/new", "http://127.0.0.1:8080/popular"])
        #expect(info.navigation[0].rel == "http://opds-spec.org/sort/new")
    }

    @Test("a feed linking a hundred thousand others keeps only as many as the crawl could follow")
    func navigationIsCappedAsInOPDS1() throws {
        let links = (0..<100_000).map { #"{"href": "/sub/\#($0)", "type": "application/opds+json", "title": "S\#($0)"}"# }
        let json = #"{"metadata": {"title": "Maze"}, "links": [], "navigation": ["# + links.joined(separator: ",") + "]}"
        var document = FeedDocument(baseURL: URL(string: "http://127.0.0.1:8080/opds2/"))
        document.maxNavigation = 201
        let info = try document.parse(data: Data(json.utf8), contentType: "application/opds+json") { _ in }
        #expect(info.navigation.count == 201)
        #expect(info.navigation.last?.href == "http://127.0.0.1:8080/sub/200")
        let (uncapped, _) = try parseOPDS2(json: json)
        #expect(uncapped.navigation.count == 100_000)
    }

    @Test("a single publication document is one entry, as a borrow answers")
    func singlePublication() throws {
        let (info, entries) = try parseOPDS2(json: """
            {"metadata": {"title": "Loaned", "identifier": "urn:isbn:3"},
             "links": [{"rel": "http://opds-spec.org/acquisition", "href": "/fulfill/3",
                        "properties": {"availability": {"state": "available", "until": "2030-01-01T00:00:00Z"}}}]}
            """, contentType: "application/opds-publication+json")
        #expect(entries.map(\.id) == ["urn:isbn:3"])
        #expect(info.links.isEmpty && info.title == nil)
        #expect(entries[0].availability?.until == utc(2030, 1, 1))
    }

    @Test("a borrow's answer is read as one entry in either OPDS")
    func entryInEitherOPDS() throws {
        let document = FeedDocument(baseURL: URL(string: "http://127.0.0.1:8080/works/3/borrow"))
        let json = #"{"metadata": {"title": "Loaned", "identifier": "urn:isbn:3"}, "links": [{"rel": "http://opds-spec.org/acquisition", "href": "fulfill"}]}"#
        let fromJSON = try document.parseEntry(data: Data(json.utf8), contentType: "application/opds-publication+json")
        #expect(fromJSON.id == "urn:isbn:3" && fromJSON.acquisitions.first?.href == "http://127.0.0.1:8080/works/3/fulfill")
        let xml = #"<entry xmlns="http://www.w3.org/2005/Atom"><id>urn:isbn:3</id><title>Loaned</title></entry>"#
        #expect(try document.parseEntry(data: Data(xml.utf8), contentType: "application/atom+xml").id == "urn:isbn:3")
        let empty = parseError {
            _ = try document.parseEntry(data: Data(#"{"metadata": {"title": "x"}, "publications": []}"#.utf8), contentType: nil)
        }
        #expect(empty == .wrongShape(reason: "it holds no publication"))
    }

    @Test(
        "documents that are not OPDS 2 feeds give one clear error, never malformed XML",
        arguments: [
            ("<html><body>Sign in</body></html>", "application/opds+json",
             OPDSParseError.notJSON(reason: "invalid value around character 0; it starts with '<', like an HTML or XML page")),
            ("{\"metadata\": {\"title\": \"x\"", "application/json",
             .notJSON(reason: "unexpected end of file during JSON parse")),
            ("[1, 2, 3]", nil, .wrongShape(reason: "the document is a list, not an object")),
            ("\"just a string\"", "application/opds+json", .wrongShape(reason: "the document is not an object")),
            ("{\"error\": \"not found\"}", nil, .wrongShape(reason: "no metadata, links, navigation or publications")),
            ("{\"metadata\": {}, \"publications\": {\"a\": 1}}", nil, .wrongShape(reason: "publications is not a list")),
            ("{\"metadata\": {\"title\": \"Book\"}, \"readingOrder\": [{\"href\": \"a.mp3\"}], \"links\": []}", nil,
             .wrongShape(reason: "it is a publication manifest, not a catalog")),
            ("{\"id\": \"http://lib/auth\", \"title\": \"Library\", \"authentication\": [{\"type\": \"http://opds-spec.org/auth/basic\"}]}",
             "application/vnd.opds.authentication.v1.0+json", .authenticationDocument),
        ] as [(String, String?, OPDSParseError)])
    func notFeeds(document: String, contentType: String?, expected: OPDSParseError) {
        let error = parseError { _ = try parseOPDS2(json: document, contentType: contentType) }
        #expect(error == expected)
        let message = FeedError.parse(expected).description
        #expect(!message.contains("malformed") && !message.contains("\n") && message.contains(";"))
    }

    @Test("a real Authentication for OPDS document fetched as a feed says what it is",
          .enabled(if: FixturePaths.sharedAvailable, "../shared/fixtures-real is absent"))
    func realAuthenticationDocument() throws {
        let data = try Data(contentsOf: FixturePaths.shared("auth/nypl-20190603.json"))
        let error = parseError {
            _ = try FeedDocument(baseURL: nil).parse(data: data, contentType: "application/json") { _ in }
        }
        #expect(error == .authenticationDocument)
    }

    @Test("bounded: a document above the size limit or nested deeper than the depth limit is refused before parsing")
    func limits() throws {
        let small = OPDS2Parser(maxDocumentBytes: 1_000, maxDepth: 8)
        let big = "{\"metadata\": {\"title\": \"" + String(repeating: "a", count: 2_000) + "\"}, \"publications\": []}"
        #expect(parseError { _ = try small.parse(data: Data(big.utf8)) { _ in } } == .tooLarge(limit: 1_000))
        let deep = String(repeating: "[", count: 9) + String(repeating: "]", count: 9)
        #expect(parseError { _ = try small.parse(data: Data(deep.utf8)) { _ in } } == .tooDeep(limit: 8))
        // Brackets inside strings do not count.
        let quoted = "{\"metadata\": {\"title\": \"[[[[[[[[[[{{{{{{\\\"\"}, \"publications\": []}"
        #expect(try small.parse(data: Data(quoted.utf8)) { _ in }.title == "[[[[[[[[[[{{{{{{\"")
        // The default depth is far above a real feed's, far below what could exhaust the stack.
        let hostile = String(repeating: "[", count: 100_000)
        #expect(parseError { _ = try OPDS2Parser().parse(data: Data(hostile.utf8)) { _ in } } == .tooDeep(limit: 64))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("opds2-\(UUID().uuidString).json")
        try Data(big.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(parseError { _ = try small.parse(file: file) { _ in } } == .tooLarge(limit: 1_000))
        #expect(FeedError.parse(.tooLarge(limit: 32 << 20)).description == "the document is larger than 32 MB; refusing it")
    }

    @Test("JSON is recognised by its first byte even when the server calls it XML; XML stays XML")
    func sniffing() throws {
        #expect(FeedDocument.isJSON(contentType: "application/xml", firstByte: UInt8(ascii: "{")))
        #expect(FeedDocument.isJSON(contentType: "application/opds+json", firstByte: UInt8(ascii: "<")))
        #expect(!FeedDocument.isJSON(contentType: "application/atom+xml", firstByte: UInt8(ascii: "<")))
        #expect(!FeedDocument.isJSON(contentType: nil, firstByte: UInt8(ascii: "<")))
        let (info, _) = try parseOPDS2(json: "\u{FEFF}  {\"metadata\": {\"title\": \"T\"}, \"publications\": []}", contentType: "text/xml")
        #expect(info.title == "T" && info.version == .opds2)
    }
}
