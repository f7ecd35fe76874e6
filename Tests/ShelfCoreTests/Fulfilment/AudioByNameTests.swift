import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

/// Audio however it is typed: a file a plain web server offers as `application/octet-stream` is audio by its name
/// (checked by its bytes when it arrives), and an ODL licence feed's audiobook typed `schema.org/Book` is one.
@Suite(.timeLimit(.minutes(5))) struct AudioByNameTests {
    @Test func aGenericTypeIsAudioByTheLinksNameOrTitle() {
        let cases: [(type: String?, href: String, title: String?, expected: String?)] = [
            ("application/octet-stream", "http://h/books/Emma.m4b", nil, "audio/x-m4b"),
            (nil, "http://h/books/emma.MP3?sig=1", nil, "audio/mpeg"),
            ("binary/octet-stream", "http://h/get/7", "Emma (unabridged).opus", "audio/opus"),
            ("Application/Octet-Stream; charset=binary", "http://h/f/1.flac", nil, "audio/flac"),
            ("", "http://h/f/1.ogg", nil, "audio/ogg"),
            // A type that says something is kept; a document or an unknown name is not audio.
            ("application/epub+zip", "http://h/books/emma.mp3", nil, nil),
            ("audio/mpeg", "http://h/books/emma.m4b", nil, nil),
            ("application/octet-stream", "http://h/books/emma.epub", "Emma", nil),
            ("application/octet-stream", "http://h/get/7", nil, nil),
            (nil, "http://h/books/emma.pdf", "emma.pdf", nil),
        ]
        for item in cases {
            #expect(AudioTypes.typeByName(type: item.type, href: item.href, title: item.title) == item.expected, "\(item)")
        }
    }

    @Test func bothParsersTypeAnOctetStreamAudioFileByItsName() throws {
        let atom = """
            <entry xmlns="http://www.w3.org/2005/Atom"><id>urn:x:1</id><title>Emma</title>
            <link rel="http://opds-spec.org/acquisition" href="/files/Emma.m4b" type="application/octet-stream"/>
            <link rel="http://opds-spec.org/acquisition" href="/files/get/2" title="Emma.mp3"/></entry>
            """
        let entry = try OPDSParser(baseURL: URL(string: "http://127.0.0.1/")).parseEntry(data: Data(atom.utf8))
        #expect(entry.acquisitions.map(\.type) == ["audio/x-m4b", "audio/mpeg"])
        #expect(EntryRecord(entry).medium == "audiobook")
        let json = """
            {"metadata":{"title":"Feed"},"publications":[{"metadata":{"identifier":"urn:x:2","title":"Emma"},
             "links":[{"rel":"http://opds-spec.org/acquisition","href":"/files/Emma.opus","type":"application/octet-stream"}]}]}
            """
        var entries: [OPDSEntry] = []
        _ = try OPDS2Parser(baseURL: URL(string: "http://127.0.0.1/")).parse(data: Data(json.utf8)) { entries.append($0) }
        #expect(entries.map { $0.acquisitions.map(\.type) } == [["audio/opus"]])
        #expect(entries.map { EntryRecord($0).medium } == ["audiobook"])
    }

    @Test func whatIsSurelyNoAudioIsToldByItsFirstBytes() {
        let cases: [(bytes: [UInt8], reason: String?)] = [
            (Array("<!DOCTYPE html><html><body>Not found</body></html>".utf8), "it is an HTML page"),
            (Array("  \n<html lang=en>".utf8), "it is an HTML page"),
            (Array(#"{"type":"http://librarysimplified.org/terms/problem/no-licenses"}"#.utf8), "it is a JSON document"),
            (Array("<?xml version=\"1.0\"?><feed/>".utf8), "it is an XML document"),
            (Array("%PDF-1.7\n".utf8) + [0x80, 0x01], "it is a PDF"),
            ([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00], "it is a zip archive"),
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A], "it is an image"),
            (Array("Access denied".utf8), "it is text"),
            ([], "it is empty"),
            // Audio: ID3, an MPEG frame, MP4, Ogg, FLAC, and binary data of a kind not known here.
            (Array("ID3".utf8) + [0x04, 0x00, 0x00, 0x00, 0x00, 0x01], nil),
            ([0xFF, 0xFB, 0x90, 0x64, 0x00], nil),
            ([0x00, 0x00, 0x00, 0x20] + Array("ftypM4B ".utf8), nil),
            (Array("OggS".utf8) + [0x00, 0x02], nil),
            (Array("fLaC".utf8) + [0x00, 0x00, 0x00, 0x22], nil),
            ([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11], nil),
        ]
        for item in cases {
            #expect(AudioTypes.whyNotAudio(head: Data(item.bytes)) == item.reason, "\(item.bytes.prefix(8))")
        }
    }

    @Test func anODLLicenceFeedsAudiobookIsAnAudiobookWhateverItsType() throws {
        // Palace's ODL 2 fixture: three `schema.org/Book` publications, the third licensed as an audiobook too.
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/opds2/palace-circulation-odl2-feed.json")
        var entries: [OPDSEntry] = []
        _ = try OPDS2Parser(baseURL: URL(string: "http://127.0.0.1/")).parse(data: try Data(contentsOf: url)) { entries.append($0) }
        #expect(entries.map { EntryRecord($0).medium } == ["ebook", "ebook", "audiobook"])
        #expect(entries[2].licenseFormats.contains { $0.hasPrefix("application/audiobook+json") })
        // ODL 1 (Atom): the licence's `dcterms:format`; and a narrator or a running time on a `Book`.
        let atom = """
            <entry xmlns="http://www.w3.org/2005/Atom" xmlns:odl="http://drafts.opds.io/odl-1.0#"
              xmlns:dcterms="http://purl.org/dc/terms/" xmlns:schema="http://schema.org/"
              xmlns:opf="http://www.idpf.org/2007/opf" schema:additionalType="http://schema.org/Book">
              <id>urn:x:3</id><title>T</title>
              <odl:license><dcterms:identifier>urn:l</dcterms:identifier>
                <dcterms:format>application/audiobook+json</dcterms:format></odl:license></entry>
            """
        let licensed = try OPDSParser(baseURL: nil).parseEntry(data: Data(atom.utf8))
        #expect(licensed.licenseFormats == ["application/audiobook+json"])
        #expect(EntryRecord(licensed).medium == "audiobook")
        var narrated = OPDSEntry(id: "urn:x:4", title: "T", additionalType: "http://schema.org/Book")
        #expect(EntryRecord(narrated).medium == "ebook")
        narrated.contributors = [Contributor(name: "A Reader", roles: ["nrt"])]
        #expect(EntryRecord(narrated).medium == "audiobook")
        var timed = OPDSEntry(id: "urn:x:5", title: "T", additionalType: "http://schema.org/Book")
        timed.duration = 3_600
        #expect(EntryRecord(timed).medium == "audiobook")
    }

    static let jungleBook = "urn:uuid:7d3c0019-5a1e-4c6b-9f0e-d0c5e1f00019"

    @Test func aStaticCatalogsOctetStreamFileIsDownloadedAsTheAudiobookItIs() async throws {
        try await SyncFixture.with { fixture in
            await fixture.state.setPlainFiles(true)
            _ = try fixture.refresh(download: false)
            let edition = try fixture.edition(Self.jungleBook)
            let summary = try fixture.store.summary(of: edition)
            #expect(summary.medium == "audiobook")
            #expect(summary.narrators.isEmpty && summary.duration == nil)
            let run = try DownloadRun(
                store: fixture.store, home: fixture.test.home, library: try fixture.store.library(named: "demo"),
                configuration: HTTPConfiguration(), attended: true)
            let outcome = try run.named(edition)
            guard case .downloaded = outcome.result else {
                Issue.record("not downloaded: \(outcome.line)")
                return
            }
            // The file kept is the server's mp3, saved under an audio name.
            let book = try fixture.store.audiobook(edition, home: fixture.test.home)
            let part = try #require(book.parts.first)
            #expect(book.parts.count == 1 && AudioTypes.isAudioFile(part.file.lastPathComponent), "\(part.file)")
            let head = try FileHandle(forReadingFrom: part.file).read(upToCount: 512) ?? Data()
            #expect(AudioTypes.whyNotAudio(head: head) == nil && head.starts(with: Array("ID3".utf8)))
        }
    }

    @Test func anErrorPageWhereTheFileShouldBeIsRefusedAndNothingIsKept() async throws {
        try await SyncFixture.with { fixture in
            await fixture.state.setPlainFiles(true)
            // An error page sent as the download itself, typed as the file would be (a text/html one is refused by
            // its type before: `PartDownloaderTests`).
            let page = PageFaults(html: true, contentType: "application/octet-stream")
            await fixture.state.setAudioFaults(AudioFaults(response: page), for: Self.jungleBook)
            _ = try fixture.refresh(download: false)
            let edition = try fixture.edition(Self.jungleBook)
            let run = try DownloadRun(
                store: fixture.store, home: fixture.test.home, library: try fixture.store.library(named: "demo"),
                configuration: HTTPConfiguration(), attended: true)
            let outcome = try run.named(edition)
            guard case .failed(let failure) = outcome.result else {
                Issue.record("not refused: \(outcome.line)")
                return
            }
            #expect(failure.description.contains("is not audio (it is an HTML page); nothing was kept"), "\(failure)")
            let files = fixture.test.home.files(library: fixture.library.id, edition: edition.rowID)
            let kept = (try? FileManager.default.subpathsOfDirectory(atPath: files.path)) ?? []
            #expect(!kept.contains { AudioTypes.isAudioFile($0) }, "\(kept)")
            #expect(try fixture.store.summary(of: edition).state != .downloaded)
        }
    }
}
