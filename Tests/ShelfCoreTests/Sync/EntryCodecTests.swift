import Foundation
import Testing

@testable import ShelfCore

/// What a sync keeps of a page between reading it and applying it is the page's entries as they were parsed, and
/// they come back field for field: every real document's entries, and entries with every field set.
@Suite(.timeLimit(.minutes(5))) struct EntryCodecTests {
    /// Writes entries to a file as the fetch does and reads them back as the apply does, in batches of `batch`.
    static func roundTrip(_ entries: [OPDSEntry], batch: Int = 64) throws -> [[OPDSEntry]] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entry-codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try EntriesFile(directory.appendingPathComponent("page"))
        for entry in entries { try file.append(entry) }
        try file.finish()
        var batches: [[OPDSEntry]] = []
        #expect(try EntriesFile.read(file.url, batch: batch) { batches.append($0); return true })
        return batches
    }

    /// An entry with every field, optional and nested, set to something no default gives.
    static func everything(_ number: Int, text: String = "x") -> OPDSEntry {
        var entry = OPDSEntry(
            id: "urn:uuid:\(number)", title: "Title \(number) — ünïcödé 📚", subtitle: "", authors: [
                Contributor(name: "A", roles: ["aut", "nrt"], sortName: "A, B", uri: "https://a.example/\(number)"),
            ], contributors: [Contributor(name: "N", roles: [], sortName: nil, uri: nil)], summary: text, content: "c",
            publisher: "p", issued: "2020", language: "en", categories: [Category(scheme: nil, term: "t", label: "l")],
            distributor: "d", additionalType: "http://schema.org/Audiobook", updated: "2024-01-01T00:00:00Z",
            published: "1999", coverURL: "https://c/", thumbnailURL: "https://t/", acquisitions: [
                Acquisition(
                    kind: .borrow, rel: "http://opds-spec.org/acquisition/borrow", href: "https://b/\(number)",
                    type: "application/atom+xml",
                    indirect: [IndirectAcquisition(type: "a", children: [IndirectAcquisition(type: "b")])],
                    availability: Availability(
                        status: "available", since: Date(timeIntervalSince1970: -12.5),
                        until: Date(timeIntervalSinceReferenceDate: 1e9 + 0.123456789)),
                    holds: Holds(total: Int.max, position: -1), copies: Copies(total: 0, available: nil),
                    price: Price(value: "1.00", currency: "EUR")),
                Acquisition(kind: .subscribe, rel: "s", href: ""),
            ], links: [
                OPDSLink(
                    href: "h", rel: "r", type: "t", title: "ti", facetGroup: "g", activeFacet: true, count: 3,
                    templated: true),
                OPDSLink(href: "plain"),
            ], revokeURL: "https://r/", annotationsURL: "https://n/", isDraft: true, duration: 3600.25,
            series: Series(name: "S", position: "2", href: nil))
        entry.licenseFormats = ["application/audiobook+json", ""]
        return entry
    }

    @Test func everyFieldComesBack() throws {
        let entries = [Self.everything(1), OPDSEntry(id: "", title: ""), Self.everything(2)]
        #expect(try Self.roundTrip(entries) == [entries])
    }

    /// Entries larger than the file's 256 KB blocks, and many of them, come back whole and in order, in
    /// batches of the size asked for.
    @Test func entriesAcrossBlocksComeBackInOrderAndInBatches() throws {
        let large = String(repeating: "long summary ", count: 200_000)
        let entries = (0..<300).map { Self.everything($0, text: $0 % 100 == 7 ? large : "s\($0)") }
        let batches = try Self.roundTrip(entries, batch: 64)
        #expect(batches.map(\.count) == [64, 64, 64, 64, 44])
        #expect(batches.flatMap { $0 } == entries)
    }

    @Test func anEmptyPageHandsOnNothing() throws {
        #expect(try Self.roundTrip([]).isEmpty)
    }

    /// A file cut short or holding what no writer wrote is a one-line error naming the file, not a crash or a
    /// wrong entry.
    @Test func aDamagedFileIsAnErrorNamingIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entry-codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try EntriesFile(directory.appendingPathComponent("page"))
        for number in 0..<3 { try file.append(Self.everything(number)) }
        try file.finish()
        let whole = try Data(contentsOf: file.url)
        for damaged in [whole.prefix(whole.count - 5), whole + Data([3, 0xFF, 0xFF, 0xFF]), Data([0x80])] {
            try damaged.write(to: file.url)
            do {
                _ = try EntriesFile.read(file.url, batch: 64) { _ in true }
                Issue.record("a damaged file was read")
            } catch let error as StoreError {
                #expect(error.description.contains(file.url.path))
                #expect(error.description.contains("sync again"))
            }
        }
    }

    /// The entries of every real document the parsers read, OPDS 1 and 2.
    @Test(.enabled(if: FixturePaths.sharedAvailable, "../shared/fixtures-real is absent; real-document round trips skipped"))
    func everyRealDocumentsEntriesComeBack() throws {
        var documents = 0
        var total = 0
        let files = FileManager.default.enumerator(at: FixturePaths.sharedRoot, includingPropertiesForKeys: nil)!
        for case let url as URL in files where ["xml", "json", "opds"].contains(url.pathExtension) {
            var entries: [OPDSEntry] = []
            let parser = FeedDocument(baseURL: URL(string: "https://library.example/feed"))
            guard (try? parser.parse(file: url, contentType: nil) { entries.append($0) }) != nil, !entries.isEmpty
            else { continue }
            documents += 1
            total += entries.count
            #expect(try Self.roundTrip(entries).flatMap { $0 } == entries, "\(url.lastPathComponent)")
        }
        #expect(documents >= 30 && total >= 200, "\(documents) documents, \(total) entries")
    }
}
