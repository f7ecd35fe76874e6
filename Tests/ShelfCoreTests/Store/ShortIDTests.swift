import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

/// Short ids, finding a title by them, and the counts of `shelf status`, on a store written before
/// v15-edition-status-index and migrated by opening it.
@Suite(.timeLimit(.minutes(5))) struct ShortIDTests {
    static let first = "urn:uuid:04377e87-aaaa-4c6b-9f0e-d0c5e1f00001"
    static let second = "urn:uuid:04377e87-bbbb-4c6b-9f0e-d0c5e1f000b2"
    static let other = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    static let isbn = "urn:isbn:9781488208676"
    static let loan = "https://circulation.example.org/lib/works/?urn=urn%3Alibrarysimplified.org%2Fterms%2Fid%2FBibliotheca%20ID%2F44977"

    /// A store written at v14 with two libraries, `lib` (id 1) and `two` (id 2), and what `fill` writes; then opened
    /// as a Store, which migrates it.
    static func storeWrittenAtV14(_ test: TestHome, _ fill: (Database) throws -> Void) throws -> Store {
        try test.store(writtenAt: "v14-follows-and-download-policy") { db in
            try db.execute(sql: """
                INSERT INTO library (id, name, url, is_default, created_at) VALUES (1, 'lib', 'http://127.0.0.1:1/', 1, 0);
                INSERT INTO library (id, name, url, is_default, created_at) VALUES (2, 'two', 'http://127.0.0.1:2/', 0, 0);
                """)
            try fill(db)
        }
    }

    /// Five editions of one library (one removed) and one of another, written at v14; then opened as a Store.
    static func migratedStore(_ test: TestHome) throws -> Store {
        try storeWrittenAtV14(test) { db in
            for (index, (library, id, state, inCatalog)) in [
                (1, first, "new", 1), (1, second, "downloaded", 1), (1, other, "new", 1), (1, isbn, "new", 0),
                (1, loan, "new", 1), (2, "urn:uuid:04377e87-cccc-4c6b-9f0e-d0c5e1f00003", "new", 1),
            ].enumerated() {
                try db.execute(sql: """
                    INSERT INTO edition (library_id, entry_id, title, medium, content_hash, change_hash, first_seen_at,
                        changed_at, state_changed_at, state, in_catalog) VALUES (?, ?, ?, 'audiobook', 0, 0, 0, 0, 0, ?, ?)
                    """, arguments: [library, id, "Title \(index)", state, inCatalog])
            }
        }
    }

    @Test func keys() {
        #expect(ShortID.base(of: Self.other) == "7d3c0002")
        #expect(ShortID.base(of: Self.isbn) == "9781488208676")
        #expect(ShortID.base(of: "urn:librarysimplified.org/terms/id/Gutenberg ID/1342") == "1342")
        // A loans-feed URL: its tail is no token a person can type, so a hash of the whole id stands for it.
        let loan = ShortID.key(of: Self.loan)
        #expect(loan.byPrefix && loan.key.count == 16 && loan.key.allSatisfy(\.isHexDigit))
        #expect(ShortID.base(of: Self.loan) == String(loan.key.prefix(8)))
        #expect(ShortID.key(of: Self.loan + "0").key != loan.key)
    }

    /// A short id is kept as nothing for its base form, as a width for a longer prefix of its key, as text only for
    /// an end of its id; each comes back as it was shown.
    @Test func shortIDsAreKeptAsWidthsAndComeBack() {
        let cases: [(shown: String, id: String, text: String?, width: Int?)] = [
            ("04377e87", Self.first, nil, nil),
            ("04377e87-a", Self.first, nil, 10),
            ("04377e87-aaaa-4c6b-9f0e-d0c5e1f00001", Self.first, nil, 36),
            ("9781488208676", Self.isbn, nil, nil),
            ("isbn:9781488208676", Self.isbn, "isbn:9781488208676", nil),
            ("uuid:04377e87-aaaa-4c6b-9f0e-d0c5e1f00001", Self.first, "uuid:04377e87-aaaa-4c6b-9f0e-d0c5e1f00001", nil),
            (String(ShortID.key(of: Self.loan).key.prefix(11)), Self.loan, nil, 11),
        ]
        for (shown, id, text, width) in cases {
            let stored = ShortID.stored(shown, of: id)
            #expect(stored.text == text && stored.width == width, "\(shown) of \(id): \(stored)")
            #expect(ShortID.shown(text: stored.text, width: stored.width, of: id) == shown)
        }
    }

    /// A store written at v14 had `UNIQUE (library_id, entry_id)`; migrated, it has no index of ids alone: a title
    /// is found by its id through its key, and applying an entry whose id is stored (in the same transaction or a
    /// later one) writes no second row; in another library the same id is a title of its own.
    @Test func anIdIsFoundThroughItsKeyAndNeverStoredTwice() throws {
        let test = TestHome()
        let store = try Self.migratedStore(test)
        let indexes = try store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'edition'")
        }
        #expect(!indexes.contains { $0.hasPrefix("sqlite_autoindex") }, "\(indexes)")
        let library = try store.library(named: "lib")
        let record = EntryRecord(OPDSEntry(id: Self.first, title: "Title 0"))
        let other = EntryRecord(OPDSEntry(id: "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f99999", title: "New"))
        let page = try store.write { db in
            try db.execute(sql: """
                INSERT INTO feed_page (library_id, kind, url, position, fetched_at) VALUES (?, 'catalog', 'p', 0, 0)
                """, arguments: [library.id])
            return db.lastInsertedRowID
        }
        let outcomes = try store.write { db in
            let applier = try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: Date())
            let outcomes = try [record, other, other, record].map { try applier.apply($0, pageID: page) }
            try applier.finish()
            return outcomes
        }
        #expect(outcomes == [.refreshed, .added, .duplicate, .duplicate], "\(outcomes)")
        let again = try store.write { db in
            try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: Date()).apply(other, pageID: page)
        }
        #expect(again == .unchanged)
        let counts = try store.read { db in
            try [Self.first, other.entry.id].map {
                try Int.fetchOne(db, sql: "SELECT count(*) FROM edition WHERE library_id = ? AND entry_id = ?",
                                 arguments: [library.id, $0])
            }
        }
        #expect(counts == [1, 1])
        #expect(try store.resolveEdition(Self.first, in: library).entryID == Self.first)
        #expect(try store.resolveEdition(Self.loan, in: library).entryID == Self.loan)
    }

    @Test func shortIDsAreWidenedUntilUniqueAndFindTheirTitle() throws {
        let test = TestHome()
        let store = try Self.migratedStore(test)
        let library = try store.library(named: "lib")
        let filled = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT entry_id, short_key FROM edition").map { [$0[0], $0[1]] as [String] }
        }
        #expect(filled.allSatisfy { $0[1] == ShortID.key(of: $0[0]).key })

        let listed = Dictionary(uniqueKeysWithValues: try store.editions(of: library, filter: EditionFilter(includeRemoved: true))
            .map { ($0.id, $0.shortID) })
        let hash = ShortID.base(of: Self.loan)
        #expect(listed == [
            Self.first: "04377e87-a", Self.second: "04377e87-b", Self.other: "7d3c0002", Self.isbn: "9781488208676",
            Self.loan: hash,
        ])
        for (id, short) in listed {
            let edition = try store.resolveEdition(short, in: library)
            #expect(edition.entryID == id)
            #expect(try store.summary(of: edition).shortID == short)
            #expect(try store.edition(edition).summary.shortID == short)
            // The end of the id, as the benchmark types it.
            #expect(try store.resolveEdition(String(id.suffix(12)), in: library).entryID == id)
            #expect(try store.resolveEdition(id, in: library).entryID == id)
        }
        // The 8 characters both share are ambiguous; the other library's third never counts.
        #expect(throws: StoreError.self) { try store.resolveEdition("04377e87", in: library) }
        // An end holding the id's last `:` or `/` is found through the key index; one of a hashed key by a scan.
        #expect(try store.resolveEdition("uuid:" + String(Self.other.suffix(36)), in: library).entryID == Self.other)
        #expect(try store.resolveEdition("isbn:9781488208676", in: library).entryID == Self.isbn)
        #expect(try store.resolveEdition("Bibliotheca%20ID%2F44977", in: library).entryID == Self.loan)
        #expect(ShortID.holdsTail("isbn:9781488208676") && ShortID.holdsTail(":x/" + Self.other.suffix(36)))
        #expect(!ShortID.holdsTail("9781488208676") && !ShortID.holdsTail("a/b c"))
        #expect(ShortID.holdsTail("a:x:"))
        // Any other part of an id is still found, by a scan.
        #expect(try store.resolveEdition("librarysimplified", in: library).entryID == Self.loan)
        #expect(throws: StoreError.self) { try store.resolveEdition("nothing-like-it", in: library) }
    }

    @Test func statusCountsAreTheSameWithoutTheIndexAndReadFromIt() throws {
        let test = TestHome()
        let store = try Self.migratedStore(test)
        let library = try store.library(named: "lib")
        let plan = try store.read { db in
            try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT state, COUNT(*) FROM edition WHERE library_id = 1 AND in_catalog = 1 GROUP BY state
                """).map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("COVERING INDEX edition_status"), "\(plan)")
        let indexed = try store.status(of: library)
        #expect(indexed.titles == 4 && indexed.removed == 1 && indexed.states["new"] == 3 && indexed.states["downloaded"] == 1)
        try store.write { db in try db.execute(sql: "DROP INDEX edition_status") }
        #expect(try store.status(of: library) == indexed)
    }
}

/// The lines that name one title (the queue, `shelf news` and its notices) give the same widened short id
/// `shelf list` shows, so it can be typed back.
@Suite(.timeLimit(.minutes(5))) struct ShortIDElsewhereTests {
    @Test func theQueueNewsAndNoticesWidenAsTheListDoes() throws {
        let test = TestHome()
        let store = try ShortIDTests.migratedStore(test)
        let library = try store.library(named: "lib")
        let listed = Dictionary(uniqueKeysWithValues: try store.editions(of: library).map { ($0.id, $0.shortID) })
        let widened = try #require(listed[ShortIDTests.first])
        #expect(widened.count > ShortID.minimumLength && widened != ShortID.base(of: ShortIDTests.first))

        let queue = DownloadQueue(store: store, library: library)
        try queue.enqueue(try store.resolveEdition(ShortIDTests.first, in: library))
        try queue.enqueue(try store.resolveEdition(ShortIDTests.other, in: library))
        #expect(try queue.entries().map(\.shortID) == [widened, "7d3c0002"])

        try store.write { db in
            try db.execute(sql: "UPDATE edition SET authors = 'Ann Author', first_seen_at = 100 WHERE entry_id = ?",
                           arguments: [ShortIDTests.first])
        }
        #expect(try store.follow(.author, name: "Ann Author"))
        let found = try store.write { db in try Store.matchFollows(db, libraryID: library.id, since: 50, now: Date()) }
        #expect(found == 1)
        #expect(try store.news().map(\.shortID) == [widened])
        let notice = try #require(try store.notices().first { $0.kind == .newTitle })
        #expect(notice.text.hasSuffix("shelf show \(widened)"), "\(notice.text)")
    }

    /// A library of adversarial ids, added in batches: each title's shown id opens it, and the ids widened batch by
    /// batch are those one pass over every key gives.
    @Test(arguments: [26, 27, 28]) func everyShownIDLeadsBackToItsOwnTitleAmongAdversarialIDs(seed: Int) throws {
        let test = TestHome()
        let store = try test.store()
        let library = try store.addLibrary(name: "lib", url: URL(string: "http://127.0.0.1:1/")!)
        var ids: Set<String> = [
            "urn:x:1", "urn:y:1", "1", "x:1", "urn:xx:1", "a/b/1", "10", "9781488208676", "urn:isbn:9781488208676",
            "isbn:9781488208676", ShortIDTests.first, ShortIDTests.second, "04377e87-aaaa-4c6b-9f0e-d0c5e1f00001", "04377e87",
            ShortIDTests.loan,
            ShortIDTests.loan + "0",
        ]
        let segments = [
            "urn", "x", "y", "xx", "isbn", "uuid", "1", "01", "10", "9781488208676", "04377e87",
            "04377e87-aaaa-4c6b-9f0e-d0c5e1f00001", "04377e87-aaaa-4c6b-9f0e-d0c5e1f00002", "a b", "works", "?urn=1%2F2",
        ]
        // The same seed, the same ids.
        var random = SplitMix64(seed: UInt64(seed))
        while ids.count < 300 {
            let count = Int.random(in: 1...4, using: &random)
            var id = segments.randomElement(using: &random)!
            for _ in 1..<count { id += [":", "/"].randomElement(using: &random)! + segments.randomElement(using: &random)! }
            ids.insert(id)
        }
        // UUIDs sharing 8 to 12 characters, which set each other apart by a wider prefix.
        let hex = Array("0123456789abcdef")
        for _ in 0..<40 {
            let shared = ["04377e87-a", "04377e87-aa", "04377e87-aaa", "5eed0000-0"].randomElement(using: &random)!
            var uuid = shared
            while uuid.count < 36 {
                uuid.append([8, 13, 18, 23].contains(uuid.count) ? "-" : hex.randomElement(using: &random)!)
            }
            ids.insert("urn:uuid:" + uuid)
        }
        // Added in batches of random sizes, in a random order, each widened as a write that adds titles (or a step of
        // a sync's apply) widens what it added.
        var order = ids.shuffled(using: &random)
        var index = 0
        while !order.isEmpty {
            let batch = order.prefix(Int.random(in: 1...40, using: &random))
            order.removeFirst(batch.count)
            try store.write { db in
                for id in batch {
                    index += 1
                    try db.execute(sql: """
                        INSERT INTO edition (library_id, entry_id, title, medium, content_hash, change_hash, first_seen_at,
                            changed_at, state_changed_at, state, in_catalog, short_key)
                        VALUES (?, ?, ?, 'audiobook', 0, 0, 0, 0, 0, 'new', 1, ?)
                        """, arguments: [library.id, id, "Title \(index)", ShortID.key(of: id).key])
                }
                try Store.widenShortIDs(db, libraryID: library.id, addedKeys: Set(batch.map { ShortID.key(of: $0).key }))
            }
        }
        // What the batches left is what one pass over every key makes.
        func storedShortIDs() throws -> [String: String] {
            try store.read { db in
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT entry_id, short_id, short_width FROM edition"
                ).map { ($0[0] as String, ShortID.shown(text: $0[1], width: $0[2], of: $0[0])) })
            }
        }
        let widened = try storedShortIDs()
        let widest = try store.shortIDWidth(of: library)
        try store.write { db in try Store.refreshShortIDs(db, libraryID: library.id) }
        #expect(try storedShortIDs() == widened)
        #expect(try store.shortIDWidth(of: library) == widest)
        #expect(widest == widened.values.map(\.count).max())
        var shown: [String: String] = [:]
        try store.forEachEdition(of: library) { shown[$0.id] = $0.shortID }
        #expect(shown.count == ids.count && shown == widened)
        #expect(Set(shown.values).count == ids.count, "two titles shown alike")
        // A whole id is shown whole; the others of its key by more of their ids (`x:1` would find `urn:xx:1` too).
        #expect(shown["1"] == "1" && shown["9781488208676"] == "9781488208676")
        #expect(shown["urn:x:1"] != "1" && shown["urn:isbn:9781488208676"] != "9781488208676")
        for (id, short) in shown {
            let found = try store.resolveEdition(short, in: library)
            #expect(found.entryID == id, "\(short), shown for \(id), opens \(found.entryID)")
            // One title alone is shown as the list shows it.
            #expect(try store.summary(of: found).shortID == short)
        }
        // The whole id of one title that ends another's finds the whole match, and says so.
        let (whole, note) = try store.resolveEditionNoting("9781488208676", in: library)
        #expect(whole.entryID == "9781488208676")
        #expect(note?.hasPrefix("9781488208676 is the whole id of one title and the end of another's") == true, "\(note ?? "")")
    }

    /// The widened lengths' table answers as a dictionary does, through growth, long probe runs (hashes sharing their
    /// low bits), a hash of 0 and keys widened twice.
    @Test func hashedLengthsAnswerAsADictionary() {
        var generator = SystemRandomNumberGenerator()
        var table = HashedLengths()
        var reference: [UInt64: UInt8] = [:]
        var hashes: [UInt64] = [0, 1 << 40, 2 << 40, 3 << 40, 64, 128]
        for _ in 0..<5_000 { hashes.append(generator.next()) }
        for hash in hashes + hashes.prefix(300) {
            let length = UInt8.random(in: 9...36, using: &generator)
            table.widen(hash, to: length)
            reference[max(hash, 1)] = max(reference[max(hash, 1)] ?? 0, length)
        }
        #expect(table.count == reference.count)
        #expect(hashes.allSatisfy { table[$0] == reference[max($0, 1)] })
        #expect(table[2] == nil && table[UInt64.max - 7] == nil)
        #expect(HashedLengths()[5] == nil && HashedLengths().isEmpty)
    }
}
