import DemoLibrary
import Foundation
import ShelfSpawn
import GRDB
import Testing
@testable import ShelfCore

/// A demo library on loopback and a fresh store pointed at it.
final class SyncFixture: @unchecked Sendable {
    let server: DemoLibraryServer
    let url: URL
    let test = TestHome()
    let store: Store
    let library: Library

    convenience init(configuration: DemoConfiguration = DemoConfiguration(pageSize: 5)) async throws {
        let server = DemoLibraryServer(configuration: configuration)
        try self.init(server: server, url: try await server.start())
    }

    /// A fresh store pointed at a demo library already started.
    init(server: DemoLibraryServer, url: URL) throws {
        self.server = server
        self.url = url
        store = try Store(home: test.home, busyTimeout: 0.3)
        library = try store.addLibrary(name: "demo", url: url)
    }

    var state: DemoState { server.state }

    /// Syncs, blocking the caller (the demo library answers on threads of its own).
    func sync(lockTimeout: TimeInterval = 1, retry: RetryPolicy = SyncFixture.quickRetry) throws -> SyncSummary {
        let (store, home, library) = (self.store, test.home, self.library)
        var options = SyncOptions()
        options.lockTimeout = lockTimeout
        options.retry = retry
        options.http.stallTimeout = 5
        return try SyncEngine(store: store, home: home, options: options).sync(library)
    }

    /// Retries as the default policy makes them, with short waits so a failing page fails fast.
    static let quickRetry = RetryPolicy(maxAttempts: 3, base: 0.05, cap: 2, budget: 5)

    /// The same, blocking the caller: only for syncs that fail before any request.
    func syncBlocking() throws -> SyncSummary {
        var options = SyncOptions()
        options.lockTimeout = 1
        return try SyncEngine(store: store, home: test.home, options: options).sync(library)
    }

    /// Everything a sync may write, to compare before and after a failed one.
    func snapshot() throws -> [String] {
        try store.read { db in
            let editions = try Row.fetchAll(db, sql: """
                SELECT entry_id, title, content_hash, change_hash, in_catalog, state, hex(detail) FROM edition
                ORDER BY entry_id
                """).map { $0.description }
            let pages = try Row.fetchAll(db, sql: "SELECT url, etag, next_url FROM feed_page ORDER BY id").map { $0.description }
            let events = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? 0
            return editions + pages + ["events: \(events)"]
        }
    }

    func stop() async { await server.stop() }

    /// Runs `body` with a new fixture and stops its library once `body` has ended, however it ended.
    static func with(
        _ configuration: DemoConfiguration = DemoConfiguration(pageSize: 5), _ body: (SyncFixture) async throws -> Void
    ) async throws {
        try await withDemoLibrary(configuration) { server, url in try await body(SyncFixture(server: server, url: url)) }
    }
}

@Suite(.timeLimit(.minutes(5))) struct SyncTests {
    @Test func aFullSyncStoresEveryTitleWithItsFields() async throws {
        try await SyncFixture.with { fixture in
            let summary = try fixture.sync()
            let expected = await fixture.state.pageCount
            #expect(summary.added == 27)
            #expect(summary.changed == 0 && summary.removed == 0)
            // The root page plus every crawlable page.
            #expect(summary.pages == expected + 1)
            #expect(summary.catalogTitles == 27)

            let pride = try fixture.store.edition("7d3c0001", in: fixture.library)
            #expect(pride.summary.title == "Pride and Prejudice")
            #expect(pride.summary.authors == "Jane Austen")
            #expect(pride.summary.narrators == "Rosalind Hale")
            #expect(pride.summary.medium == "audiobook")
            #expect(pride.summary.entitlement == .free)
            #expect(pride.summary.actions == [.download])
            #expect(pride.publisher == "LibriVox")
            #expect(pride.language == "en")
            #expect(pride.updated == "2024-02-03T10:15:00Z")
            #expect(pride.categories.contains { $0.label == "Romance" })
            #expect(pride.acquisitions.first?.kind == "open-access")
            #expect(pride.acquisitions.first?.href.hasPrefix(fixture.url.absoluteString) == true)

            let library = try fixture.store.library(named: "demo")
            #expect(library.shelfURL?.hasSuffix("/loans/") == true)
            #expect(library.crawlableURL?.contains("/crawlable") == true)
            #expect(library.lastSyncStatus == "ok")
        }
    }

    @Test func anUnchangedResyncIsAnsweredWith304sAndChangesNothing() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            let before = try fixture.snapshot()
            await fixture.state.resetStats()
            let summary = try fixture.sync()
            #expect(summary.pagesNotModified == summary.pages)
            #expect(summary.added == 0 && summary.changed == 0 && summary.removed == 0)
            #expect(summary.entries == 27)
            #expect(await fixture.state.notModifiedCount("/crawlable") == summary.pages - 1)
            #expect(try fixture.snapshot() == before)
        }
    }

    @Test func aDownloadedEditionBecomesUpdatedWhenThePublisherChangesUpdated() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            let id = "urn:uuid:7d3c0004-5a1e-4c6b-9f0e-d0c5e1f00004"
            for event in [LifecycleEvent.downloadRequested, .authorised, .transferFinished, .processed] {
                try fixture.store.applyLifecycle(event, to: try fixture.store.resolveEdition(id, in: fixture.library))
            }
            #expect(try fixture.store.edition(id, in: fixture.library).summary.state == .downloaded)
            let old = try fixture.store.edition(id, in: fixture.library).updated
            let changed = try await fixture.state.touch(id: id, updated: Date(timeIntervalSince1970: 1_800_000_000))

            let summary = try fixture.sync()
            #expect(summary.changed == 1)
            #expect(summary.added == 0 && summary.removed == 0)
            let detail = try fixture.store.edition(id, in: fixture.library)
            #expect(detail.summary.state == .updated)
            #expect(detail.summary.actions.contains(.listen))
            #expect(detail.updated != old)
            let change = try #require(detail.history.last { $0.kind == "changed" })
            #expect(change.detail.contains("updated \(old ?? "")"))
            #expect(change.detail.contains("2027-01-15"))
            #expect(detail.history.contains { $0.kind == "state" && $0.detail.hasPrefix("Downloaded → Updated") })
            _ = changed
        }
    }

    @Test func anAcquisitionHrefChangeIsAChangeToo() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            let id = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
            let before = try fixture.store.edition(id, in: fixture.library).acquisitions.first?.href
            for event in [LifecycleEvent.downloadRequested, .authorised, .transferFinished, .processed] {
                try fixture.store.applyLifecycle(event, to: try fixture.store.resolveEdition(id, in: fixture.library))
            }
            try await fixture.state.setAcquisitionHref(id: id, href: "/fulfil/sherlock-v2")
            let summary = try fixture.sync()
            #expect(summary.changed == 1)
            let detail = try fixture.store.edition(id, in: fixture.library)
            #expect(detail.summary.state == .updated)
            let after = try #require(detail.acquisitions.first?.href)
            #expect(after.hasSuffix("/fulfil/sherlock-v2"))
            let change = try #require(detail.history.last { $0.kind == "changed" })
            #expect(change.detail.contains("href \(before ?? "") → \(after)"))
        }
    }

    @Test func aNewEditionStaysNewWhenItChanges() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            let id = "urn:uuid:7d3c0005-5a1e-4c6b-9f0e-d0c5e1f00005"
            try await fixture.state.touch(id: id)
            #expect(try fixture.sync().changed == 1)
            let detail = try fixture.store.edition(id, in: fixture.library)
            #expect(detail.summary.state == .new)
            #expect(!detail.history.contains { $0.kind == "state" })
        }
    }

    @Test func anEntryGoneFromTheFeedIsRecordedAsRemovedAndCanComeBack() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            let id = "urn:uuid:7d3c0003-5a1e-4c6b-9f0e-d0c5e1f00003"
            let title = try #require(await fixture.state.title(id: id))
            try await fixture.state.remove(id: id)
            let summary = try fixture.sync()
            #expect(summary.removed == 1)
            #expect(summary.catalogTitles == 26)
            let detail = try fixture.store.edition(id, in: fixture.library)
            #expect(detail.summary.inCatalog == false)
            #expect(detail.removedAt != nil)
            #expect(detail.history.last?.kind == "removed")
            #expect(try !fixture.store.editions(of: fixture.library).contains { $0.id == id })
            #expect(try fixture.store.editions(of: fixture.library, filter: EditionFilter(includeRemoved: true))
                .contains { $0.id == id })

            try await fixture.state.add(title)
            let back = try fixture.sync()
            #expect(back.restored == 1 && back.added == 0)
            #expect(try fixture.store.edition(id, in: fixture.library).summary.inCatalog)
        }
    }

    @Test func anEmptyCatalogDoesNotRemoveEverything() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            for index in 1...27 {
                try await fixture.state.remove(id: String(format: "urn:uuid:7d3c%04x-5a1e-4c6b-9f0e-d0c5e1f%05x", index, index))
            }
            let summary = try fixture.sync()
            #expect(summary.removed == 0)
            #expect(summary.catalogTitles == 27)
            #expect(summary.warnings.contains { $0.contains("came back empty") })

            // The next sync is told the empty page has not changed (304): it is still empty, so nothing goes.
            await fixture.state.resetStats()
            let again = try fixture.sync()
            #expect(await fixture.state.notModifiedCount("/crawlable") >= 1)
            #expect(again.removed == 0)
            #expect(again.catalogTitles == 27)
            #expect(again.warnings.contains { $0.contains("came back empty") })
        }
    }

    // MARK: bad input: each leaves the previous state intact

    /// Changes a title on page 1, breaks page `page` with `faults`, and checks the sync fails without
    /// applying the change it had already read.
    private func expectFailure(
        _ faults: PageFaults, page: Int = 3, exit: ShelfExit, message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            try await fixture.state.touch(id: "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001")
            let before = try fixture.snapshot()
            await fixture.state.setFaults(faults, page: page)
            #expect(sourceLocation: sourceLocation) {
                _ = try fixture.sync()
            } throws: { error in
                guard let failure = error as? ShelfFailure else { return false }
                let text = failure.description
                #expect(failure.exitCode == exit, "\(text)", sourceLocation: sourceLocation)
                #expect(text.contains(message), "\(text)", sourceLocation: sourceLocation)
                #expect(!text.contains("\n"), sourceLocation: sourceLocation)
                return true
            }
            #expect(try fixture.snapshot() == before, sourceLocation: sourceLocation)
            let library = try fixture.store.library(named: "demo")
            #expect(library.lastSyncStatus == "failed", sourceLocation: sourceLocation)
            // The failure is remembered, and the next good sync applies everything.
            await fixture.state.setFaults(PageFaults(), page: page)
            #expect(try fixture.sync().changed == 1, sourceLocation: sourceLocation)
        }
    }

    @Test func aServerErrorOnPage3() async throws {
        try await expectFailure(PageFaults(status: 500), exit: .serverError, message: "page 3 of the catalog")
    }

    @Test func aMissingPage() async throws {
        try await expectFailure(
            PageFaults(status: 404), exit: .noSuchPage, message: "the server has no page at http://127.0.0.1:")
    }

    @Test func aConnectionDroppedMidPage() async throws {
        try await expectFailure(PageFaults(dropConnectionAfterBytes: 700), exit: .serverError, message: "cut short")
    }

    @Test func aTruncatedBody() async throws {
        try await expectFailure(PageFaults(truncate: true), exit: .badData, message: "malformed XML at line")
    }

    @Test func htmlInsteadOfAFeed() async throws {
        try await expectFailure(PageFaults(html: true), exit: .badData, message: "HTML page, not an OPDS feed")
    }

    @Test func wellFormedXMLThatIsNotAtom() async throws {
        try await expectFailure(PageFaults(notAtom: true), exit: .badData, message: "not an OPDS/Atom feed")
    }

    @Test func aPageThatLinksBackToItself() async throws {
        try await expectFailure(PageFaults(nextPage: 3), exit: .badData, message: "pagination loop")
    }

    @Test func aPageThatLinksBackToAnEarlierPage() async throws {
        try await expectFailure(PageFaults(nextPage: 1), page: 4, exit: .badData, message: "pagination loop")
    }

    @Test func aFiftyMegabyteEntry() async throws {
        try await expectFailure(PageFaults(hugeEntryBytes: 50 << 20), exit: .badData, message: "larger than 8 MB")
    }

    /// Above shelf's limit but below libxml2's own: shelf's limit finds it, naming the page, before anything is stored.
    @Test func aNineMegabyteEntry() async throws {
        try await expectFailure(
            PageFaults(hugeEntryBytes: 9 << 20), exit: .badData, message: "sync stopped at page 3 of the catalog (")
        try await expectFailure(PageFaults(hugeEntryBytes: 9 << 20), exit: .badData, message: "larger than 8 MB")
    }

    @Test func anUnreachableServer() async throws {
        let fixture = try await SyncFixture()
        _ = try fixture.sync()
        let before = try fixture.snapshot()
        await fixture.stop()
        #expect {
            _ = try fixture.sync()
        } throws: { error in
            guard let failure = error as? ShelfFailure else { return false }
            return failure.exitCode == .offline && failure.description.contains("offline: cannot reach 127.0.0.1")
        }
        #expect(try fixture.snapshot() == before)
    }

    @Test func anotherSyncHoldingTheLock() async throws {
        try await SyncFixture.with { fixture in
            try fixture.test.home.prepare()
            let held = try #require(try FileLock.acquire(fixture.test.home.syncLock, timeout: 0))
            #expect {
                _ = try fixture.sync(lockTimeout: 0.2)
            } throws: { error in
                guard case SyncError.busy(let pid) = error else { return false }
                return pid == getpid() && SyncError.busy(pid: pid).exitCode == .busy
            }
            withExtendedLifetime(held) {}
            #expect(try fixture.store.editions(of: fixture.library).isEmpty)
        }
    }

    @Test func aDatabaseLockedByAnotherProcess() async throws {
        try await SyncFixture.with { fixture in
            let other = try DatabaseQueue(path: fixture.test.home.database.path)
            // Synchronous on purpose: the lock is held by another connection while this sync runs.
            func syncWhileLocked() throws {
                try other.writeWithoutTransaction { db in
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    #expect {
                        _ = try fixture.syncBlocking()
                    } throws: { error in
                        (error as? ShelfFailure)?.exitCode == .storeLocked
                    }
                    try db.execute(sql: "ROLLBACK")
                }
            }
            try syncWhileLocked()
            #expect(try fixture.sync().added == 27)
        }
    }
}
