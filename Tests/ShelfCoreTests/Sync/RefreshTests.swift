import DemoLibrary
import Foundation
import GRDB
import Testing
@testable import ShelfCore

private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
private let frankenstein = "urn:uuid:7d3c0003-5a1e-4c6b-9f0e-d0c5e1f00003"
private let janeEyre = "urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010"
private let secretGarden = "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a"
private let warOfTheWorlds = "urn:uuid:7d3c000c-5a1e-4c6b-9f0e-d0c5e1f0000c"
private let timeMachine = "urn:uuid:7d3c0006-5a1e-4c6b-9f0e-d0c5e1f00006"

extension SyncFixture {
    /// One unattended refresh of the demo library, as cron runs it (`shelf sync --quiet`), in this process.
    func refresh(download: Bool = true) throws -> SyncSummary {
        var settings = RefreshSettings()
        settings.sync.lockTimeout = 1
        settings.sync.retry = SyncFixture.quickRetry
        settings.sync.http.stallTimeout = 30
        settings.noDownload = !download
        settings.attended = false
        return try LibraryRefresh(store: store, home: test.home, settings: settings).run(try store.library(named: "demo"))
    }

    func signIn() throws {
        try CredentialStore(home: test.home).save(
            Credentials(authType: AuthenticationDocument.basicType, username: "demo", password: "1234"), for: "demo")
    }

    func edition(_ id: String) throws -> EditionRef { try store.resolveEdition(id, in: try store.library(named: "demo")) }

    /// The bytes of audio the library has sent, every part of every title.
    func audioBytesSent() async -> Int {
        await state.stats.partBytesSent.values.reduce(0, +)
    }

    /// The bytes of audio the library has sent for one title.
    func sent(_ id: String) async -> Int {
        await state.stats.partBytesSent.filter { $0.key.hasPrefix(id + "/") }.values.reduce(0, +)
    }

    /// The bytes a title's downloaded parts hold, from the store.
    func storedBytes(_ id: String) throws -> Int {
        try store.parts(of: try edition(id)).reduce(0) { $0 + Int($1.bytes ?? 0) }
    }
}

/// The unattended run in one place: the catalog, loans, events, the download policy with its keep rule and budget,
/// and the patron's own word beside them, run in this process as cron runs `shelf sync --quiet`.
@Suite(.timeLimit(.minutes(5))) struct RefreshTests {
    /// What a run told, as `kind title`, in a stable order.
    private func told(_ summary: SyncSummary) -> [String] {
        summary.events.map { "\($0.kind.rawValue) \($0.text.split(separator: ":").first ?? "")" }.sorted()
    }

    @Test func tenCronRunsWithArchiveKeepBudgetAndPolicyFetchEachTitleOnce() async throws {
        try await SyncFixture.with { fixture in
            try await fixture.state.prepareAudio()
            _ = try fixture.refresh(download: false)
            try fixture.signIn()
            // Three audiobook loans (the demo allows three: the ebook goes back first), every policy at once.
            _ = try await fixture.state.revoke(frankenstein, as: "demo")
            _ = try await fixture.state.borrow(secretGarden, as: "demo")
            _ = try await fixture.state.borrow(warOfTheWorlds, as: "demo")
            _ = try fixture.store.setDownloadPolicy(name: "demo", policy: .all, keep: 1, maxBytes: 1 << 30)
            // H. G. Wells is followed: under `all`, a free title of his new to the catalog is downloaded too.
            try fixture.store.follow(.author, name: "H. G. Wells")
            // Sherlock is finished before The Secret Garden: the keep rule archives it first.
            try fixture.store.mark(try fixture.edition(sherlock), as: .finished)

            var runs: [(told: [String], bytes: Int)] = []
            func run() async throws {
                let before = await fixture.audioBytesSent()
                let summary = try fixture.refresh()
                runs.append((told(summary), await fixture.audioBytesSent() - before))
            }
            try await run()  // 1: three new loans, each downloaded
            let (s, g, w) = (await fixture.sent(sherlock), await fixture.sent(secretGarden), await fixture.sent(warOfTheWorlds))
            // The parts as sent are the parts kept (The Secret Garden comes as one zip, unpacked).
            #expect(try s == fixture.storedBytes(sherlock) && w == fixture.storedBytes(warOfTheWorlds))
            try fixture.store.mark(try fixture.edition(secretGarden), as: .finished)
            try await run()  // 2: two finished, keep 1: Sherlock archived
            var moon = try #require(await fixture.state.title(id: timeMachine))
            (moon.id, moon.title) = ("urn:uuid:7d3c0030-5a1e-4c6b-9f0e-d0c5e1f00030", "The First Men in the Moon")
            try await fixture.state.add(moon)
            try await run()  // 3: the followed author's new free title downloaded (Sherlock stays archived)
            let f = await fixture.sent(moon.id)
            #expect(try f == fixture.storedBytes(moon.id))
            let service = try FulfilmentService(
                store: fixture.store, home: fixture.test.home, library: try fixture.store.library(named: "demo"),
                configuration: HTTPConfiguration())
            _ = try service.archive(try fixture.edition(warOfTheWorlds))
            try await run()  // 4: nothing (the patron's archive stands)
            _ = try await fixture.state.revoke(sherlock, as: "demo")
            _ = try await fixture.state.borrow(janeEyre, as: "demo")
            _ = try fixture.store.setDownloadPolicy(name: "demo", policy: nil, keep: nil, maxBytes: 1024)
            try await run()  // 5: Sherlock's loan ended; Jane Eyre is a new loan, over the budget
            try await run()  // 6: nothing (the budget was said once)
            try await fixture.state.touch(id: warOfTheWorlds)
            try await run()  // 7: the archived title was updated: an event, not a download
            _ = try fixture.store.setDownloadPolicy(name: "demo", policy: nil, keep: nil, maxBytes: 1 << 30)
            try await run()  // 8: within the budget now, Jane Eyre is downloaded
            let m = await fixture.sent(janeEyre)
            #expect(try m == fixture.storedBytes(janeEyre))
            try fixture.store.mark(try fixture.edition(janeEyre), as: .finished)
            try await run()  // 9: two finished, keep 1: The Secret Garden archived
            try await fixture.state.touch(id: secretGarden)
            try await run()  // 10: the title the keep rule archived was updated: an event, not a download

            #expect(s > 1024 && g > 1024 && w > 1024 && m > 1024 && f > 1024)
            let expected: [(told: [String], bytes: Int)] = [
                ([
                    "downloaded The Adventures of Sherlock Holmes", "downloaded The Secret Garden",
                    "downloaded The War of the Worlds", "new-loan The Adventures of Sherlock Holmes",
                    "new-loan The Secret Garden", "new-loan The War of the Worlds",
                ], s + g + w),
                (["archived The Adventures of Sherlock Holmes"], 0),
                (["downloaded The First Men in the Moon", "new-title The First Men in the Moon"], f),
                ([], 0),
                (["download-failed Jane Eyre", "ended The Adventures of Sherlock Holmes", "new-loan Jane Eyre"], 0),
                ([], 0),
                (["updated The War of the Worlds"], 0),
                (["downloaded Jane Eyre"], m),
                (["archived The Secret Garden"], 0),
                (["updated The Secret Garden"], 0),
            ]
            #expect(runs.count == expected.count)
            for (index, (actual, wanted)) in zip(runs, expected).enumerated() {
                #expect(actual.told == wanted.told, "run \(index + 1)")
                #expect(actual.bytes == wanted.bytes, "run \(index + 1)")
            }
            // No title was fetched twice: each sent its bytes once, in the run that downloaded it (a size asked for
            // the budget is a HEAD, with no body).
            for (id, size) in [(sherlock, s), (secretGarden, g), (warOfTheWorlds, w), (janeEyre, m), (moon.id, f)] {
                #expect(await fixture.sent(id) == size, "\(id)")
            }
            // Each archive is said in the patron's terms, and the update tells how to get it.
            let events = try fixture.store.notices()
            #expect(events.contains { $0.text.hasPrefix("The Adventures of Sherlock Holmes: archived to keep 1 finished title") })
            #expect(events.contains {
                $0.text.hasPrefix("The War of the Worlds: updated by the publisher; you archived it, so it was not downloaded")
            })
            #expect(events.contains {
                $0.text.hasPrefix("The Secret Garden: updated by the publisher; it was archived when finished, so it was not downloaded")
            })
            #expect(try fixture.store.archivedBy(try fixture.edition(warOfTheWorlds)) == .patron)
            #expect(try fixture.store.archivedBy(try fixture.edition(secretGarden)) == .keep)
        }
    }

    @Test func aDownloadByNameTakesAnArchivedTitleBackAndTheNextRunKeepsIt() async throws {
        try await SyncFixture.with { fixture in
            try await fixture.state.prepareAudio()
            _ = try fixture.refresh(download: false)
            try fixture.signIn()
            _ = try fixture.refresh()
            let library = try fixture.store.library(named: "demo")
            let edition = try fixture.edition(sherlock)
            let service = try FulfilmentService(
                store: fixture.store, home: fixture.test.home, library: library, configuration: HTTPConfiguration())
            _ = try service.archive(edition)
            #expect(try fixture.store.archivedBy(edition) == .patron)
            // `download --all` is the policy's rule too: it leaves the archived title out.
            let all = try DownloadRun(
                store: fixture.store, home: fixture.test.home, library: library, configuration: HTTPConfiguration(),
                attended: true)
            #expect(try all.drain(.loans).isEmpty)
            #expect(try all.archivedCount() == 1)
            // Named, it is the patron taking it back.
            let named = try all.named(edition)
            guard case .downloaded = named.result else {
                Issue.record("not downloaded: \(named.line)")
                return
            }
            #expect(try fixture.store.archivedBy(edition) == nil)
            #expect(try fixture.store.summary(of: edition).state == .downloaded)
            let before = await fixture.audioBytesSent()
            #expect(try fixture.refresh().events.isEmpty)
            #expect(await fixture.audioBytesSent() == before)
        }
    }

    @Test func aTitleAnotherProcessIsDownloadingIsLeftAloneWithNoEvent() async throws {
        try await SyncFixture.with { fixture in
            try await fixture.state.prepareAudio()
            _ = try fixture.refresh(download: false)
            try fixture.signIn()
            _ = try fixture.refresh(download: false)
            let library = try fixture.store.library(named: "demo")
            let edition = try fixture.edition(sherlock)
            // Another shelf holds the title's download lock, as `shelf download` does while it runs.
            try fixture.test.home.prepare()
            let lockFile = fixture.test.home.temporary.appendingPathComponent("download-\(library.id)-\(edition.rowID).lock")
            let other = try #require(try FileLock.acquire(lockFile, timeout: 0))
            let summary = try fixture.refresh()
            withExtendedLifetime(other) {}
            #expect(summary.events.isEmpty, "\(summary.events.map(\.text))")
            #expect(summary.downloads?.failed == [])
            #expect(try fixture.store.notices().allSatisfy { $0.kind != .downloadFailed })
        }
    }
}

/// A sync applies feeds it read before: what the patron did with shelf after that reading is the later word.
@Suite(.timeLimit(.minutes(5))) struct PatronWordDuringSyncTests {
    /// Syncs, running `patron` after every page was read and before any is applied.
    private func sync(_ fixture: SyncFixture, patron: @escaping @Sendable () throws -> Void) throws -> SyncSummary {
        var options = SyncOptions()
        options.lockTimeout = 1
        options.retry = SyncFixture.quickRetry
        options.afterFetch = patron
        return try SyncEngine(store: fixture.store, home: fixture.test.home, options: options)
            .sync(try fixture.store.library(named: "demo"))
    }

    private func entitlement(_ fixture: SyncFixture, _ id: String) throws -> Entitlement {
        try fixture.store.summary(of: try fixture.edition(id)).entitlement
    }

    @Test func aReturnAndABorrowMadeAfterTheLoansFeedWasReadStand() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.refresh(download: false)
            try fixture.signIn()
            _ = try fixture.refresh(download: false)
            #expect(try entitlement(fixture, frankenstein) == .loan)
            #expect(try entitlement(fixture, secretGarden) != .loan)
            let (frankensteinRef, gardenRef) = (try fixture.edition(frankenstein), try fixture.edition(secretGarden))
            let summary = try sync(fixture) {
                let service = try CirculationService(
                    store: fixture.store, home: fixture.test.home, library: try fixture.store.library(named: "demo"),
                    configuration: HTTPConfiguration())
                _ = try service.returnTitle(frankensteinRef, force: true)
                _ = try service.borrow(gardenRef)
            }
            // The feed the sync read still had Frankenstein on loan and not The Secret Garden.
            #expect(try entitlement(fixture, frankenstein) != .loan)
            #expect(try entitlement(fixture, secretGarden) == .loan)
            #expect(!summary.notices.contains { $0.kind == .ended && $0.id == secretGarden })
            // The next sync reads the feed afresh and agrees.
            _ = try fixture.refresh(download: false)
            #expect(try entitlement(fixture, frankenstein) != .loan)
            #expect(try entitlement(fixture, secretGarden) == .loan)
        }
    }
}

/// What a guard kept reaches cron once: an event the first run it holds, nothing more while it lasts.
@Suite(.timeLimit(.minutes(5))) struct GuardEventTests {
    @Test func anEmptyLoansFeedIsOneEventWhileItLastsAndNewsAgainWhenItReturns() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.refresh(download: false)
            try fixture.signIn()
            _ = try fixture.refresh(download: false)
            await fixture.state.updateSwitches { $0.emptyLoans = true }
            var told: [[NoticeKind]] = []
            for _ in 0..<3 { told.append(try fixture.refresh(download: false).events.map(\.kind)) }
            await fixture.state.updateSwitches { $0.emptyLoans = false }
            told.append(try fixture.refresh(download: false).events.map(\.kind))
            await fixture.state.updateSwitches { $0.emptyLoans = true }
            let again = try fixture.refresh(download: false)
            told.append(again.events.map(\.kind))
            #expect(told == [[.syncWarning], [], [], [], [.syncWarning]])
            #expect(again.warnings.contains { $0.hasPrefix("the loans feed came back empty while 3 loans and holds are stored") },
                    "\(again.warnings)")
            #expect(again.events.first?.text.hasPrefix("demo: warning: the loans feed came back empty") == true)
            // Kept all along.
            #expect(try fixture.store.summary(of: try fixture.edition(sherlock)).entitlement == .loan)
        }
    }

    /// A catalog that comes back empty keeps the titles stored: an event the first run, nothing more while it
    /// lasts, news again once it came back and went again.
    @Test func anEmptyCatalogIsOneEventWhileItLastsAndNewsAgainWhenItReturns() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.refresh(download: false)
            let titles = await fixture.state.catalog.titles
            func empty() async throws { for title in titles { try await fixture.state.remove(id: title.id) } }
            try await empty()
            var told: [[NoticeKind]] = []
            for _ in 0..<3 { told.append(try fixture.refresh(download: false).events.map(\.kind)) }
            for title in titles { try await fixture.state.add(title) }
            let back = try fixture.refresh(download: false)
            told.append(back.events.map(\.kind))
            try await empty()
            let again = try fixture.refresh(download: false)
            told.append(again.events.map(\.kind))
            #expect(told == [[.syncWarning], [], [], [], [.syncWarning]])
            #expect(back.warnings.isEmpty && back.removed == 0, "\(back.warnings)")
            #expect(again.warnings.contains { $0.hasPrefix("the catalog came back empty; kept the 27 titles already stored") },
                    "\(again.warnings)")
            #expect(again.events.first?.text.hasPrefix("demo: warning: the catalog came back empty") == true)
            // Kept all along.
            #expect(again.removed == 0)
            #expect(try fixture.store.summary(of: try fixture.edition(warOfTheWorlds)).inCatalog)
        }
    }

    /// A server paging for ever (a new `next` on every page, repeating titles) is read until its pages stop bringing
    /// titles not seen this sync, not to the 100,000-page bound: a warning, once an event, and nothing removed.
    @Test func endlessPaginationEndsWhenPagesStopBringingNewTitles() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.refresh(download: false)
            let pages = await fixture.state.pageCount
            await fixture.state.updateSwitches { $0.endlessPages = true }
            try await fixture.state.remove(id: warOfTheWorlds)
            let summary = try fixture.refresh(download: false)
            // The root, the catalog's own pages, and the stale ones (the last page repeated).
            #expect(summary.pages <= 1 + pages + FeedFetcher.stalePages, "\(summary.pages) pages")
            let warning = summary.warnings.first { $0.hasPrefix("did not read the catalog page ") }
            #expect(warning?.contains("the \(FeedFetcher.stalePages) pages before it brought no title not seen this sync") == true,
                    "\(summary.warnings)")
            #expect(summary.removed == 0)
            #expect(try fixture.store.summary(of: try fixture.edition(warOfTheWorlds)).inCatalog)
            #expect(summary.events.map(\.kind) == [.syncWarning])
            // Told once while it lasts; once the feed ends again, the title the library dropped goes.
            // Every later sync stops at the same page (no new event), however many run.
            for run in 2...4 {
                let later = try fixture.refresh(download: false)
                #expect(later.events.isEmpty, "run \(run): \(later.events.map(\.text))")
                #expect(later.warnings.contains { $0 == warning }, "run \(run): \(later.warnings)")
            }
            await fixture.state.updateSwitches { $0.endlessPages = false }
            let ended = try fixture.refresh(download: false)
            #expect(ended.removed == 1, "\(ended.line) \(ended.warnings) \(ended.pages)")
        }
    }
}
