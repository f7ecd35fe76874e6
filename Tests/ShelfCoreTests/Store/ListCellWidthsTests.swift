import Foundation
import GRDB
import Testing
@testable import ShelfCore

/// `shelf list` sizes its columns from a pass that makes no summaries: its widths must be exactly those of the cells
/// the printed rows are made of, or the table's columns would drift.
@Suite(.timeLimit(.minutes(5))) struct ListCellWidthsTests {
    @Test func theMeasuringPassGivesTheWidthsOfTheCellsPrinted() throws {
        let test = TestHome()
        let store = try ShortIDTests.migratedStore(test)
        let library = try store.library(named: "lib")
        // Beside the migrated ones (widened UUIDs, an ISBN, a removed title, a loans-feed URL): wide and combining
        // characters, DRM, a token of 16 hex digits (which could pass for a hash), a found title, and an ebook.
        try store.write { db in
            for (id, title, authors, medium, protection, foundBy) in [
                ("urn:x:0123456789abcdef", "将軍 Shōgun", "James Clavell", "audiobook", "Findaway", nil),
                ("urn:uuid:5f0d6d2e-0000-4000-8000-0000000000aa", "Moby-Dick", "Herman Melville", "ebook", nil, nil),
                ("urn:uuid:5f0d6d2e-0000-4000-8000-0000000000bb", "Found", "Anon", "audiobook", nil, "search"),
            ] as [(String, String, String, String, String?, String?)] {
                try db.execute(sql: """
                    INSERT INTO edition (library_id, entry_id, title, authors, medium, protection, found_by, state,
                        content_hash, change_hash, first_seen_at, changed_at, state_changed_at, short_key, reversed_id)
                    VALUES (1, ?, ?, ?, ?, ?, ?, 'downloading', 0, 0, 0, 0, 0, ?, ?)
                    """, arguments: [id, title, authors, medium, protection, foundBy, ShortID.key(of: id).key, ShortID.reversed(id)])
            }
            // As every write that adds titles does.
            try Store.refreshShortIDs(db, libraryID: 1)
        }
        let shogun = try store.resolveEdition("urn:x:0123456789abcdef", in: library)
        try store.savePosition(
            ListeningPosition(part: 0, seconds: 5, readingOrderItem: "a", device: try store.deviceID(), deviceName: nil, at: Date()),
            of: shogun, percent: 42.7, finished: false)

        for filter in [EditionFilter(), EditionFilter(includeRemoved: true), EditionFilter(state: .downloading)] {
            var measured: [ListCellWidths] = []
            var printed: [ListCellWidths] = []
            try store.forEachEdition(of: library, filter: filter, firstPass: .widths { measured.append($0) }) {
                printed.append(ListCellWidths($0))
            }
            #expect(!printed.isEmpty)
            #expect(measured == printed, "filter \(filter)")
        }
        // The cells themselves: the hex token shown whole, the title two columns a wide character.
        let row = try #require(try store.editions(of: library).first { $0.id == "urn:x:0123456789abcdef" })
        #expect(row.shortID == "0123456789abcdef")
        #expect(ListCellWidths(row).title == 11 && row.progress == "42%")
        #expect(ListCellWidths(row).kind == "audiobook (Findaway DRM)".count)
    }
}

/// Migration v16 records which titles have a borrow link on the edition itself, where the list reads it; a sync
/// keeps it as the links change.
@Suite(.timeLimit(.minutes(5))) struct HasBorrowTests {
    @Test func theMigrationFillsItInAndTheActionsFollow() throws {
        let test = TestHome()
        try test.home.prepare()
        let queue = try DatabaseQueue(path: test.home.database.path)
        try Migrations.migrator.migrate(queue, upTo: "v15-edition-status-index")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO library (id, name, url, is_default, created_at) VALUES (1, 'lib', 'http://127.0.0.1:1/', 1, 0);
                """)
            for (id, kind) in [(1, "borrow"), (2, "open-access"), (3, nil)] as [(Int, String?)] {
                try db.execute(sql: """
                    INSERT INTO edition (id, library_id, entry_id, title, medium, content_hash, change_hash,
                        first_seen_at, changed_at, state_changed_at, availability_status, copies_available, short_key)
                    VALUES (?, 1, ?, ?, 'audiobook', 0, 0, 0, 0, 0, 'available', 1, ?)
                    """, arguments: [id, "urn:isbn:97800000000\(id)", "Title \(id)", "97800000000\(id)"])
                if let kind {
                    try db.execute(sql: """
                        INSERT INTO acquisition (edition_id, position, kind, rel, href) VALUES (?, 0, ?, 'r', 'http://127.0.0.1:1/a')
                        """, arguments: [id, kind])
                }
            }
        }
        try queue.close()
        let store = try Store(home: test.home)
        let flags = try store.read { db in try Int.fetchAll(db, sql: "SELECT has_borrow FROM edition ORDER BY id") }
        #expect(flags == [1, 0, 0])
        let editions = try store.editions(of: try store.library(named: "lib"))
        #expect(editions.map { $0.actions.contains(.borrow) } == [true, false, false])
    }
}
