import Foundation
import GRDB
import Testing
@testable import ShelfCore

/// `shelf list --state S` for a state few titles are in reads them through the state index and widens their short
/// ids against their neighbours in the key index: the rows, their order, their short ids and the measuring pass's
/// widths must be exactly those of the whole library read in title order.
@Suite(.timeLimit(.minutes(5))) struct ListStateIndexTests {
    /// 1,502 titles of one library written at v14 (then migrated by opening the store): UUIDs sharing up to 35 of
    /// their characters, two UUIDs each under two ids, ISBNs and loans-feed URLs, wide and combining characters, a removed
    /// title; 40 downloaded, 3 updated, the rest new; and a title of another library in every state.
    static func store(_ test: TestHome) throws -> Store {
        try ShortIDTests.storeWrittenAtV14(test) { db in
            func insert(_ library: Int, _ id: String, _ title: String, _ authors: String, _ state: String, _ inCatalog: Int)
                throws
            {
                try db.execute(sql: """
                    INSERT INTO edition (library_id, entry_id, title, authors, medium, content_hash, change_hash,
                        first_seen_at, changed_at, state_changed_at, state, in_catalog)
                    VALUES (?, ?, ?, ?, 'audiobook', 0, 0, 0, 0, 0, ?, ?)
                    """, arguments: [library, id, title, authors, state, inCatalog])
            }
            for index in 0..<1500 {
                let id: String
                switch index % 5 {
                case 0: id = String(format: "urn:uuid:04377e87-0000-4000-8000-%012x", index)
                case 1: id = String(format: "urn:uuid:%08x-aaaa-4c6b-9f0e-d0c5e1f00001", index * 7919)
                case 2: id = "urn:isbn:978\(1_000_000_000 + index)"
                case 3: id = "https://circulation.example.org/lib/works/?urn=urn%3Aid%2F\(index)"
                default: id = String(format: "urn:uuid:04377e87-0000-4000-8001-%012x", index * 16 + 1)
                }
                let state = index % 37 == 0 ? "downloaded" : index % 500 == 7 ? "updated" : "new"
                let title = ["The Tale of \(index)", "Shōgun \(index)", "東京物語 \(index)", "Cafe\u{301} \(index)"][index % 4]
                try insert(1, id, title, String(repeating: "A", count: index % 23), state, index == 74 ? 0 : 1)
            }
            // The same UUID under another id, in the downloaded state: equal keys, each shown by more of its id.
            try insert(1, "https://example.org/books/04377e87-0000-4000-8000-000000000000", "Twin", "", "downloaded", 1)
            // And of a UUID no neighbour shares more than a few characters with (title 111's).
            try insert(1, "https://example.org/books/000d69a1-aaaa-4c6b-9f0e-d0c5e1f00001", "Twin", "", "downloaded", 1)
            for state in ["new", "downloaded", "updated"] {
                try insert(2, "urn:uuid:04377e87-0000-4000-8000-00000000000\(state.count)", "Other \(state)", "", state, 1)
            }
        }
    }

    /// The summaries of `shelf list --state`, read one way or the other.
    static func listed(_ store: Store, _ library: Library, _ filter: EditionFilter, limit: Int) throws
        -> (rows: [EditionSummary], Void)
    {
        var rows: [EditionSummary] = []
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try store.forEachEdition(of: library, filter: filter, now: now, stateIndexLimit: limit) { rows.append($0) }
        return (rows, ())
    }

    @Test func aStateFewTitlesAreInListsAsTheWholeLibraryDoes() throws {
        let test = TestHome()
        let store = try Self.store(test)
        let library = try store.library(named: "lib")
        for (state, expected) in [(LifecycleState.downloaded, 43), (.updated, 3), (.new, 1456), (.downloading, 0)] {
            for removed in [false, true] {
                let filter = EditionFilter(state: state, includeRemoved: removed)
                let whole = try Self.listed(store, library, filter, limit: 0)
                let indexed = try Self.listed(store, library, filter, limit: 2000)
                #expect(whole.rows.count == expected, "\(state)")
                #expect(indexed.rows == whole.rows, "\(state), removed \(removed)")
                #expect(try Self.listed(store, library, filter, limit: 1000).rows == whole.rows)
            }
            // The state index is taken for it: the keys of its titles are read, not the whole library.
            let keys = try store.read { db in
                try Store.fewKeys(db, libraryID: library.id, state: state, limit: 2000)
            }
            #expect(keys?.count == expected)
        }
        // Widened short ids are among them, so the neighbours' rule is what is compared.
        let downloaded = try Self.listed(store, library, EditionFilter(state: .downloaded), limit: 2000).rows
        #expect(downloaded.contains { $0.shortID.count > ShortID.minimumLength && $0.shortID.count < 36 })
        for key in ["04377e87-0000-4000-8000-000000000000", "000d69a1-aaaa-4c6b-9f0e-d0c5e1f00001"] {
            let twins = downloaded.filter { $0.id.hasSuffix(key) }
            #expect(twins.count == 2 && Set(twins.map(\.shortID)).count == 2, "\(twins.map(\.shortID))")
            #expect(twins.contains { $0.shortID == "books/" + key }, "\(twins.map(\.shortID))")
        }
        // A line that names one title (shelf show, the queue, notices) widens its short id the same way.
        for row in downloaded {
            #expect(try store.summary(of: store.resolveEdition(row.id, in: library)).shortID == row.shortID)
        }
        // Past the limit, the whole library is read as before.
        #expect(try store.read { db in try Store.fewKeys(db, libraryID: library.id, state: .new, limit: 1000) } == nil)
    }
}
