import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

/// The demo library's catalog synced once as OPDS 1 (its root) and once as OPDS 2 (`/opds2/`), into one store.
@Suite(.timeLimit(.minutes(5))) struct OPDS2SyncTests {
    private func sync(_ fixture: SyncFixture, _ library: Library) async throws -> SyncSummary {
        let (store, home) = (fixture.store, fixture.test.home)
        var options = SyncOptions()
        options.lockTimeout = 1
        options.http.stallTimeout = 5
        return try SyncEngine(store: store, home: home, options: options).sync(library)
    }

    /// What both formats carry of a title; OPDS 2 has no `dcterms:issued`, distributor or draft flag, and the two
    /// libraries' timestamps and histories are their own.
    private func comparable(_ detail: EditionDetail) -> EditionDetail {
        var detail = detail
        detail.issued = nil
        detail.distributor = nil
        detail.history = []
        detail.firstSeenAt = .distantPast
        detail.changedAt = .distantPast
        detail.stateChangedAt = .distantPast
        return detail
    }

    @Test func anOPDS2CatalogSyncsIntoTheSameTitlesAsItsOPDS1Twin() async throws {
        try await SyncFixture.with { fixture in
            let opds2 = try fixture.store.addLibrary(name: "demo-opds2", url: fixture.url.appendingPathComponent("opds2/"))

            let atom = try await sync(fixture, fixture.library)
            let json = try await sync(fixture, opds2)
            let pages = await fixture.state.pageCount
            // The root, then every page of the crawlable feed through `next`.
            #expect(json.pages == pages + 1 && atom.pages == pages + 1)
            #expect(json.added == 27 && json.catalogTitles == 27 && json.warnings.isEmpty)

            let atomTitles = try fixture.store.editions(of: fixture.library)
            let jsonTitles = try fixture.store.editions(of: opds2)
            #expect(jsonTitles.map(\.id) == atomTitles.map(\.id))
            var drafts = 0
            for summary in atomTitles {
                let fromAtom = comparable(try fixture.store.edition(summary.id, in: fixture.library))
                var fromJSON = comparable(try fixture.store.edition(summary.id, in: opds2))
                if fromAtom.summary.isDraft {
                    // OPDS 2 cannot say a title is a draft; everything else about it must still agree.
                    drafts += 1
                    fromJSON.summary.isDraft = true
                    fromJSON.summary.actions = fromAtom.summary.actions
                    fromJSON.summary.circulation = fromAtom.summary.circulation
                }
                #expect(fromJSON == fromAtom, "\(summary.title)")
            }
            #expect(drafts == 1)

            let sherlock = try #require(jsonTitles.first { $0.shortID == "7d3c0002" })
            #expect(sherlock.duration == 37_080)
            #expect(sherlock.series == Series(
                name: "Sherlock Holmes", position: "3", href: fixture.url.absoluteString + "series/Sherlock%20Holmes"))
            let holmes = try fixture.store.editions(of: opds2, filter: EditionFilter(series: " sherlock HOLMES "))
            #expect(holmes.map(\.title) == ["The Adventures of Sherlock Holmes", "The Hound of the Baskervilles"])
            #expect(try fixture.store.editions(of: opds2, filter: EditionFilter(series: "Sherlock")).isEmpty)

            // Again: every page answers 304 to its validators and nothing changes.
            let again = try await sync(fixture, opds2)
            #expect(again.pagesNotModified == again.pages && again.added == 0 && again.changed == 0 && again.removed == 0)
        }
    }

    @Test func aChangedOPDS2PageIsReadAgainAndTheChangeStored() async throws {
        try await SyncFixture.with { fixture in
            let opds2 = try fixture.store.addLibrary(name: "demo-opds2", url: fixture.url.appendingPathComponent("opds2/"))
            _ = try await sync(fixture, opds2)
            _ = try await fixture.state.edit(id: "urn:uuid:7d3c0004-5a1e-4c6b-9f0e-d0c5e1f00004") { title in
                title.series = DemoTitle.Series(name: "Sea Stories", position: "1")
                title.duration = 80_000
            }
            let summary = try await sync(fixture, opds2)
            // New metadata, same acquisitions and `updated`: refreshed in place, not a publisher's change.
            #expect(summary.pagesNotModified == summary.pages - 2 && summary.changed == 0 && summary.added == 0)
            let moby = try fixture.store.edition("7d3c0004", in: opds2)
            #expect(moby.summary.series?.name == "Sea Stories" && moby.summary.duration == 80_000)
        }
    }
}

/// A store synced before editions kept duration and series, upgraded to migration v9.
@Suite(.timeLimit(.minutes(5))) struct DurationSeriesUpgradeTests {
    @Test func theFirstSyncAfterTheUpgradeReadsEveryPageAndFillsInWhatTheFeedsCarry() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            let frankensteinBefore = try fixture.store.edition("7d3c0003", in: fixture.library).changedAt
            // Back to the schema before v9. Before v9 an entry's hash left out its duration and series, so the hash
            // stored for a title that has them differs from the one computed now; one without them hashed the same.
            try fixture.store.write { db in
                try db.execute(sql: "UPDATE edition SET content_hash = content_hash + 1 WHERE duration IS NOT NULL OR series_name IS NOT NULL")
                // The list's covering index (v16) names the columns: it goes, and comes back with its migration.
                try db.execute(sql: "DROP INDEX edition_list")
                try db.execute(sql: "ALTER TABLE edition DROP COLUMN has_borrow")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v16-list-covering-index'")
                // v16 reads the acquisitions from their table, which v27 moved into each title's detail: what it reads
                // of them is put back for it.
                try db.execute(sql: "CREATE TABLE acquisition (edition_id INTEGER, kind TEXT)")
                for row in try Row.fetchAll(db, sql: "SELECT id, entry_id, detail, authors, narrators FROM edition") {
                    let detail = Store.editionDetail(row)
                    for acquisition in detail?.acquisitions ?? [] {
                        try db.execute(sql: "INSERT INTO acquisition VALUES (?, ?)", arguments: [row["id"], acquisition.kind.rawValue])
                    }
                }
                for column in ["duration", "series_name", "series_position", "series_url"] {
                    try db.execute(sql: "ALTER TABLE edition DROP COLUMN \(column)")
                }
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v9-edition-duration-and-series'")
            }

            let upgraded = try Store(home: fixture.test.home, busyTimeout: 0.3)
            try upgraded.write { db in try db.execute(sql: "DROP TABLE acquisition") }
            #expect(try upgraded.edition("7d3c0002", in: fixture.library).summary.duration == nil)
            let library = fixture.library
            let home = fixture.test.home
            var options = SyncOptions()
            options.lockTimeout = 1
            let summary = try SyncEngine(store: upgraded, home: home, options: options).sync(library)
            #expect(summary.pagesNotModified == 0 && summary.added == 0 && summary.changed == 0 && summary.removed == 0)
            let sherlock = try upgraded.edition("7d3c0002", in: library).summary
            #expect(sherlock.duration == 37_080 && sherlock.series?.name == "Sherlock Holmes")
            // An ebook with neither was not rewritten: its hash is what it was.
            #expect(try upgraded.edition("7d3c0003", in: library).changedAt == frankensteinBefore)
        }
    }
}
