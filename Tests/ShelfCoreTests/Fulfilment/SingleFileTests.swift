import Foundation
@testable import ShelfCore
import Testing

/// Single-file audiobooks, by the rules alone: which entries are audiobooks and free to take, which parts are audio,
/// and in what order a zip's files play.
@Suite(.timeLimit(.minutes(5))) struct SingleFileTests {
    private func entry(
        _ acquisitions: [Acquisition], additionalType: String? = nil, revoke: String? = nil
    ) -> OPDSEntry {
        OPDSEntry(id: "urn:test:1", title: "A Book", additionalType: additionalType, acquisitions: acquisitions, revokeURL: revoke)
    }

    private func link(
        _ kind: AcquisitionKind, _ type: String?, availability: String? = nil, copies: Copies? = nil, price: Price? = nil
    ) -> Acquisition {
        let rel = kind == .generic ? OPDSVocabulary.relAcquisitionPrefix : "\(OPDSVocabulary.relAcquisitionPrefix)/\(kind.rawValue)"
        return Acquisition(kind: kind, rel: rel, href: "http://127.0.0.1/get/1", type: type,
                           availability: availability.map { Availability(status: $0) }, copies: copies, price: price)
    }

    @Test(arguments: ["audio/mpeg", "audio/mp4", "audio/x-m4b", "audio/m4b", "audio/ogg", "audio/opus", "audio/flac",
                      "audio/aac", "audio/x-flac", "audio/vorbis", "audio/ogg; codecs=opus", "AUDIO/MPEG"])
    func aPlainAudioDownloadIsAnAudiobookFreeToTake(type: String) {
        let record = EntryRecord(entry([link(.generic, type)]))
        #expect(record.medium == "audiobook")
        #expect(record.entitlement == .free)
        #expect(record.protection == nil)
    }

    @Test func aZipIsAnAudiobookOnlyWhenTheEntrySaysSo() {
        let zip = link(.generic, "application/zip")
        #expect(EntryRecord(entry([zip], additionalType: "http://bib.schema.org/Audiobook")).medium == "audiobook")
        #expect(EntryRecord(entry([zip], additionalType: "http://bib.schema.org/Audiobook")).entitlement == .free)
        #expect(EntryRecord(entry([zip])).medium == "other")
    }

    @Test func circulationMarkupKeepsPalaceSemantics() {
        // A generic link with availability is a loan; with a revoke link too; a borrow link is something to borrow.
        #expect(EntryRecord(entry([link(.generic, "audio/mpeg", availability: "available")])).entitlement == .loan)
        #expect(EntryRecord(entry([link(.generic, "audio/mpeg")], revoke: "http://127.0.0.1/revoke")).entitlement == .loan)
        #expect(EntryRecord(entry([link(.borrow, "audio/mpeg", availability: "available")])).entitlement == .none)
        #expect(EntryRecord(entry([link(.borrow, "audio/mpeg"), link(.generic, "audio/mpeg")])).entitlement == .none)
        #expect(EntryRecord(entry([link(.generic, "audio/mpeg", copies: Copies(total: 1))])).entitlement == .none)
        #expect(EntryRecord(entry([link(.generic, "audio/mpeg", availability: "reserved")])).entitlement == .hold)
        #expect(EntryRecord(entry([link(.buy, "audio/mpeg", price: Price(value: "4.99"))])).entitlement == .none)
        #expect(EntryRecord(entry([link(.openAccess, "audio/mpeg")])).entitlement == .free)
    }

    @Test func anAudioSampleDoesNotMakeAnEbookAnAudiobook() {
        let ebook = entry([link(.generic, "application/epub+zip"), link(.sample, "audio/mpeg")])
        #expect(EntryRecord(ebook).medium == "ebook")
        let declared = entry([link(.generic, "audio/mpeg")], additionalType: "http://schema.org/EBook")
        #expect(EntryRecord(declared).medium == "ebook")
    }

    @Test func whichPartsAreAudio() {
        let cases: [(type: String?, href: String, audio: Bool)] = [
            ("audio/mpeg", "http://h/1.mp3", true),
            ("audio/mp4", "http://h/part.mp4?sig=x", true),
            ("audio/x-m4b", "http://h/get/m4b/3/Library", true),
            (nil, "http://h/part.ogg", true),
            ("application/octet-stream", "http://h/part.flac", true),
            (nil, "http://h/get/3", true),
            ("text/html", "http://h/1.mp3", false),
            ("application/pdf", "http://h/book", false),
            ("audio/mpeg", "http://h/chapter1.html", false),
            (nil, "http://h/cover.jpg", false),
            ("application/octet-stream", "http://h/readme.txt", false),
            (nil, "http://h/part.exe", false),
        ]
        for item in cases {
            #expect((AudioTypes.whyNotAudio(type: item.type, href: item.href) == nil) == item.audio, "\(item)")
        }
    }

    @Test func aReadingOrderWithAPageInItIsRefusedNamingThePart() throws {
        let json = """
            {"metadata": {"title": "Mixed"}, "readingOrder": [
              {"href": "1.mp3", "type": "audio/mpeg"}, {"href": "notes.html", "type": "text/html"}]}
            """
        let manifest = try AudiobookManifest.parse(Data(json.utf8), url: URL(string: "http://127.0.0.1/m.json")!)
        #expect(throws: FulfilmentError.notAudio(title: "Mixed", part: 2, reason: "its file is .html")) {
            try FulfilmentService.refuseNonAudio(manifest, title: "Mixed")
        }
        #expect(FulfilmentError.notAudio(title: "Mixed", part: 2, reason: "it is text/html").exitCode == .protectedContent)
    }

    @Test func aZipsFilesPlayInNaturalOrder() {
        let names = ["Track 10.mp3", "track 9.mp3", "Track 1.mp3", "disc2/01.mp3", "disc1/02.mp3", "disc1/1.mp3", "Track 009b.mp3"]
        #expect(names.sorted(by: FulfilmentService.naturallyBefore) == [
            "disc1/1.mp3", "disc1/02.mp3", "disc2/01.mp3", "Track 1.mp3", "track 9.mp3", "Track 009b.mp3", "Track 10.mp3",
        ])
    }

    @Test func theSyntheticManifestIsAReadiumManifestOfTheFiles() throws {
        let summary = try JSONDecoder().decode(EditionSummary.self, from: Data("""
            {"id": "urn:test:walden", "shortID": "walden", "title": "Walden", "authors": "Henry David Thoreau, Someone Else",
             "narrators": "", "medium": "audiobook", "state": "new", "entitlement": "free",
             "inCatalog": true, "isDraft": false, "isPaid": false, "actions": [], "circulation": ""}
            """.utf8))
        let json = FulfilmentService.syntheticManifest(summary, parts: [("a%20b.mp3", "audio/mpeg", "a b"), ("c.mp3", "audio/mpeg", "c")])
        let manifest = try AudiobookManifest.parse(Data(json.utf8), url: URL(fileURLWithPath: "/books/1/manifest.json"))
        #expect(manifest.title == "Walden")
        #expect(manifest.authors == ["Henry David Thoreau", "Someone Else"])
        #expect(manifest.parts.map(\.href) == ["file:///books/1/a%20b.mp3", "file:///books/1/c.mp3"])
        #expect(manifest.parts.map(\.title) == ["a b", "c"])
        #expect(manifest.toc.isEmpty)
        #expect(json.contains("\"\(Store.syntheticManifestKey)\":true"))
    }
}
