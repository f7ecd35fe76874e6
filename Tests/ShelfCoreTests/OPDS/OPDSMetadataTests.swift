import Foundation
import Testing

@testable import ShelfCore

/// Duration, series, ODL templated acquisitions and nameless people in OPDS 1 entries.
@Suite("OPDS 1 metadata: duration, series, odl:tlink", .timeLimit(.minutes(5)))
struct OPDSMetadataTests {
    private func entry(_ body: String) throws -> OPDSEntry {
        let xml = """
            <entry xmlns="http://www.w3.org/2005/Atom" xmlns:dcterms="http://purl.org/dc/terms/"
                   xmlns:schema="http://schema.org/" xmlns:opds="http://opds-spec.org/2010/catalog"
                   xmlns:odl="http://drafts.opds.io/odl-1.0#" xmlns:opf="http://www.idpf.org/2007/opf">
              <id>urn:isbn:1</id><title>T</title>
              \(body)
            </entry>
            """
        return try OPDSParser(baseURL: URL(string: "http://127.0.0.1:9/feed")).parseEntry(data: Data(xml.utf8))
    }

    @Test(
        "durations in seconds, ISO 8601 and clock time",
        arguments: [
            ("36914.0", 36914.0), ("PT10H2M", 36120), ("PT1H30M15.5S", 5415.5), ("P1DT2H", 93600), ("PT0S", 0),
            ("10:02:00", 36120), ("45:09", 2709),
        ] as [(String, Double)])
    func durations(text: String, seconds: Double) throws {
        #expect(OPDSDuration.parse(text) == seconds)
        #expect(try entry("<dcterms:duration> \(text) </dcterms:duration>").duration == seconds)
    }

    @Test("what is not a duration is left out", arguments: ["", "P1Y", "P1M", "PT", "PTH", "-5", "abc", "1:2:3:4", "PT1H2", "nan"])
    func notDurations(text: String) throws {
        #expect(OPDSDuration.parse(text) == nil)
        #expect(try entry("<dcterms:duration>\(text)</dcterms:duration>").duration == nil)
    }

    @Test("a running time as shelf show prints it")
    func clock() {
        #expect(OPDSDuration.clockString(36914) == "10:15:14")
        #expect(OPDSDuration.clockString(59.6) == "0:01:00")
        #expect(OPDSDuration.clockString(0) == "0:00:00")
    }

    @Test("schema:series as Palace writes it: name attribute, position element, link to the series' feed")
    func palaceSeries() throws {
        let series = try entry("""
            <schema:series name="Discworld"><position>3</position>
              <link href="/series/Discworld" rel="series" type="application/atom+xml" title="Discworld"/>
            </schema:series>
            """).series
        #expect(series == Series(name: "Discworld", position: "3", href: "http://127.0.0.1:9/series/Discworld"))
    }

    @Test("schema:Series with schema:name and schema:position attributes")
    func attributeSeries() throws {
        #expect(try entry(#"<schema:Series schema:name=" Discworld " schema:position="2.5"/>"#).series
            == Series(name: "Discworld", position: "2.5"))
        #expect(try entry(#"<schema:series><schema:name>Mort</schema:name></schema:series>"#).series == Series(name: "Mort"))
        #expect(try entry(#"<schema:series name=""/>"#).series == nil)
    }

    @Test("odl:tlink is an acquisition with its availability (a loan's due date)")
    func templatedAcquisition() throws {
        let entry = try entry("""
            <odl:tlink rel="http://opds-spec.org/acquisition" href="/fulfill/1{?patron_id}"
                       type="application/vnd.librarysimplified.axisnow+json">
              <opds:availability status="available" since="2024-04-01T00:00:00Z" until="2024-04-22T00:00:00Z"/>
              <opds:holds total="0"/><opds:copies total="1" available="0"/>
            </odl:tlink>
            <link rel="http://librarysimplified.org/terms/rel/revoke" href="/revoke/1"/>
            """)
        let acquisition = try #require(entry.acquisitions.first)
        #expect(acquisition.kind == .generic)
        // Resolved against the document as a link is, its expression kept for when it is followed.
        #expect(acquisition.href == "http://127.0.0.1:9/fulfill/1{?patron_id}")
        #expect(acquisition.availability == Availability(status: "available", since: utc(2024, 4, 1), until: utc(2024, 4, 22)))
        #expect(acquisition.copies == Copies(total: 1, available: 0))
        #expect(EntryRecord.entitlement(of: entry) == .loan)
        #expect(entry.availability?.until == utc(2024, 4, 22))
    }

    @Test("an author or contributor without a name is left out")
    func namelessPeople() throws {
        let entry = try entry("""
            <author/><author><name></name></author><author><name>  </name></author><author><name>Ann</name></author>
            <contributor opf:role="nrt"/><contributor><name>Bob</name></contributor>
            """)
        #expect(entry.authors == [Contributor(name: "Ann")])
        #expect(entry.contributors == [Contributor(name: "Bob")])
    }

    @Test("a real Palace feed: duration in seconds and a series with its feed",
          .enabled(if: FixturePaths.sharedAvailable, "../shared/fixtures-real is absent"))
    func realFeed() throws {
        let (_, entries) = try parseAll(FixturePaths.shared("opds/minotaur-20231113.xml"))
        let flash = try #require(entries.first { $0.id == "urn:isbn:9781442370289" })
        #expect(flash.title == "Flash Boys" && flash.duration == 36914)
        let atlantis = try #require(entries.first { $0.id == "urn:librarysimplified.org/terms/id/Axis%20360%20ID/0012410937" })
        #expect(atlantis.series == Series(
            name: "Atlantis",
            href: "https://minotaur.dev.palaceproject.io/minotaur-test-library/works/series/Atlantis/eng/Adult,Adults+Only,All+Ages,Children,Young+Adult"))
        #expect(entries.filter { $0.series != nil }.count == 9)
        #expect(entries.filter { $0.duration != nil }.count == 30)
        // The empty author in a real feed is dropped rather than stored as a nameless one.
        let (_, bad) = try parseAll(FixturePaths.shared("opds/bad-uri-syntax.xml"))
        #expect(bad.allSatisfy { $0.authors.allSatisfy { !$0.name.isEmpty } })
    }
}
