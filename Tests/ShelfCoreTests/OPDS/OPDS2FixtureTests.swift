import Foundation
import Testing

@testable import ShelfCore

/// Parses a file of Fixtures/opds2 through the same entry point a sync uses.
func parseOPDS2(_ name: String) throws -> (OPDSFeedInfo, [OPDSEntry]) {
    var entries: [OPDSEntry] = []
    let url = FixturePaths.packageRoot.appendingPathComponent("Fixtures/opds2/\(name)")
    let info = try FeedDocument(baseURL: nil).parse(file: url, contentType: "application/opds+json") {
        entries.append($0)
    }
    return (info, entries)
}

/// Real OPDS 2 documents from Readium's and The Palace Project's repositories (Fixtures/opds2/SOURCES.md).
@Suite("OPDS 2 parser: real documents", .timeLimit(.minutes(5)))
struct OPDS2FixtureTests {
    /// How many publications each file has and how many of them must be skipped (no identifier or self link).
    static let files: [String: (publications: Int, skipped: Int)] = [
        "readium-swift-toolkit-opds_2_0.json": (5, 0),
        "palace-circulation-opds2-feed.json": (3, 0),
        "palace-circulation-opds2-bad_feed.json": (3, 0),
        "palace-circulation-opds2-tf.json": (4, 0),
        "palace-circulation-odl2-feed.json": (3, 0),
        "palace-webpub-manifest-parser-opds2-feed.json": (2, 0),
    ]

    @Test("every document in Fixtures/opds2 parses as an OPDS 2 feed with every publication")
    func everyFile() throws {
        let directory = FixturePaths.packageRoot.appendingPathComponent("Fixtures/opds2")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(Set(names) == Set(Self.files.keys))
        for name in names {
            let (info, entries) = try parseOPDS2(name)
            let expected = try #require(Self.files[name])
            #expect(info.version == .opds2, "\(name)")
            #expect(info.entryCount == entries.count, "\(name)")
            #expect(entries.count == expected.publications - expected.skipped, "\(name)")
            #expect(entries.allSatisfy { !$0.id.isEmpty }, "\(name)")
            #expect(info.title?.isEmpty == false, "\(name)")
            #expect(info.link("self") != nil, "\(name)")
        }
    }

    @Test("Palace's feed: an audiobook with its duration, a borrow with nested indirect acquisitions, templates")
    func palaceFeed() throws {
        let (info, entries) = try parseOPDS2("palace-circulation-opds2-feed.json")
        #expect(info.title == "Example listing publications")
        #expect(info.links == [OPDSLink(href: "http://example.com/new", rel: "self", type: "application/opds+json")])
        #expect(info.navigation.isEmpty && info.warnings.isEmpty)

        let moby = entries[0]
        #expect(moby.id == "urn:isbn:978-3-16-148410-0")
        #expect(moby.title == "Moby-Dick")
        #expect(moby.additionalType == "http://schema.org/Audiobook")
        #expect(moby.duration == 100.2)
        #expect(moby.authors == [Contributor(name: "Herman Melville")])
        #expect(moby.publisher == "Test Publisher")
        #expect(moby.language == "en")
        #expect(moby.published == "2015-09-29T00:00:00Z")
        #expect(moby.updated == "2015-09-29T17:00:00Z")
        #expect(moby.categories == [Category(scheme: "http://schema.org/audience", term: "juvenile-fiction", label: "Juvenile Fiction")])
        #expect(moby.coverURL == "http://example.org/cover.jpg")
        #expect(moby.thumbnailURL == "http://example.org/cover-small.jpg")
        #expect(moby.acquisitions == [Acquisition(
            kind: .openAccess, rel: "http://opds-spec.org/acquisition/open-access",
            href: "http://example.org/moby-dick.epub", type: "application/audiobook+json")])
        #expect(moby.links == [OPDSLink(href: "http://example.org/publication.json", rel: "self", type: "application/audiobook+json")])
        #expect(moby.isAudiobook)

        let huck = entries[1]
        #expect(huck.summary?.hasPrefix("Adventures of Huckleberry Finn is a novel by Mark Twain") == true)
        #expect(huck.authors.map(\.name) == ["Mark Twain", "Samuel Langhorne Clemens"])
        #expect(huck.language == "eng")
        #expect(huck.coverURL == "http://example.org/cover.jpg" && huck.thumbnailURL == nil)
        let borrow = huck.acquisitions[0]
        #expect(borrow.kind == .borrow)
        #expect(borrow.availability == Availability(status: "available"))
        #expect(borrow.paths == [
            ["application/opds-publication+json", "application/vnd.adobe.adept+xml", "application/epub+zip"],
            ["application/opds-publication+json", "application/vnd.readium.lcp.license.v1.0+json", "application/epub+zip"],
        ])
        #expect(huck.acquisitions[1].kind == .sample)

        let politics = entries[2]
        #expect(politics.acquisitions.map(\.href) == [
            "https://example.com/getAcsmFile.action?documentId=181639&mediaType=epub{&authentication_token}",
            "https://example.com/getAcsmFile.action?documentId=181639&mediaType=pdf{&authentication_token}",
        ])
        #expect(politics.acquisitions.map(\.paths) == [
            [["application/vnd.adobe.adept+xml", "application/epub+zip"]],
            [["application/vnd.adobe.adept+xml", "application/pdf"]],
        ])
        // Four unlabelled images: the first is the cover, the smallest other one the thumbnail.
        #expect(politics.coverURL == "https://example.com/covers/181639-s.jpg")
        #expect(politics.thumbnailURL == nil)
    }

    @Test("Palace's broken feed: bad contributors left out; no identifier means the self link, no title a warning")
    func palaceBadFeed() throws {
        let (info, entries) = try parseOPDS2("palace-circulation-opds2-bad_feed.json")
        #expect(entries[0].title.isEmpty)
        #expect(entries[0].id == "http://example.org/publication.json")
        #expect(info.warnings == ["publication 1 (http://example.org/publication.json) has no title"])
        #expect(entries[1].authors.map(\.name) == ["Mark Twain", "Samuel Langhorne Clemens", "Test 123"])
        #expect(entries[1].contributors.isEmpty)
        #expect(entries[1].language == "enzz, qx")
        #expect(entries[2].acquisitions.isEmpty && entries[2].links.isEmpty)
    }

    @Test("Taylor & Francis: contributors and subjects as strings, editors by role, templated open access")
    func taylorAndFrancis() throws {
        let (info, entries) = try parseOPDS2("palace-circulation-opds2-tf.json")
        #expect(info.title == "ENTITLED BOOK LIST FOR NYU")
        #expect(info.links.map(\.rel) == ["self", "first", "last", "token_endpoint"])
        #expect(info.links[3].templated)
        #expect(info.next == nil)
        let gulf = entries[0]
        #expect(gulf.id == "urn:isbn:9780203992104")
        #expect(gulf.authors == [Contributor(name: "Kamran Mofid")])
        #expect(gulf.publisher == "Routledge")
        #expect(gulf.published == "2005-10-26")
        #expect(gulf.categories.map(\.term) == ["Economics, Finance, Business & Industry", "Politics & International Relations"])
        #expect(gulf.acquisitions.map(\.kind) == [.openAccess, .openAccess])
        #expect(gulf.acquisitions[1].type == "application/pdf")
        #expect(gulf.coverURL == "https://images.tandf.co.uk/common/jackets/crclarge/978020399/9780203992104.jpg")
        #expect(entries[1].contributors == [Contributor(name: "Gail Turley Houston", roles: ["edt"])])
        #expect(entries[1].authors.isEmpty)
    }

    @Test("Readium's feed: publishers as lists, a contributor with a MARC role and one without")
    func readiumFeed() throws {
        let (info, entries) = try parseOPDS2("readium-swift-toolkit-opds_2_0.json")
        #expect(info.title == "Readium 2 OPDS 2.0 Feed")
        #expect(info.updated == "2017-07-12T17:38:39.105944198+02:00")
        #expect(entries.map(\.id) == [
            "urn:uuid:36d5078e-ff7d-468e-a5f3-f47c14b91f2f", "http://www.gutenberg.org/ebooks/25545",
            "code.google.com.epub-samples.moby-dick-basic", "urn:isbn:9780316000000",
            "code.google.com.epub-samples.cc-shared-culture",
        ])
        #expect(entries[0].authors.count == 7)
        #expect(entries[2].publisher == "Harper & Brothers, Publishers")
        #expect(entries[2].contributors == [Contributor(name: "Dave Cramer", roles: ["mrk"])])
        #expect(entries[4].contributors == [Contributor(name: "mgylling")])
        #expect(entries[4].summary == "Multiple video tests (see Navigation Document (toc) for details)")
        #expect(entries[1].categories.map(\.label) == ["Children -- Books and reading", "Children's literature -- Study and teaching"])
        // The image's relation is `cover`, which OPDS 1 feeds write too.
        #expect(entries[3].coverURL == "https://readium2.feedbooks.net/Ym9va3MvbW9ieS1kaWNrX2xjcC5lcHVi/OPS/images/9780316000000.jpg")
        #expect(entries[3].links.map(\.rel) == ["license", "self"])
        #expect(entries.allSatisfy { $0.series == nil && $0.acquisitions.isEmpty })
    }

    @Test("ODL 2 and the parser's own feed: a borrow with availability until, distributor licenses left alone")
    func odlAndParserFeeds() throws {
        let (_, odl) = try parseOPDS2("palace-circulation-odl2-feed.json")
        #expect(odl[0].acquisitions.map(\.kind) == [.sample])
        #expect(odl[1].title.isEmpty && odl[1].id == "urn:isbn:9781234567897")
        #expect(odl[2].acquisitions.isEmpty)

        let (_, parser) = try parseOPDS2("palace-webpub-manifest-parser-opds2-feed.json")
        #expect(parser[1].language == "eng, fre")
        let borrow = parser[1].acquisitions[0]
        #expect(borrow.availability == Availability(status: "available", until: utc(2019, 9, 29, 1, 3, 2)))
        #expect(borrow.href.hasPrefix("http://montreal.pretnumerique.ca/v1/media/EDEN656014-9782404012711-epub/"))
    }
}
