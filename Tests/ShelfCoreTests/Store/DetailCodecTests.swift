import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

/// What only `shelf show` reads of a title (contributors, categories, other links, indirect acquisition types) is
/// kept as compact bytes that read back field for field, a fraction of the JSON it was; a store written with JSON
/// reads the same after its upgrade.
@Suite(.timeLimit(.minutes(5))) struct DetailCodecTests {
    static func readBack(_ entry: OPDSEntry) throws -> (EditionDetailJSON, [[IndirectAcquisition]]) {
        let detail = try #require(DetailCodec.readDetail(.bytes(DetailCodec.detail(of: entry)), entryID: entry.id))
        let indirect = try entry.acquisitions.map { acquisition in
            try #require(DetailCodec.readIndirect(
                .bytes(DetailCodec.indirect(acquisition.indirect, entryID: entry.id)), entryID: entry.id))
        }
        return (detail, indirect)
    }

    static func expectSame(_ entry: OPDSEntry, _ place: String) throws {
        let (detail, indirect) = try readBack(entry)
        #expect(detail.authors == entry.authors, "\(place)")
        #expect(detail.contributors == entry.contributors, "\(place)")
        #expect(detail.categories == entry.categories, "\(place)")
        #expect(detail.links == entry.links.map { OPDSLink(href: $0.href, rel: $0.rel, type: $0.type, title: $0.title) },
                "\(place)")
        #expect(indirect == entry.acquisitions.map(\.indirect), "\(place)")
        #expect([detail.coverURL, detail.thumbnailURL, detail.revokeURL, detail.annotationsURL]
                == [entry.coverURL, entry.thumbnailURL, entry.revokeURL, entry.annotationsURL], "\(place)")
    }

    /// Words of the vocabulary, strings sharing their start with the one before (inside a character too), the id
    /// inside a string (twice, at its ends, alone), empty strings and nils.
    @Test func everyKindOfStringComesBack() throws {
        let id = "urn:uuid:ä1b2"
        var entry = OPDSEntry(
            id: id, title: "", authors: [
                Contributor(name: "", roles: ["aut", "nrt", "zzz"], sortName: nil, uri: "https://l.example/a/\(id)/\(id)"),
                Contributor(name: "ä", roles: [], sortName: "äb", uri: "äc"),
            ], contributors: [Contributor(name: id)],
            categories: [
                Category(scheme: "http://librarysimplified.org/terms/genres/Simplified/",
                         term: "http://librarysimplified.org/terms/genres/Simplified/Mystery", label: "Mystery"),
                Category(scheme: nil, term: "", label: nil),
            ],
            acquisitions: [Acquisition(
                kind: .borrow, rel: "r", href: "h",
                indirect: [IndirectAcquisition(type: "application/vnd.librarysimplified.bearer-token+json", children: [
                    IndirectAcquisition(type: "application/audiobook+json"), IndirectAcquisition(type: id + "x"),
                ])])],
            links: [OPDSLink(href: "https://l.example/works/\(id)", rel: "alternate", type: "text/html", title: "t"),
                    OPDSLink(href: id), OPDSLink(href: "")])
        (entry.coverURL, entry.thumbnailURL) = ("https://l.example/covers/\(id).png", "https://l.example/covers/\(id).png")
        (entry.revokeURL, entry.annotationsURL) = (nil, "https://l.example/annotations/\(id)")
        try Self.expectSame(entry, "every kind")
    }

    /// Bytes that are not what the writer made are not read as a detail: nil, and `show` shows none.
    @Test func damagedBytesReadAsNothing() throws {
        let entry = OPDSEntry(id: "urn:x:1", title: "", authors: [Contributor(name: "Ann", uri: "https://x/urn:x:1")])
        let bytes = DetailCodec.detail(of: entry)
        #expect(DetailCodec.readDetail(.bytes(bytes), entryID: entry.id) != nil)
        let damages: [[UInt8]] = [Array(bytes.dropLast()), bytes + [0], [3] + Array(bytes.dropFirst()), [], [1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]
        for damaged in damages {
            #expect(DetailCodec.readDetail(.bytes(damaged), entryID: entry.id) == nil, "\(damaged)")
        }
    }

    @Test(.enabled(if: FixturePaths.sharedAvailable, "../shared/fixtures-real is absent; real-document round trips skipped"))
    func everyRealDocumentsDetailComesBack() throws {
        var entries = 0
        let files = FileManager.default.enumerator(at: FixturePaths.sharedRoot, includingPropertiesForKeys: nil)!
        for case let url as URL in files where ["xml", "json", "opds"].contains(url.pathExtension) {
            let parser = FeedDocument(baseURL: URL(string: "https://library.example/feed"))
            _ = try? parser.parse(file: url, contentType: nil) { entry in
                entries += 1
                try Self.expectSame(entry, "\(url.lastPathComponent) \(entry.id)")
            }
        }
        #expect(entries >= 200)
    }

    /// The cover, thumbnail, revoke and annotations URLs are kept in the detail, their columns left empty; a row
    /// written before (a version 1 detail, the URLs in their columns) shows the same URLs.
    @Test func theURLsMovedIntoTheDetailReadTheSameFromRowsWrittenBefore() async throws {
        try await SyncFixture.with(DemoConfiguration(pageSize: 50, generatedEntries: 20)) { fixture in
            _ = try fixture.sync()
            let library = fixture.library
            let ids = try fixture.store.read { db in
                #expect(try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM edition
                    WHERE cover_url IS NOT NULL OR thumbnail_url IS NOT NULL OR annotations_url IS NOT NULL
                    """) == 0)
                return try String.fetchAll(db, sql: "SELECT entry_id FROM edition ORDER BY id")
            }
            func urls() throws -> [[String?]] {
                try ids.map { id in
                    let detail = try fixture.store.edition(try fixture.store.resolveEdition(id, in: library))
                    return [detail.coverURL, detail.thumbnailURL, detail.revokeURL, detail.annotationsURL]
                }
            }
            let before = try urls()
            #expect(before.filter { $0[0] != nil && $0[3] != nil }.count >= 10, "\(before)")
            // Each row as a version 1 detail (the same bytes without the URLs) with the URLs in their columns.
            try fixture.store.write { db in
                for (id, shown) in zip(ids, before) {
                    var entry = OPDSEntry(id: id, title: "")
                    let stored = try #require(DetailCodec.readDetail(.bytes(Array(try Data.fetchOne(
                        db, sql: "SELECT detail FROM edition WHERE entry_id = ?", arguments: [id])!)), entryID: id))
                    (entry.authors, entry.contributors) = (stored.authors, stored.contributors)
                    (entry.categories, entry.links) = (stored.categories, stored.links)
                    let version2 = DetailCodec.detail(of: entry)
                    #expect(version2.suffix(4) == [0, 0, 0, 0])
                    let version1 = [1] + version2.dropFirst().dropLast(4)
                    try db.execute(sql: """
                        UPDATE edition SET detail = ?, cover_url = ?, thumbnail_url = ?, revoke_url = ?, annotations_url = ?
                        WHERE entry_id = ?
                        """, arguments: [Data(version1), shown[0], shown[1], shown[2], shown[3], id])
                }
            }
            #expect(try urls() == before)
        }
    }

    /// A generated Palace-style title's detail is under a quarter of its JSON; a store written with JSON is
    /// upgraded, and `show` reads the same contributors, categories, links and indirect types before and after.
    @Test func aStoreWrittenWithJSONIsUpgradedAndReadsTheSame() async throws {
        try await SyncFixture.with(DemoConfiguration(pageSize: 50, generatedEntries: 60)) { fixture in
            _ = try fixture.sync()
            let sizes = try fixture.store.read { db in
                try Row.fetchOne(db, sql: "SELECT avg(length(detail)), count(*) FROM edition WHERE entry_id LIKE 'urn:uuid:5eed%'")!
            }
            let ids = try fixture.store.read { db in
                try String.fetchAll(db, sql: "SELECT entry_id FROM edition ORDER BY id")
            }
            let library = fixture.library
            func shown(_ store: Store) throws -> [String] {
                try ids.map { id in
                    let detail = try store.edition(try store.resolveEdition(id, in: library))
                    return "\(detail.contributors) \(detail.categories) \(detail.links) "
                        + "\(detail.acquisitions.map(\.indirect)) \(String(describing: detail.coverURL)) "
                        + "\(String(describing: detail.annotationsURL))"
                }
            }
            let before = try shown(fixture.store)
            #expect(sizes[1] as Int == 60)
            // The same rows as JSON, as a store written before kept them.
            let json = try fixture.store.read { db in
                try Row.fetchAll(db, sql: "SELECT e.id, e.entry_id FROM edition e").map { row -> (Int64, String, Int, String) in
                    let id: String = row[1]
                    let stored = try #require(DetailCodec.readDetail(
                        .bytes(Array(try Data.fetchOne(db, sql: "SELECT detail FROM edition WHERE id = ?", arguments: [row[0] as Int64])!)),
                        entryID: id))
                    let text = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
                    return (row[0], text, text.utf8.count, id)
                }
            }
            let generated = json.filter { $0.3.hasPrefix("urn:uuid:5eed") }
            let jsonAverage = Double(generated.map(\.2).reduce(0, +)) / Double(generated.count)
            #expect((sizes[0] as Double) * 4 < jsonAverage, "\(sizes[0] as Double) bytes against \(jsonAverage) as JSON")
            try fixture.store.write { db in
                for (rowID, text, _, _) in json {
                    try db.execute(sql: "UPDATE edition SET detail = ? WHERE id = ?", arguments: [text, rowID])
                }
                try db.execute(sql: """
                    UPDATE acquisition SET indirect = '[{"type":"application/vnd.librarysimplified.bearer-token+json",'
                        || '"children":[{"type":"application/audiobook+json","children":[]}]}]'
                    WHERE indirect = ?
                    """, arguments: [Data(DetailCodec.indirect(
                        [IndirectAcquisition(type: "application/vnd.librarysimplified.bearer-token+json",
                                             children: [IndirectAcquisition(type: "application/audiobook+json")])],
                        entryID: "unused"))])
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM acquisition WHERE typeof(indirect) = 'text'")! > 0)
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v25-compact-detail'")
            }
            // Read as JSON before the upgrade, and as bytes after it.
            #expect(try shown(fixture.store) == before)
            let upgraded = try Store(home: fixture.test.home, busyTimeout: 0.3)
            #expect(try shown(upgraded) == before)
            let text = try upgraded.read { db in
                try Int.fetchOne(db, sql: """
                    SELECT (SELECT count(*) FROM edition WHERE typeof(detail) = 'text')
                         + (SELECT count(*) FROM acquisition WHERE typeof(indirect) = 'text')
                    """)!
            }
            #expect(text == 0)
        }
    }
}
