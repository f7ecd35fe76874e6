import Foundation
import Testing

@testable import ShelfCore

/// Documents captured from The Palace Project's public repositories, kept outside this repository in
/// ../shared/fixtures-real. The suite is skipped, not failed, on a machine that does not have them.
@Suite(
    "OPDS parser: real Palace documents",
    .enabled(if: FixturePaths.sharedAvailable, "../shared/fixtures-real is absent; real-document tests skipped"),
    .timeLimit(.minutes(5)))
struct OPDSRealFixtureTests {
    private func entry(_ relative: String) throws -> OPDSEntry {
        try OPDSParser().parseEntry(data: Data(contentsOf: FixturePaths.shared(relative)))
    }

    // MARK: Every file

    /// Files that are broken on purpose, with the error each one must give.
    static let deliberatelyBroken: [String: OPDSParseError] = [
        "opds/bad-not-xml.xml": .malformed(line: 1, column: 1, message: "Document is empty")
    ]

    @Test("every XML document in opds/, entries/ and circulation/ parses or gives its expected error")
    func everyFile() throws {
        var seen = 0
        for folder in ["opds", "entries", "circulation"] {
            let directory = FixturePaths.shared(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            for name in names where name.hasSuffix(".xml") || name.hasSuffix(".opds") {
                seen += 1
                let relative = "\(folder)/\(name)"
                do {
                    var entries: [OPDSEntry] = []
                    let info = try OPDSParser().parse(file: directory.appendingPathComponent(name)) {
                        entries.append($0)
                    }
                    #expect(Self.deliberatelyBroken[relative] == nil, "\(relative) should have failed")
                    #expect(info.entryCount == entries.count)
                    #expect(entries.allSatisfy { !$0.id.isEmpty && !$0.title.isEmpty }, "\(relative)")
                    #expect(info.warnings.isEmpty, "\(relative): \(info.warnings)")
                } catch let error as OPDSParseError {
                    #expect(Self.deliberatelyBroken[relative] == error, "\(relative): \(error)")
                }
            }
        }
        #expect(seen >= 39)
    }

    // MARK: Availability entries

    @Test(
        "availability entries: status, dates, holds and copies",
        arguments: [
            ("held-indefinite-queued", "reserved", utc(2000, 1, 1), nil, 3, 0, 1),
            ("held-indefinite", "reserved", utc(2000, 1, 1), nil, nil, 0, 1),
            ("held-timed-queued", "reserved", utc(2000, 1, 1), utc(2010, 1, 1), 3, 0, 1),
            ("held-timed", "reserved", utc(2000, 1, 1), utc(2010, 1, 1), nil, 0, 1),
            ("heldready", "ready", utc(2000, 1, 1), nil, nil, 0, 1),
            ("heldready-timed", "ready", utc(2000, 1, 1), utc(2010, 1, 1), nil, 0, 1),
            ("heldready-specific0", "ready", nil, utc(2015, 8, 24, 0, 30, 24), nil, 0, 2),
            ("loaned-indefinite", "available", utc(2000, 1, 1), nil, nil, 1, 1),
            ("loaned-timed", "available", utc(2000, 1, 1), utc(2010, 1, 1), nil, 1, 1),
        ] as [(String, String, Date?, Date?, Int?, Int, Int)])
    func availability(
        _ name: String, _ status: String, _ since: Date?, _ until: Date?, _ position: Int?, _ available: Int,
        _ total: Int
    ) throws {
        let entry = try entry("entries/entry-availability-\(name).xml")
        #expect(entry.availability == Availability(status: status, since: since, until: until))
        #expect(entry.holds == Holds(total: 0, position: position))
        #expect(entry.copies == Copies(total: total, available: available))
        #expect(entry.revokeURL == "http://example.com/revoke")
    }

    @Test("holdable and loanable entries have copies but no availability element")
    func holdableAndLoanable() throws {
        let holdable = try entry("entries/entry-availability-holdable.xml")
        #expect(holdable.availability == nil)
        #expect(holdable.copies == Copies(total: 1, available: 0))
        #expect(holdable.acquisitions.map(\.kind) == [.borrow])
        #expect(holdable.revokeURL == nil)
        let loanable = try entry("entries/entry-availability-loanable.xml")
        #expect(loanable.copies == Copies(total: 1, available: 1))
        #expect(loanable.holds == Holds(total: 0))
    }

    @Test("open-access entry: an open-access and a borrow acquisition")
    func openAccess() throws {
        let entry = try entry("entries/entry-availability-open-access.xml")
        #expect(entry.id == "Open-Access")
        #expect(entry.acquisitions.map(\.kind) == [.openAccess, .borrow])
        #expect(entry.acquisitions.last?.href == "http://example.com/Open-Access")
    }

    @Test("loaned-timed: the indirect acquisition tree gives two root-to-leaf paths, and a narrator")
    func loanedTimedPaths() throws {
        let entry = try entry("entries/entry-availability-loaned-timed.xml")
        let acquisition = try #require(entry.acquisitions.first)
        #expect(entry.acquisitions.count == 1)
        #expect(acquisition.kind == .generic)
        #expect(acquisition.rel == "http://opds-spec.org/acquisition")
        #expect(acquisition.href == "https://example.com/borrow")
        #expect(acquisition.indirect.count == 2)
        #expect(
            acquisition.paths == [
                [
                    "application/atom+xml;relation=entry;profile=opds-catalog", "application/vnd.adobe.adept+xml",
                    "application/epub+zip",
                ],
                [
                    "application/atom+xml;relation=entry;profile=opds-catalog",
                    "application/atom+xml;type=entry;profile=opds-catalog",
                    "text/html;profile=http://librarysimplified.org/terms/profiles/streaming-media",
                ],
            ])
        #expect(entry.narrators.map(\.name) == ["Alan Cumming"])
        #expect(entry.authors.map(\.name) == ["Author"])
        #expect(entry.additionalType == "http://schema.org/Book")
        #expect(entry.summary == "")
        #expect(entry.updated == "2015-08-17T20:37:53Z")
        #expect(entry.published == "2014-08-29T10:46:42Z")
    }

    @Test("heldready-specific0: cover, thumbnail, categories and HTML summary kept as given")
    func heldReadySpecific() throws {
        let entry = try entry("entries/entry-availability-heldready-specific0.xml")
        #expect(entry.id == "urn:librarysimplified.org/terms/id/3M%20ID/arzopz9")
        #expect(entry.title == "The Belly of the Bow")
        #expect(entry.coverURL == "https://dlotdqc6pnwqb.cloudfront.net/3M/arzopz9/cover.jpg")
        #expect(entry.thumbnailURL == "https://dlotdqc6pnwqb.cloudfront.net/scaled/300/3M/arzopz9/cover.jpg")
        #expect(entry.categories.map(\.term) == ["Adult", "Adventure", "Fantasy"])
        #expect(entry.categories.first?.scheme == "http://schema.org/audience")
        #expect(entry.summary?.hasPrefix("<b><i>Colours in the Steel</i>,") == true)
        #expect(entry.summary?.hasSuffix("<br /><br />") == true)
    }

    // MARK: Feeds

    @Test("minotaur: 123 audiobook entries with their DRM types, narrators, distributors and categories")
    func minotaur() throws {
        let (info, entries) = try parseAll(FixturePaths.shared("opds/minotaur-20231113.xml"))
        #expect(entries.count == 123)
        #expect(info.entryCount == 123)
        #expect(info.id == "https://minotaur.dev.palaceproject.io/minotaur-test-library/groups/")
        #expect(info.title == "Minotaur Test Library")
        #expect(info.updated == "2023-11-13T13:10:28+00:00")
        #expect(info.links.count == 10)
        #expect(info.shelf?.href == "https://minotaur.dev.palaceproject.io/minotaur-test-library/loans/")
        #expect(
            info.authDocument?.href
                == "https://minotaur.dev.palaceproject.io/minotaur-test-library/authentication_document")
        #expect(info.link("start")?.title == "All Books")
        #expect(
            info.links.filter { $0.rel == "http://opds-spec.org/facet" }.map(\.title) == [
                "All", "eBooks", "Audiobooks",
            ])
        #expect(info.next == nil)

        #expect(entries.allSatisfy { $0.isAudiobook })
        let leaves = entries.flatMap { $0.acquisitions.flatMap { $0.paths.compactMap(\.last) } }
        #expect(leaves.filter { $0 == "application/vnd.librarysimplified.findaway.license+json" }.count == 59)
        #expect(leaves.filter { $0 == "application/audiobook+lcp" }.count == 46)
        #expect(leaves.filter { $0.hasPrefix("application/audiobook+json;profile=") }.count == 27)
        let bearer = entries.flatMap { $0.acquisitions.flatMap(\.paths) }
            .filter { $0.contains("application/vnd.librarysimplified.bearer-token+json") }
        #expect(bearer.count == 18)
        #expect(bearer.allSatisfy { $0.last == "application/audiobook+json" })
        #expect(
            Set(entries.compactMap(\.distributor)) == ["Palace Marketplace", "BiblioBoard", "Bibliotheca", "Axis 360"])
        #expect(entries.filter { !$0.narrators.isEmpty }.count == 103)

        let first = try #require(entries.first)
        #expect(first.id == "urn:isbn:9781488208676")
        #expect(first.title == "The Black Swan of Paris")
        #expect(first.subtitle == "A WWII Novel")
        #expect(first.distributor == "Palace Marketplace")
        #expect(first.publisher == "Harlequin Audio")
        #expect(first.issued == "2020-06-30")
        #expect(first.language == "en")
        #expect(first.published == "2022-12-16T00:00:00Z")
        #expect(first.additionalType == "http://bib.schema.org/Audiobook")
        #expect(first.narrators == [Contributor(name: "Nancy Peterson", roles: ["nrt"])])
        #expect(first.authors.map(\.name) == ["Karen Robards"])
        #expect(
            first.authors.first?.uri?.hasPrefix(
                "https://minotaur.dev.palaceproject.io/minotaur-test-library/works/contributor/Karen%20Robards/")
                == true)
        #expect(
            first.categories == [
                Category(
                    scheme: "http://librarysimplified.org/terms/fiction/",
                    term: "http://librarysimplified.org/terms/fiction/Fiction", label: "Fiction"),
                Category(
                    scheme: "http://librarysimplified.org/terms/genres/Simplified/",
                    term: "http://librarysimplified.org/terms/genres/Simplified/Suspense/Thriller",
                    label: "Suspense/Thriller"),
                Category(
                    scheme: "http://librarysimplified.org/terms/genres/Simplified/",
                    term: "http://librarysimplified.org/terms/genres/Simplified/Historical%20Fiction",
                    label: "Historical Fiction"),
                Category(scheme: "http://schema.org/audience", term: "Adult", label: "Adult"),
            ])
        #expect(first.coverURL == "https://covers.feedbooks.net/item/3304283.jpg?size=large&t=1683074249")
        #expect(first.thumbnailURL == "https://covers.feedbooks.net/item/3304283.jpg?t=1683074249")
        #expect(
            first.annotationsURL
                == "https://minotaur.dev.palaceproject.io/minotaur-test-library/annotations/ISBN/9781488208676")
        #expect(
            first.links.map(\.rel) == [
                "alternate", "related", "http://librarysimplified.org/terms/rel/analytics/open-book", "collection",
            ])
        let borrow = try #require(first.acquisitions.first)
        #expect(borrow.kind == .borrow)
        #expect(
            borrow.href == "https://minotaur.dev.palaceproject.io/minotaur-test-library/works/ISBN/9781488208676/borrow"
        )
        #expect(
            borrow.paths.map { $0.dropFirst().joined(separator: " > ") } == [
                "application/audiobook+json;profile=\"http://www.feedbooks.com/audiobooks/access-restriction\"",
                "application/vnd.readium.lcp.license.v1.0+json > application/audiobook+lcp",
            ])
        #expect(borrow.availability == Availability(status: "available"))
        #expect(first.copies == Copies(total: 2, available: 2))

        let sawyer = try #require(
            entries.first { $0.id == "urn:librarysimplified.org/terms/id/Axis%20360%20ID/0012407928" })
        #expect(sawyer.title == "The Adventures of Tom Sawyer")
        #expect(sawyer.distributor == "Axis 360")
        #expect(sawyer.narrators.map(\.name) == ["Becker, Thomas"])
        #expect(
            sawyer.acquisitions.first?.paths.first?.last == "application/vnd.librarysimplified.findaway.license+json")
        let third = entries[2]
        #expect(
            third.narrators.map(\.name) == ["Edoardo Ballerini", "Jonathan Davis", "Mozhan Marnò", "Orlagh Cassidy"])
    }

    @Test("circulation audiobooks: one open-access audiobook manifest, Cyrillic categories, multi-line summary")
    func circulationAudiobooks() throws {
        let (info, entries) = try parseAll(FixturePaths.shared("opds/circulation-audiobooks.opds"))
        #expect(info.title == "Librivox Audiobooks")
        #expect(info.link("self")?.href == "https://s3.amazonaws.com/open.minitex.org/librevox")
        let entry = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(entry.id == "urn:uuid:836f559f-3bfd-4b33-96f7-0bd1878a5dab")
        #expect(entry.acquisitions.count == 1)
        #expect(entry.acquisitions.first?.kind == .openAccess)
        #expect(entry.acquisitions.first?.type == "application/audiobook+json")
        #expect(entry.acquisitions.first?.paths == [["application/audiobook+json"]])
        #expect(entry.isAudiobook)
        #expect(!entry.isPaid)
        #expect(entry.issued == "2008")
        #expect(entry.publisher == "LibriVox")
        // The feed really has a C1 control character (U+0086) after "Dimitrij"; text is kept as given.
        #expect(entry.authors.map(\.name) == ["Dimitrij\u{86}, Saint Metropolitan of Rostov"])
        #expect(entry.categories.count == 11)
        #expect(
            entry.categories.contains(
                Category(term: "Святитель Димитрій Ростовскій", label: "Святитель Димитрій Ростовскій")))
        #expect(entry.summary?.hasPrefix("Librivox recording of Жития Святых") == true)
        #expect(entry.summary?.hasSuffix("part 3 (134MB)") == true)
    }

    @Test("next-0, next-1, next-2: consecutive pages linked by next, resolved against the page URL")
    func pagination() throws {
        let base = URL(string: "https://example.com/catalog/next-0.xml")!
        let (first, firstEntries) = try parseAll(FixturePaths.shared("opds/next-0.xml"), baseURL: base)
        #expect(first.title == "Next 0")
        #expect(first.next?.href == "https://example.com/next-1.xml")
        #expect(firstEntries.map(\.title) == ["Book 0", "Book 1", "Book 2"])
        #expect(firstEntries.first?.coverURL == "https://example.com/catalog/strawberries.png")
        #expect(firstEntries.first?.acquisitions.first?.href == "https://example.com/catalog/nonexistent")
        #expect(firstEntries.first?.copies == Copies(total: 1, available: 1))

        let (second, secondEntries) = try parseAll(FixturePaths.shared("opds/next-1.xml"))
        #expect(second.next?.href == "/next-2.xml")
        #expect(secondEntries.map(\.title) == ["Book 3", "Book 4", "Book 5"])
        let (third, _) = try parseAll(FixturePaths.shared("opds/next-2.xml"))
        #expect(third.next == nil)
    }

    @Test("acquisition-paginated-0: 50 entries and a next link")
    func paginatedAcquisitionFeed() throws {
        let (info, entries) = try parseAll(FixturePaths.shared("opds/acquisition-paginated-0.xml"))
        #expect(entries.count == 50)
        #expect(info.id == "/NYNYPL/feed/13")
        #expect(
            info.next?.href.hasPrefix(
                "https://d2txvnljjb5oij.cloudfront.net/NYNYPL/feed/13?available=now&collection=full") == true)
        #expect(entries.first?.title == "A   Woman of Virtue")
        #expect(entries.first?.authors.map(\.name) == ["Liz Carlyle"])
    }

    @Test("loans: two loans with fulfil links, availability windows and revoke links")
    func loans() throws {
        let (info, entries) = try parseAll(FixturePaths.shared("opds/loans.xml"))
        #expect(info.title == "Active loans and holds")
        #expect(entries.count == 2)
        #expect(entries[0].title == "101 Things I Learned ® in Culinary School")
        #expect(entries[0].acquisitions.first?.kind == .generic)
        #expect(
            entries[0].acquisitions.first?.href
                == "http://circulation.alpha.librarysimplified.org/works/3M/bev589/fulfill")
        #expect(entries[0].availability == Availability(status: "available", since: utc(2000, 1, 1)))
        #expect(entries[0].revokeURL == "http://circulation.alpha.librarysimplified.org/loans/3M/bev589/revoke")
        #expect(entries[0].categories.map(\.term).contains("Reference & Study Aids"))
        #expect(entries[1].title == "The Accidental Genie")
        #expect(entries[1].availability?.until == utc(3000, 1, 1))
        #expect(entries[1].summary?.hasPrefix("She’s all bottled up.") == true)
    }

    @Test("empty feed, namespaces-0 and entry-0")
    func smallDocuments() throws {
        let (empty, none) = try parseAll(FixturePaths.shared("opds/empty-0.xml"))
        #expect(none.isEmpty)
        #expect(empty.title == "Fiction: featured")
        #expect(empty.links.count == 3)
        #expect(empty.links.first?.rel == nil)
        #expect(empty.link("search")?.type == "application/opensearchdescription+xml")

        let (namespaces, _) = try parseAll(FixturePaths.shared("opds/namespaces-0.xml"))
        #expect(namespaces.id == "http://library-simplified.herokuapp.com/feed/Fiction")

        let entry = try entry("opds/entry-0.xml")
        #expect(entry.id.hasSuffix("a5820afd0e9a"))
        #expect(
            entry.summary
                == "50 favourite nursery rhymes, contains lots of the most\n    common nursery rhymes and all those you may have forgotten!"
        )
        #expect(entry.publisher == "Large Publisher")
        #expect(entry.revokeURL == "http://example.com/revoke")
        #expect(
            entry.links == [OPDSLink(href: "http://example.com/preview", rel: "preview", type: "application/epub+zip")])
    }

    @Test("bad-uri-syntax: an href that is not a valid URI is kept as written, the rest still resolves")
    func badURISyntax() throws {
        let base = URL(string: "https://example.com/feeds/")!
        let (_, entries) = try parseAll(FixturePaths.shared("opds/bad-uri-syntax.xml"), baseURL: base)
        let entry = try #require(entries.first)
        #expect(entry.coverURL == "http:// clearly not valid")
        #expect(entry.thumbnailURL?.hasSuffix("/cover.jpg") == true)
        // Its `<author><name></name></author>` names nobody, so no author is kept.
        #expect(entry.authors.isEmpty)
        #expect(entry.language == "en")
        #expect(entry.acquisitions.first?.kind == .borrow)
    }

    @Test("date-bug: id after the links, pre-1970 issued date, open-access with availability")
    func dateBug() throws {
        let entry = try entry("opds/date-bug.xml")
        #expect(entry.id == "http://www.feedbooks.com/book/2837")
        #expect(entry.title == "Anthem")
        #expect(entry.issued == "1938-05-01")
        #expect(entry.issuedDate == utc(1938, 5, 1))
        #expect(entry.updatedDate == utc(2020, 5, 2, 15, 0, 55))
        #expect(entry.publishedDate == utc(2018, 3, 25))
        #expect(entry.distributor == "FeedBooks")
        #expect(entry.acquisitions.map(\.kind) == [.openAccess])
        #expect(entry.availability == Availability(status: "available"))
        #expect(
            entry.authors.first?.uri?.hasPrefix("https://openbookshelf.dp.la/OB/works/contributor/Ayn%20Rand/") == true)
        #expect(entry.summary?.contains("\r") == true)
    }

    @Test("entry with DRM licensor and entry with no supported format still parse completely")
    func drmAndUnsupported() throws {
        let drm = try entry("opds/entry-with-drm.xml")
        #expect(drm.title == "Hot, Sour, Salty, Sweet")
        #expect(drm.revokeURL == "http://qa.circulation.librarysimplified.org/NYNYPL/loans/198679/revoke")
        #expect(
            drm.acquisitions.contains {
                $0.href == "http://qa.circulation.librarysimplified.org/NYNYPL/works/198679/fulfill/2"
            })
        let unsupported = try entry("opds/entry-no-supported-format.xml")
        #expect(unsupported.title == "The Madman's Daughter")
    }

    // MARK: Circulation responses

    @Test("borrow response: a generic acquisition with a loan window, revoke and annotation links")
    func borrowResponse() throws {
        let entry = try entry("circulation/borrow-audiobook-0.xml")
        #expect(entry.id == "urn:librarysimplified.org/terms/id/Bibliotheca%20ID/hxaee89")
        #expect(entry.title == "Most Dangerous")
        #expect(entry.subtitle == "Daniel Ellsberg and the Secret History of the Vietnam War")
        #expect(entry.distributor == "Bibliotheca")
        #expect(entry.publisher == "Random House")
        let acquisition = try #require(entry.acquisitions.first)
        #expect(acquisition.kind == .generic)
        #expect(acquisition.href == "http://example.com/fulfill/0")
        #expect(acquisition.type == "application/vnd.librarysimplified.findaway.license+json")
        #expect(
            acquisition.availability
                == Availability(
                    status: "available", since: utc(2018, 10, 5, 12, 51, 6), until: utc(2018, 10, 26, 18, 51, 7)))
        #expect(entry.copies == Copies(total: 5, available: 5))
        #expect(entry.revokeURL == "http://example.com/revoke/0")
        #expect(
            entry.annotationsURL
                == "http://qa.circulation.librarysimplified.org/NYNYPL/annotations/Bibliotheca%20ID/hxaee89/")
        #expect(entry.isAudiobook)
    }

    @Test("revoke responses: the revoked entry is a borrowable one again; an empty feed holds no entry")
    func revokeResponses() throws {
        let revoked = try entry("circulation/revoke-audiobook-0.xml")
        #expect(revoked.acquisitions.map(\.kind) == [.borrow])
        #expect(
            revoked.acquisitions.first?.paths.last?.last == "application/vnd.librarysimplified.findaway.license+json")
        #expect(revoked.copies == Copies(total: 5, available: 4))
        #expect(revoked.revokeURL == nil)

        let failing = try entry("circulation/revoke-error-bad-feed-type.xml")
        #expect(failing.revokeURL == "http://example.com/revoke/fails")

        #expect(throws: OPDSParseError.notAtom(root: "a feed with no entry")) {
            try OPDSParser().parseEntry(
                data: Data(contentsOf: FixturePaths.shared("circulation/revoke-error-empty-feed-revoke.xml")))
        }

        let (info, entries) = try parseAll(FixturePaths.shared("circulation/testBooksRevokeCorrectURI.xml"))
        #expect(info.id == "urn:feed:0")
        #expect(entries.first?.revokeURL == "urn:book:0:revoke")
        #expect(entries.first?.acquisitions.first?.href == "urn:book:0:book.epub")
    }

    @Test("buy-only and unsupported-type responses")
    func buyAndUnsupported() throws {
        let buy = try entry("circulation/feed-only-buy-acquisitions.xml")
        #expect(buy.acquisitions.map(\.kind) == [.buy])
        #expect(buy.isPaid)
        let unusable = try entry("circulation/feed-no-usable-acquisitions.xml")
        #expect(unusable.acquisitions.first?.type == "application/unsupported")
    }

    @Test("sync feeds: three entries, then one")
    func syncFeeds() throws {
        let (_, added) = try parseAll(FixturePaths.shared("circulation/testBooksSyncNewEntries.xml"))
        #expect(added.map(\.id) == ["urn:book:0", "urn:book:1", "urn:book:2"])
        #expect(
            added.map { $0.links.first?.href } == [
                "http://localhost:9000/book/0", "http://localhost:9000/book/1", "http://localhost:9000/book/2",
            ])
        let (_, remaining) = try parseAll(FixturePaths.shared("circulation/testBooksSyncRemoveEntries.xml"))
        #expect(remaining.map(\.id) == ["urn:book:0"])
    }
}
