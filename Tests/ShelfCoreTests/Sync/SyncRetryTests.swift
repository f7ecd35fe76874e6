import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

/// Catalog pages that fail on the way (429, 5xx, a dropped connection) are asked for again, within bounds.
@Suite(.timeLimit(.minutes(5))) struct SyncRetryTests {
    private let touched = "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001"

    @Test func aPageAnswering503TwiceThen200Syncs() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            try await fixture.state.touch(id: touched)
            await fixture.state.setFaults(PageFaults(status: 503, statusTimes: 2), page: 3)
            await fixture.state.resetStats()
            let summary = try fixture.sync()
            #expect(summary.changed == 1)
            #expect(await fixture.state.requestCount("/crawlable?page=3") == 3)
            #expect(try fixture.store.library(named: "demo").lastSyncStatus == "ok")
        }
    }

    @Test func retryAfterInSecondsIsHonoured() async throws {
        try await SyncFixture.with { fixture in
            await fixture.state.setFaults(PageFaults(status: 429, statusTimes: 1, retryAfter: "1"), page: 2)
            let started = Date()
            _ = try fixture.sync()
            // The quick policy's own waits are at most 0.05 s: the second try waited for the server's second.
            #expect(Date().timeIntervalSince(started) >= 0.95)
            #expect(await fixture.state.requestCount("/crawlable?page=2") == 2)
        }
    }

    @Test func aPageFailingLongerThanTheBoundStopsTheSyncAndChangesNothing() async throws {
        try await SyncFixture.with { fixture in
            _ = try fixture.sync()
            try await fixture.state.touch(id: touched)
            let before = try fixture.snapshot()
            await fixture.state.setFaults(PageFaults(status: 503), page: 3)
            await fixture.state.resetStats()
            #expect {
                _ = try fixture.sync()
            } throws: { error in
                guard let failure = error as? SyncError, case .gaveUp = failure else { return false }
                #expect(failure.exitCode == .serverError)
                #expect(failure.description.contains("sync stopped at page 3 of the catalog"))
                #expect(failure.description.contains("after 3 attempts"))
                #expect(failure.description.contains("503"))
                #expect(!failure.description.contains("\n"))
                return true
            }
            #expect(await fixture.state.requestCount("/crawlable?page=3") == 3)
            #expect(try fixture.snapshot() == before)
            #expect(try fixture.store.library(named: "demo").lastSyncStatus == "failed")
        }
    }

    @Test func aRetryAfterPastTheBudgetIsNotWaitedFor() async throws {
        try await SyncFixture.with { fixture in
            await fixture.state.setFaults(PageFaults(status: 503, retryAfter: "3600"), page: 2)
            let started = Date()
            #expect(throws: SyncError.self) { _ = try fixture.sync() }
            // An hour asked for, at most 60 s honoured: the sync gives up at once rather than sleep past its bound.
            #expect(Date().timeIntervalSince(started) < 5)
            #expect(await fixture.state.requestCount("/crawlable?page=2") == 1)
        }
    }

    @Test func aRateLimitNamesHowLongTheLibraryAsksToWait() async throws {
        try await SyncFixture.with { fixture in
            await fixture.state.setFaults(PageFaults(status: 429, retryAfter: "3600"), page: 2)
            #expect {
                _ = try fixture.sync()
            } throws: { error in
                let text = (error as? ShelfFailure)?.description ?? ""
                // An hour: more than a sync waits, so it stops at once and says until when.
                return text.contains("answered 429 Too Many Requests: the library asks shelf to wait 60 min, until ")
                    && text.hasSuffix("; try again then; nothing was changed")
            }
        }
    }

    @Test func aRateLimitResetIsReadAsSecondsOrAsAUnixTime() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func response(_ headers: [String: String]) -> HTTPResponse {
            HTTPResponse(status: 429, headers: headers, url: "http://127.0.0.1/", body: Data(), bodyBytes: 0)
        }
        #expect(RetryPolicy.asksToWait(response(["x-ratelimit-reset": "90"]), now: now) == 90)
        #expect(RetryPolicy.asksToWait(response(["x-ratelimit-reset": "1700000300"]), now: now) == 300)
        #expect(RetryPolicy.asksToWait(response(["retry-after": "5", "x-ratelimit-reset": "90"]), now: now) == 5)
        #expect(RetryPolicy.asksToWait(response([:]), now: now) == nil)
        #expect(NetworkError.rateLimited(url: "http://x/", wait: nil).description.contains("did not say for how long"))
    }

    @Test func retryAfterIsReadAsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(RetryPolicy.retryAfter("120", now: now) == 120)
        #expect(RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:14:20 GMT", now: now) == 60)
        #expect(RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.retryAfter(nil, now: now) == nil)
    }

    @Test func thePolicyIsBoundedInAttemptsAndTime() {
        let policy = RetryPolicy(maxAttempts: 3, base: 1, cap: 10, budget: 12, longestRetryAfter: 20)
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, waited: 0) == nil)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 30, waited: 0) == nil)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 11, waited: 0) == 11)
        #expect(policy.delay(afterAttempt: 2, retryAfter: 5, waited: 10) == nil)
        let jittered = policy.delay(afterAttempt: 2, retryAfter: nil, waited: 0)
        #expect(jittered != nil && jittered! >= 0 && jittered! <= 2)
        #expect(RetryPolicy.isTransient(status: 503) && RetryPolicy.isTransient(status: 429))
        #expect(!RetryPolicy.isTransient(status: 404) && !RetryPolicy.isTransient(status: 401))
    }

    /// The back-off across runs is for the library's server alone: of every exit status a failure can carry, only
    /// no answer (offline, a timeout) and the server's own failure (5xx, a reset, a 429) start or extend it; a sign-in
    /// wanted, a refusal, a full disk or anything else on this computer never does.
    @Test func onlyTheServersOwnFailuresBackALibraryOff() {
        struct Failed: ShelfFailure {
            let exitCode: ShelfExit
            var description: String { "failed with exit status \(exitCode.rawValue)" }
        }
        let backing = ShelfExit.allCases.filter { SyncEngine.backsOff(Failed(exitCode: $0)) }
        #expect(backing == [.offline, .serverError])
        // The failures a sync meets, as they come (a page's failure carries its reason's status).
        let url = "http://127.0.0.1/crawlable"
        let servers: [any ShelfFailure] = [
            NetworkError.httpStatus(url: url, status: 503), NetworkError.timedOut(host: "127.0.0.1"),
            NetworkError.offline(host: "127.0.0.1", reason: "connection refused"),
            NetworkError.truncated(url: url, reason: "connection reset"), NetworkError.rateLimited(url: url, wait: 60),
            SyncError.page(feed: "catalog", page: 2, url: url, reason: NetworkError.httpStatus(url: url, status: 502)),
        ]
        for failure in servers { #expect(SyncEngine.backsOff(failure), "\(failure)") }
        let patrons: [any ShelfFailure] = [
            CirculationError.signInNeeded(library: "demo", how: "its authentication document"),
            NetworkError.httpStatus(url: url, status: 401), NetworkError.httpStatus(url: url, status: 403),
            NetworkError.httpStatus(url: url, status: 404), NetworkError.tls(host: "127.0.0.1", reason: "expired"),
            StoreError.diskFull(path: "/home/shelf.sqlite", mountPoint: "/home"),
            DownloadError.diskFull(path: "/home/part", mountPoint: "/home"), SyncError.busy(pid: 42),
            SyncError.page(feed: "catalog", page: 2, url: url, reason: NetworkError.httpStatus(url: url, status: 401)),
        ]
        for failure in patrons { #expect(!SyncEngine.backsOff(failure), "\(failure)") }
    }

    /// A server that stalls each attempt (a slowloris) is told with the time the attempts took, and the budget
    /// bounds them: only lower bounds of time are asserted, which a busy machine can only make larger.
    @Test func stalledAttemptsCountInTheTimeToldAndAgainstTheBudget() throws {
        let policy = RetryPolicy(maxAttempts: 50, base: 0, cap: 0, budget: 1)
        let attempts = Counter()
        let outcome = try policy.run(retrying: { _, _ in }) {
            attempts.add()
            Thread.sleep(forTimeInterval: 0.3)
            throw NetworkError.timedOut(host: "127.0.0.1")
        }
        guard case .spent(let tried, let waited, _) = outcome else {
            Issue.record("not spent: \(outcome)")
            return
        }
        #expect(tried == attempts.value)
        #expect(waited >= 0.3 * Double(tried), "\(tried) attempts told as \(waited) s")
        // Without the attempts' own time, 50 attempts of no wait would all be made.
        #expect(tried <= 5, "\(tried) attempts")
    }
}

