import Foundation
import Testing

@testable import ShelfCore

/// A generated feed of Palace-style entries (about 2 KB each, with circulation markup), for measuring by hand:
///
///     swift test -c release --filter OPDSThroughputTests
///
/// The test checks only counts and values; it prints the rate so a release run shows it.
@Suite("OPDS parser: throughput", .serialized, .timeLimit(.minutes(5)))
struct OPDSThroughputTests {
    static func palaceFeed(entries: Int) -> Data {
        var xml = """
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:dcterms="http://purl.org/dc/terms/" \
            xmlns:opds="http://opds-spec.org/2010/catalog" xmlns:opf="http://www.idpf.org/2007/opf" \
            xmlns:schema="http://schema.org/" xmlns:simplified="http://librarysimplified.org/terms/" \
            xmlns:bibframe="http://bibframe.org/vocab/">
            <id>https://library.example/groups/</id><title>Generated</title><updated>2024-01-01T00:00:00Z</updated>

            """
        xml.reserveCapacity(entries * 2200 + 1000)
        for i in 0..<entries {
            xml += """
                <entry schema:additionalType="http://bib.schema.org/Audiobook">
                  <title>Book number \(i)</title>
                  <schema:alternativeHeadline>A Novel</schema:alternativeHeadline>
                  <summary>&lt;p&gt;A story about entry \(i), told at length so the entry has the size of a real one, \
                with enough words to look like a publisher's blurb and a little &lt;b&gt;markup&lt;/b&gt;.&lt;/p&gt;</summary>
                  <dcterms:language>en</dcterms:language>
                  <dcterms:publisher>Example Audio</dcterms:publisher>
                  <dcterms:issued>2020-06-30</dcterms:issued>
                  <id>urn:isbn:978\(String(format: "%010d", i))</id>
                  <bibframe:distribution bibframe:ProviderName="Palace Marketplace"/>
                  <published>2022-12-16T00:00:00Z</published>
                  <updated>2023-11-13T11:51:35+00:00</updated>
                  <category scheme="http://librarysimplified.org/terms/fiction/" term="http://librarysimplified.org/terms/fiction/Fiction" label="Fiction"/>
                  <category scheme="http://schema.org/audience" term="Adult" label="Adult"/>
                  <author><name>Author \(i % 500)</name><link href="https://library.example/contributor/\(i % 500)" rel="contributor"/></author>
                  <contributor opf:role="nrt"><name>Narrator \(i % 300)</name></contributor>
                  <link href="https://covers.example/\(i).jpg" rel="http://opds-spec.org/image" type="image/jpeg"/>
                  <link href="https://covers.example/\(i)-thumb.jpg" rel="http://opds-spec.org/image/thumbnail" type="image/jpeg"/>
                  <link href="https://library.example/works/\(i)/borrow" rel="http://opds-spec.org/acquisition/borrow" type="application/atom+xml;type=entry;profile=opds-catalog">
                    <opds:indirectAcquisition type="application/vnd.readium.lcp.license.v1.0+json">
                      <opds:indirectAcquisition type="application/audiobook+lcp"/>
                    </opds:indirectAcquisition>
                    <opds:availability status="available" since="2023-11-01T00:00:00Z" until="2023-11-22T00:00:00Z"/>
                    <opds:holds total="\(i % 7)" position="\(i % 3)"/>
                    <opds:copies total="5" available="\(i % 5)"/>
                  </link>
                  <link href="https://library.example/works/\(i)" rel="alternate" type="application/atom+xml;type=entry;profile=opds-catalog"/>
                  <link href="https://library.example/works/\(i)/related" rel="related" type="application/atom+xml;profile=opds-catalog;kind=acquisition" title="Recommended Works"/>
                  <link href="https://library.example/annotations/\(i)" rel="http://www.w3.org/ns/oa#annotationService" type="application/ld+json"/>
                  <link href="https://library.example/loans/\(i)/revoke" rel="http://librarysimplified.org/terms/rel/revoke"/>
                </entry>

                """
        }
        xml += #"<link href="https://library.example/groups/?page=2" rel="next"/></feed>"#
        return Data(xml.utf8)
    }

    /// More rounds make a steadier figure (and a cleaner profile) when run by hand.
    static let rounds = Int(ProcessInfo.processInfo.environment["SHELF_OPDS_BENCH_ROUNDS"] ?? "") ?? 1

    @Test("20,000 generated Palace-style entries")
    func twentyThousandEntries() throws {
        let count = 20_000
        let data = Self.palaceFeed(entries: count)
        // Several rounds, because the first one also pays for page faults in the freshly generated input.
        for round in 1...Self.rounds {
            var narrators = 0
            var positions = 0
            let start = DispatchTime.now()
            let info = try OPDSParser().parse(data: data) { entry in
                narrators += entry.narrators.count
                positions += entry.holds?.position ?? 0
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            print(
                "OPDS throughput, round \(round): \(count) entries of \(data.count / count) bytes in "
                    + "\(String(format: "%.3f", seconds)) s, \(Int(Double(count) / seconds)) entries/s")
            #expect(info.entryCount == count)
            #expect(info.next?.href == "https://library.example/groups/?page=2")
            #expect(narrators == count)
            #expect(positions == (0..<count).reduce(0) { $0 + $1 % 3 })
        }
    }

    @Test("the same feed streamed from a file")
    func twentyThousandEntriesFromFile() throws {
        let count = 20_000
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-bench-\(UUID().uuidString).xml")
        try Self.palaceFeed(entries: count).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        for round in 1...Self.rounds {
            let start = DispatchTime.now()
            var ids = 0
            let info = try OPDSParser().parse(file: url) { _ in ids += 1 }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            print(
                "OPDS throughput from a file, round \(round): \(count) entries in "
                    + "\(String(format: "%.3f", seconds)) s, \(Int(Double(count) / seconds)) entries/s")
            #expect(info.entryCount == count)
            #expect(ids == count)
        }
    }
}
