import Foundation
import GRDB
import Testing
@testable import ShelfCore

/// Migration v16 records which titles have a borrow link on the edition itself, where the list reads it; a sync
/// keeps it as the links change.
@Suite(.timeLimit(.minutes(5))) struct HasBorrowTests {
    @Test func theMigrationFillsItInAndTheActionsFollow() throws {
        let test = TestHome()
        let store = try test.store(writtenAt: "v15-edition-status-index") { db in
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
        let flags = try store.read { db in try Int.fetchAll(db, sql: "SELECT has_borrow FROM edition ORDER BY id") }
        #expect(flags == [1, 0, 0])
        let editions = try store.editions(of: try store.library(named: "lib"))
        #expect(editions.map { $0.actions.contains(.borrow) } == [true, false, false])
    }
}
