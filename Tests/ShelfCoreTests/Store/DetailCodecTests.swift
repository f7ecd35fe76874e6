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
        let names = EntryRecord.names(of: entry)
        let detail = try #require(DetailCodec.readDetail(
            .bytes(DetailCodec.detail(of: entry)), entryID: entry.id, authors: names.authors, narrators: names.narrators))
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
        // Whole, but holds or copies without a number, which are kept as none (as the table of acquisitions kept them).
        let kept = entry.acquisitions.map { acquisition in
            var kept = acquisition
            if kept.holds == Holds() { kept.holds = nil }
            if kept.copies == Copies() { kept.copies = nil }
            return kept
        }
        #expect(detail.acquisitions == kept, "\(place)")
        #expect([detail.publisher, detail.issued, detail.language, detail.distributor, detail.additionalType,
                 detail.updated, detail.published]
                == [entry.publisher, entry.issued, entry.language, entry.distributor, entry.additionalType,
                    entry.updated, entry.published], "\(place)")
    }

    /// Words of the vocabulary, strings sharing their start with the one before (inside a character too), the id
    /// inside a string (twice, at its ends, alone), empty strings and nils.
    @Test func everyKindOfStringComesBack() throws {
        let id = "urn:uuid:ä1b2"
        var entry = OPDSEntry(
            id: id, title: "", authors: [
                Contributor(name: "", roles: ["aut", "nrt", "zzz"], sortName: nil, uri: "https://l.example/a/\(id)/\(id)"),
                Contributor(name: "ä", roles: [], sortName: "äb", uri: "äc"),
                // The name percent-encoded in the URI, twice, beside the id; and encoded otherwise (not found).
                Contributor(name: "Zoë O'Brien", uri: "https://l.example/contributors/Zo%C3%AB%20O%27Brien/\(id)/Zo%C3%AB%20O%27Brien"),
                Contributor(name: "Zoë O'Brien", uri: "https://l.example/contributors/Zo%c3%ab+O'Brien"),
            ], contributors: [Contributor(name: id, uri: "https://l.example/contributors/urn%3Auuid%3A%C3%A41b2/\(id)")],
            categories: [
                Category(scheme: "http://librarysimplified.org/terms/genres/Simplified/",
                         term: "http://librarysimplified.org/terms/genres/Simplified/Mystery", label: "Mystery"),
                Category(scheme: nil, term: "", label: nil),
            ],
            acquisitions: [
                Acquisition(
                    kind: .borrow, rel: "r", href: "h",
                    indirect: [IndirectAcquisition(type: "application/vnd.librarysimplified.bearer-token+json", children: [
                        IndirectAcquisition(type: "application/audiobook+json"), IndirectAcquisition(type: id + "x"),
                    ])]),
                // Every circulation part, numbers negative, large and zero among them.
                Acquisition(
                    kind: .buy, rel: "http://opds-spec.org/acquisition/buy", href: "https://l.example/buy/\(id)",
                    type: "text/html", availability: Availability(
                        status: "reserved", since: Date(timeIntervalSince1970: 1_700_000_000.25),
                        until: Date(timeIntervalSince1970: -86_400.5)),
                    holds: Holds(total: 1 << 40, position: 0), copies: Copies(total: -3, available: nil),
                    price: Price(value: "4.99", currency: "EUR")),
                Acquisition(kind: .sample, rel: "s", href: "", availability: Availability(status: "available"),
                            holds: Holds(), copies: Copies(), price: Price(value: "0")),
            ],
            links: [OPDSLink(href: "https://l.example/works/\(id)", rel: "alternate", type: "text/html", title: "t"),
                    OPDSLink(href: id), OPDSLink(href: "")])
        (entry.coverURL, entry.thumbnailURL) = ("https://l.example/covers/\(id).png", "https://l.example/covers/\(id).png")
        (entry.revokeURL, entry.annotationsURL) = (nil, "https://l.example/annotations/\(id)")
        try Self.expectSame(entry, "every kind")
        // Dates kept as numbers and dates that are not, each in every date field; facts that are words and not.
        let dates = [
            "2024-01-01T00:00:00Z", "2024-01-01T00:00:00+00:00", "1969-12-31T23:59:59Z", "0000-03-01T00:00:00Z",
            "9999-12-31T23:59:59-11:30", "2024-02-29", "1850-01-15", "2024-01-01T00:00:00.123Z", "2024-02-30",
            "2024-13-01", "2024-1-01", "2024", "", "２０２４-01-01", "2024-01-01T24:00:00Z", "2024-01-01 00:00:00Z",
        ]
        for (index, date) in dates.enumerated() {
            entry.issued = date
            entry.updated = dates[(index + 1) % dates.count]
            entry.published = index % 3 == 0 ? nil : dates[(index + 2) % dates.count]
            entry.publisher = index % 2 == 0 ? "Harper & Brothers" : nil
            (entry.language, entry.distributor) = (index % 2 == 0 ? "en" : "fr", index % 4 == 0 ? nil : "Palace")
            entry.additionalType = index % 2 == 0 ? "http://bib.schema.org/Audiobook" : "https://example.org/Type"
            try Self.expectSame(entry, "dates \(index)")
        }
    }

    /// A contributor's link holding the name as Palace writes it keeps the name as one byte.
    @Test func aContributorsNameInItsLinkIsOneByte() throws {
        func size(_ name: String, _ uri: String) -> Int {
            DetailCodec.detail(of: OPDSEntry(id: "urn:x:1", title: "", authors: [Contributor(name: name, uri: uri)])).count
        }
        let name = "Arthur Conan Doyle"
        #expect(Array(DetailCodec.percentEncoded(name)) == Array("Arthur%20Conan%20Doyle".utf8))
        let linked = size(name, "https://l.example/contributors/Arthur%20Conan%20Doyle/eng/Adult")
        #expect(linked == size(name, "https://l.example/contributors//eng/Adult") + 2, "\(linked)")
        try Self.expectSame(
            OPDSEntry(id: "urn:x:1", title: "", authors: [Contributor(name: name, uri: "https://l.example/contributors/Arthur%20Conan%20Doyle/eng/Adult")]),
            "Palace's link")
    }

    /// A date is a number only when written back it is the same text; a short one is a few bytes.
    @Test func datesAreNumbersOnlyWhenTheyComeBackTheSame() throws {
        #expect(StoredDate("2024-01-01") == .day(19_723))
        #expect(StoredDate("1970-01-01T00:00:01Z") == .time(seconds: 1, zone: "Z"))
        #expect(StoredDate("1969-12-31T23:59:59+00:00") == .time(seconds: -1, zone: "+00:00"))
        for text in ["2024-02-30", "2023-02-29", "2024-00-10", "2024-01-00", "2024-01-32", "2024-01-01T00:60:00Z",
                     "2024-01-01X00:00:00Z", "+2024-01-01", "2024-01-01T00:00"] {
            #expect(StoredDate(text) == nil, "\(text)")
        }
        let entry = OPDSEntry(id: "urn:x:1", title: "")
        var dated = entry
        (dated.updated, dated.published, dated.issued) = ("2024-01-01T00:00:00Z", "2024-01-01T00:00:00+00:00", "1850-01-15")
        (dated.additionalType, dated.language) = ("http://bib.schema.org/Audiobook", "en")
        // Three dates of 20, 25 and 10 characters and two words of 31 and 2, in 23 bytes more than none.
        #expect(DetailCodec.detail(of: dated).count - DetailCodec.detail(of: entry).count <= 23)
    }

    /// Bytes that are not what the writer made are not read as a detail: nil, and `show` shows none.
    @Test func damagedBytesReadAsNothing() throws {
        let entry = OPDSEntry(id: "urn:x:1", title: "", authors: [Contributor(name: "Ann", uri: "https://x/urn:x:1")])
        let bytes = DetailCodec.detail(of: entry)
        #expect(DetailCodec.readDetail(.bytes(bytes), entryID: entry.id, authors: "Ann", narrators: "") != nil)
        // Read with other columns than it was written with: not read, rather than read with other names.
        #expect(DetailCodec.readDetail(.bytes(bytes), entryID: entry.id, authors: "Anne", narrators: "") == nil)
        let damages: [[UInt8]] = [Array(bytes.dropLast()), bytes + [0], [DetailCodec.version + 1] + Array(bytes.dropFirst()), [], [1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]
        for damaged in damages {
            #expect(DetailCodec.readDetail(.bytes(damaged), entryID: entry.id, authors: "Ann", narrators: "") == nil,
                    "\(damaged)")
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

    /// What `show` reads of each title of a store: contributors, categories, links, URLs and acquisitions.
    static func shown(_ store: Store, _ ids: [String], in library: Library) throws -> [String] {
        try ids.map { id in
            let detail = try store.edition(try store.resolveEdition(id, in: library))
            return "\(detail.contributors) \(detail.categories) \(detail.links) \(detail.acquisitions) "
                + [detail.coverURL, detail.thumbnailURL, detail.revokeURL, detail.annotationsURL].description
                + [detail.publisher, detail.issued, detail.language, detail.distributor, detail.additionalType,
                   detail.updated, detail.published].description + " \(detail.summary.shortID)"
        }
    }

    /// Puts a store's titles back as a store written before migration v27 kept them: acquisitions as rows of the
    /// table `acquisition`, URLs and facts (publisher to published) in their columns, short ids as text, and the
    /// detail (and indirect types) as version 1 bytes, or as JSON, as before migration v25. The upgrades to come
    /// are marked not yet run.
    static func writeAsBefore(_ db: Database, json: Bool) throws {
        let shortIDs = try Row.fetchAll(db, sql: "SELECT id, entry_id, short_id, short_width FROM edition").map {
            (id: $0["id"] as Int64, shown: ShortID.shown(text: $0["short_id"], width: $0["short_width"], of: $0["entry_id"]))
        }
        #expect(shortIDs.contains { $0.shown.count > ShortID.minimumLength }, "no short id is wider than the base form")
        try db.execute(sql: """
            DROP INDEX edition_list;
            ALTER TABLE edition DROP COLUMN short_width;
            ALTER TABLE edition ADD COLUMN publisher TEXT;
            ALTER TABLE edition ADD COLUMN issued TEXT;
            ALTER TABLE edition ADD COLUMN language TEXT;
            ALTER TABLE edition ADD COLUMN distributor TEXT;
            ALTER TABLE edition ADD COLUMN additional_type TEXT;
            ALTER TABLE edition ADD COLUMN updated TEXT;
            ALTER TABLE edition ADD COLUMN published TEXT;
            CREATE INDEX edition_list ON edition(
                library_id, title COLLATE NOCASE, entry_id, authors, narrators, medium, protection, state,
                entitlement, availability_status, availability_since, availability_until, holds_position,
                holds_total, copies_available, copies_total, in_catalog, is_draft, is_paid, has_local_copy,
                has_borrow, duration, series_name, series_position, series_url, found_by, short_id);
            """)
        for (id, shown) in shortIDs {
            try db.execute(sql: "UPDATE edition SET short_id = ? WHERE id = ?", arguments: [shown, id])
        }
        try db.execute(sql: """
            CREATE TABLE acquisition (
                id INTEGER PRIMARY KEY,
                edition_id INTEGER NOT NULL REFERENCES edition(id) ON DELETE CASCADE,
                position INTEGER NOT NULL, kind TEXT NOT NULL, rel TEXT NOT NULL, href TEXT NOT NULL, type TEXT,
                indirect TEXT NOT NULL DEFAULT '[]', availability_status TEXT, availability_since REAL,
                availability_until REAL, holds_total INTEGER, holds_position INTEGER, copies_total INTEGER,
                copies_available INTEGER, price TEXT, currency TEXT);
            CREATE INDEX acquisition_edition ON acquisition(edition_id);
            ALTER TABLE edition ADD COLUMN cover_url TEXT;
            ALTER TABLE edition ADD COLUMN thumbnail_url TEXT;
            ALTER TABLE edition ADD COLUMN revoke_url TEXT;
            ALTER TABLE edition ADD COLUMN annotations_url TEXT;
            """)
        for row in try Row.fetchAll(db, sql: "SELECT id, entry_id, detail, authors, narrators FROM edition") {
            let id: String = row["entry_id"]
            let stored = try #require(Store.editionDetail(row))
            for (position, acquisition) in (stored.acquisitions ?? []).enumerated() {
                let indirect: DatabaseValue = json
                    ? String(decoding: try JSONEncoder().encode(acquisition.indirect), as: UTF8.self).databaseValue
                    : Data(DetailCodec.indirect(acquisition.indirect, entryID: id)).databaseValue
                try db.execute(sql: """
                    INSERT INTO acquisition (edition_id, position, kind, rel, href, type, indirect, availability_status,
                        availability_since, availability_until, holds_total, holds_position, copies_total,
                        copies_available, price, currency)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [
                        row["id"], position, acquisition.kind.rawValue, acquisition.rel, acquisition.href, acquisition.type,
                        indirect, acquisition.availability?.status, acquisition.availability?.since?.timeIntervalSince1970,
                        acquisition.availability?.until?.timeIntervalSince1970, acquisition.holds?.total,
                        acquisition.holds?.position, acquisition.copies?.total, acquisition.copies?.available,
                        acquisition.price?.value, acquisition.price?.currency,
                    ])
            }
            let old = EditionDetailJSON(
                authors: stored.authors, contributors: stored.contributors, categories: stored.categories, links: stored.links)
            let detail: DatabaseValue
            if json {
                detail = String(decoding: try JSONEncoder().encode(old), as: UTF8.self).databaseValue
            } else {
                // Version 1: the same bytes without the four URLs, the count of acquisitions and the seven facts.
                let current = DetailCodec.detail(of: old.entry(id: id), asBefore4: true)
                #expect(current.suffix(12) == Array(repeating: 0, count: 12))
                detail = Data([1] + current.dropFirst().dropLast(12)).databaseValue
            }
            try db.execute(sql: """
                UPDATE edition SET detail = ?, cover_url = ?, thumbnail_url = ?, revoke_url = ?, annotations_url = ?,
                    publisher = ?, issued = ?, language = ?, distributor = ?, additional_type = ?, updated = ?,
                    published = ?
                WHERE id = ?
                """, arguments: [detail, stored.coverURL, stored.thumbnailURL, stored.revokeURL, stored.annotationsURL,
                                 stored.publisher, stored.issued, stored.language, stored.distributor,
                                 stored.additionalType, stored.updated, stored.published, row["id"]])
        }
        let undone = ((json ? ["'v25-compact-detail'"] : [])
            + ["'v27-acquisitions-in-detail'", "'v28-facts-in-detail-short-widths'"]).joined(separator: ", ")
        try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier IN (\(undone))")
    }

    /// A store written before migration v27 (acquisitions in a table of their own, URLs in their columns, the
    /// detail in version 1) shows the same before and after its upgrade, which moves them all into the detail and
    /// drops the table and the columns.
    @Test func aStoreWithAnAcquisitionTableIsUpgradedAndReadsTheSame() async throws {
        try await SyncFixture.with(DemoConfiguration(pageSize: 50, generatedEntries: 20)) { fixture in
            _ = try fixture.sync()
            let urlColumns: Set = ["cover_url", "thumbnail_url", "revoke_url", "annotations_url"]
            let (ids, columnsBefore) = try fixture.store.read { db in
                (try String.fetchAll(db, sql: "SELECT entry_id FROM edition ORDER BY id"),
                 Set(try db.columns(in: "edition").map(\.name)))
            }
            #expect(columnsBefore.isDisjoint(with: urlColumns))
            let before = try Self.shown(fixture.store, ids, in: fixture.library)
            #expect(before.filter { $0.contains("https://") || $0.contains("http://") }.count == ids.count, "\(before)")
            try fixture.store.write { try Self.writeAsBefore($0, json: false) }
            let upgraded = try Store(home: fixture.test.home, busyTimeout: 0.3)
            #expect(try Self.shown(upgraded, ids, in: fixture.library) == before)
            let (table, columns) = try upgraded.read { db in
                (try db.tableExists("acquisition"), Set(try db.columns(in: "edition").map(\.name)))
            }
            #expect(!table && columns.isDisjoint(with: urlColumns))
        }
    }

    /// A generated Palace-style title's detail is under a quarter of its JSON; a store written with JSON is
    /// upgraded, and `show` reads the same contributors, categories, links, URLs and acquisitions before and after.
    @Test func aStoreWrittenWithJSONIsUpgradedAndReadsTheSame() async throws {
        try await SyncFixture.with(DemoConfiguration(pageSize: 50, generatedEntries: 60)) { fixture in
            _ = try fixture.sync()
            let ids = try fixture.store.read { db in
                try String.fetchAll(db, sql: "SELECT entry_id FROM edition ORDER BY id")
            }
            let before = try Self.shown(fixture.store, ids, in: fixture.library)
            let (compact, asJSON) = try fixture.store.read { db in
                let rows = try Row.fetchAll(
                    db, sql: "SELECT entry_id, detail, authors, narrators FROM edition WHERE entry_id LIKE 'urn:uuid:5eed%'")
                #expect(rows.count == 60)
                var (compact, asJSON) = (0, 0)
                for row in rows {
                    let bytes = Array(row["detail"] as Data)
                    let stored = try #require(Store.editionDetail(row))
                    compact += bytes.count
                    asJSON += try JSONEncoder().encode(stored).count
                }
                return (compact, asJSON)
            }
            #expect(compact * 4 < asJSON, "\(compact) bytes against \(asJSON) as JSON")
            try fixture.store.write { try Self.writeAsBefore($0, json: true) }
            let textIndirect = try fixture.store.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM acquisition WHERE typeof(indirect) = 'text'")
            }
            #expect(textIndirect ?? 0 > 0)
            let upgraded = try Store(home: fixture.test.home, busyTimeout: 0.3)
            #expect(try Self.shown(upgraded, ids, in: fixture.library) == before)
            let text = try upgraded.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM edition WHERE typeof(detail) = 'text'")!
            }
            #expect(text == 0)
        }
    }
}
