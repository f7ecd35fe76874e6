import Foundation
import GRDB
import Testing
@testable import ShelfCore

/// Titles `shelf browse` and `shelf search` store: off the catalog, acted on by id, kept once acted on, forgotten
/// by a sync 30 days after they were last shown otherwise.
@Suite(.timeLimit(.minutes(5))) struct FoundTitlesTests {
    private func book(_ number: Int, status: String = "available") -> OPDSEntry {
        OPDSEntry(
            id: "urn:uuid:found-\(number)", title: "Found \(number)", authors: [Contributor(name: "A. Writer")],
            additionalType: "http://bib.schema.org/Audiobook", updated: "2026-01-0\(number)T00:00:00Z",
            acquisitions: [Acquisition(
                kind: .borrow, rel: "http://opds-spec.org/acquisition/borrow", href: "http://127.0.0.1:1/borrow/\(number)",
                type: "application/atom+xml;type=entry;profile=opds-catalog", availability: Availability(status: status),
                copies: Copies(total: 2, available: status == "available" ? 1 : 0))])
    }

    private func setUp() throws -> (TestHome, Store, Library) {
        let test = TestHome()
        let store = try test.store()
        let library = try store.addLibrary(name: "lib", url: URL(string: "http://127.0.0.1:1/")!)
        return (test, store, library)
    }

    private func history(_ store: Store, _ library: Library, _ id: String) throws -> [String] {
        try store.edition(id, in: library).history.map(\.kind)
    }

    @Test func foundTitlesAreKeptOffTheCatalogYetActOnByID() throws {
        let (test, store, library) = try setUp()
        let found = try store.recordFound([book(1), book(2), book(1)], in: library, by: .search)
        #expect(found.map(\.title) == ["Found 1", "Found 2", "Found 1"])
        #expect(found.allSatisfy { $0.foundBy == .search && !$0.inCatalog && $0.actions == [.borrow] })
        // Not the catalog's: `list` and `status` do not count them, not even as removed.
        #expect(try store.editions(of: library).isEmpty)
        #expect(try store.editions(of: library, filter: EditionFilter(includeRemoved: true)).isEmpty)
        let status = try store.status(of: library)
        #expect(status.titles == 0 && status.removed == 0)
        // …yet a part of the id finds them, with their history.
        #expect(try store.resolveEdition("found-2", in: library).entryID == "urn:uuid:found-2")
        #expect(try history(store, library, "found-1") == ["found"])
        // Shown again by browse: refreshed from the entry, not stored twice.
        let again = try store.recordFound([book(1, status: "unavailable")], in: library, by: .browse)
        #expect(again.first?.foundBy == .browse)
        #expect(again.first?.availability == "unavailable")
        #expect(try history(store, library, "found-1") == ["found", "availability"])
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM edition") } == 2)
        _ = test
    }

    @Test func aTitleASyncStoredIsNeverRewrittenByBrowsing() throws {
        let (test, store, library) = try setUp()
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        try store.write { db in
            let page = try FeedPageRecord.fetched(
                db, libraryID: library.id, kind: .catalog, url: "http://127.0.0.1:1/crawlable", position: 1, etag: nil,
                lastModified: nil, at: started.timeIntervalSince1970)
            let applier = try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: started)
            #expect(try applier.apply(EntryRecord(book(3)), pageID: page) == .added)
        }
        let shown = try store.recordFound([book(3, status: "unavailable")], in: library, by: .browse)
        #expect(shown.first?.foundBy == nil)
        #expect(shown.first?.inCatalog == true)
        #expect(shown.first?.availability == "available")
        #expect(try history(store, library, "found-3").isEmpty)
        _ = test
    }

    @Test func aSyncThatSeesAFoundTitleMakesItACatalogTitle() throws {
        let (test, store, library) = try setUp()
        _ = try store.recordFound([book(4)], in: library, by: .search)
        let outcome = try store.write { db in
            let page = try FeedPageRecord.fetched(
                db, libraryID: library.id, kind: .catalog, url: "http://127.0.0.1:1/crawlable", position: 1, etag: nil,
                lastModified: nil, at: 1_800_000_000)
            let applier = try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: Date())
            return try applier.apply(EntryRecord(book(4)), pageID: page)
        }
        // Counted as new to the catalog, not "restored": it was never removed from it.
        #expect(outcome == .added)
        let summary = try #require(try store.editions(of: library).first)
        #expect(summary.inCatalog && summary.foundBy == nil)
        #expect(try history(store, library, "found-4") == ["found"])
        _ = test
    }

    @Test func aSyncForgetsStaleFindsButNeverOnesThePatronActedOn() throws {
        let (test, store, library) = try setUp()
        let shown = Date(timeIntervalSince1970: 1_800_000_000)
        _ = try store.recordFound([book(5), book(6), book(7)], in: library, by: .search, now: shown)
        try store.write { db in
            let applier = try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: shown)
            // Borrowed: the loans applier gives it a loan and a loan event.
            let loans = try LoanApplier(db: db, libraryID: library.id, syncID: nil, now: shown, applier: applier)
            try loans.apply(EntryRecord(book(6)))
            // A download begun (and failed): the lifecycle moved, which its history keeps.
            let seven = try Int64.fetchOne(db, sql: "SELECT id FROM edition WHERE entry_id = 'urn:uuid:found-7'")!
            _ = try Store.transition(db, seven, libraryID: library.id, .downloadRequested, reason: "download", now: shown)
            _ = try Store.transition(db, seven, libraryID: library.id, .failed, reason: "it failed", now: shown)
        }
        func remaining() throws -> [String] {
            try store.read { db in try String.fetchAll(db, sql: "SELECT entry_id FROM edition ORDER BY entry_id") }
        }
        func sync(at date: Date) throws {
            try store.write { db in
                _ = try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: date).removeUnseen()
            }
        }
        try sync(at: shown.addingTimeInterval(29 * 86_400))
        #expect(try remaining() == ["urn:uuid:found-5", "urn:uuid:found-6", "urn:uuid:found-7"])
        try sync(at: shown.addingTimeInterval(31 * 86_400))
        #expect(try remaining() == ["urn:uuid:found-6", "urn:uuid:found-7"])
        // Acted on, it is the patron's: `list` shows it, and not as removed from the catalog.
        let listed = try store.editions(of: library)
        #expect(listed.map(\.id).contains("urn:uuid:found-6"))
        #expect(listed.allSatisfy { $0.foundBy == .search })
        _ = test
    }
}
