import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// The fault matrix: every resource shelf fetches (catalog pages under `shelf sync`, the loans feed under a signed-in
/// `shelf sync`, the audiobook manifest and the parts under `shelf download`) against every fault a server shows,
/// each cell running the real `shelf` against the demo library with one switch on. A cell asserts the one line on
/// standard error (the words that say what was wrong and what to do) and the exit status, or that the retry got
/// through; that the store still holds what it held (titles, loans, the title's state) and no file stands where a
/// good one should; and that once the fault is lifted the same command succeeds and ends where it would have ended
/// without the fault.
///
/// Cells left out, and why:
/// - catalog page × expired token: the catalog is public and its pages go without a token, so none can expire (a
///   library that guards its catalog with HTTP Basic is SignInCLITests' business, and has no token either).
///
/// A part cut short in a well-formed response (truncated body, understated Content-Length) can only be told from a
/// whole one by a length the manifest states, so those two cells run with the demo's `manifestPartLengths` on; with a
/// manifest that states no length or hash (most Readium manifests), nothing can tell, and shelf keeps what was sent.
///
/// A wrong media type (the document itself under `image/png`) gets through everywhere: shelf reads a page or a
/// manifest by what it is and keeps a part's bytes as the server sent them, as a mislabelling server needs.
///
/// The cells are independent (each has its own demo library and home), so they run in parallel.
@Suite(.timeLimit(.minutes(5))) struct FaultMatrixCLITests {
    /// A fault a server can show, as the demo library's switch that makes it.
    enum Fault: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case serverError = "500"
        case rateLimited = "429 with Retry-After"
        case notFound = "404"
        case reset = "connection reset"
        case truncated = "truncated body"
        case overstated = "overstated Content-Length"
        case understated = "understated Content-Length"
        case slowDrip = "slow drip"
        case expiredToken = "expired token"
        case redirectLoop = "redirect loop"
        case html = "HTML instead of the document"
        case wrongType = "wrong media type"

        var testDescription: String { rawValue }

        /// The switch; `dripRate` is bytes per second for a slow drip, a few seconds for the resource's size.
        func faults(dripRate: Int) -> PageFaults {
            switch self {
            case .serverError: PageFaults(status: 500)
            // Once, then the resource is served: the retry must honour the second it was asked to wait.
            case .rateLimited: PageFaults(status: 429, statusTimes: 1, retryAfter: "1")
            case .notFound: PageFaults(status: 404)
            case .reset: PageFaults(reset: true)
            case .truncated: PageFaults(truncate: true)
            case .overstated: PageFaults(dropConnectionAfterBytes: 200)
            case .understated: PageFaults(understateContentLength: 200)
            case .slowDrip: PageFaults(bytesPerSecond: dripRate)
            // Once, as a real expiry: a new token (or fresh links) must get through.
            case .expiredToken: PageFaults(statusTimes: 1, expiredToken: true)
            case .redirectLoop: PageFaults(redirectLoop: true)
            case .html: PageFaults(html: true)
            case .wrongType: PageFaults(contentType: "image/png")
            }
        }
    }

    /// What a cell expects of the faulted command.
    enum Outcome {
        /// It fails with this status and a single line holding each of these words.
        case fails(ShelfExit, [String])
        /// It succeeds, as without the fault.
        case getsThrough
    }

    private static let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    private static let timeMachine = "urn:uuid:7d3c0006-5a1e-4c6b-9f0e-d0c5e1f00006"
    private static let janeEyre = "urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010"

    // MARK: Catalog pages

    static func catalogOutcome(_ fault: Fault) -> Outcome? {
        let stopped = "sync stopped at page 2 of the catalog"
        return switch fault {
        case .serverError: .fails(.serverError, [stopped, "answered 500", "after 5 attempts", "try again later"])
        case .rateLimited, .slowDrip: .getsThrough
        case .notFound: .fails(.noSuchPage, [stopped, "404", "check the library's URL"])
        case .reset: .fails(.serverError, [stopped, "cut short", "after 5 attempts", "try again"])
        case .truncated: .fails(.badData, [stopped, "malformed"])
        case .overstated: .fails(.serverError, [stopped, "cut short", "after 5 attempts", "try again"])
        case .understated: .fails(.badData, [stopped, "malformed"])
        case .expiredToken: nil  // left out: see the top of the suite
        case .redirectLoop: .fails(.protocolError, [stopped, "too many redirects", "misconfigured"])
        case .html: .fails(.badData, [stopped, "HTML"])
        case .wrongType: .getsThrough
        }
    }

    @Test(arguments: Fault.allCases.filter { $0 != .expiredToken })
    func catalogPage(_ fault: Fault) async throws {
        let fixture = try await CLIFixture()
        let synced = try await fixture.shelf.run(["sync", "--quiet"])
        try #require(synced.status == 0, "\(synced.stderr)")
        let before = try await fixture.shelf.run(["list", "--json"]).stdout
        // A change waits on the server: the faulted sync must not half-apply it, the lifted one must apply it.
        _ = try await fixture.server.state.touch(id: Self.timeMachine)
        await fixture.server.state.setFaults(fault.faults(dripRate: 4_000), page: 2)
        let started = Date()
        let faulted = try await fixture.shelf.run(["sync"])
        switch try #require(Self.catalogOutcome(fault)) {
        case .getsThrough:
            #expect(faulted.status == 0, "\(faulted.stderr)")
            #expect(faulted.stdout == "0 new, 1 updated, 0 removed\n", "\(faulted.stdout)")
            await Self.expectFired(fault, since: started) { await fixture.server.state.switches.pages[2] == nil }
        case .fails(let exit, let words):
            Self.expectOneLine(faulted, exit: exit, words: words)
            #expect(try await fixture.shelf.run(["list", "--json"]).stdout == before, "the store changed")
            await fixture.server.state.setFaults(PageFaults(), page: 2)
            let lifted = try await fixture.shelf.run(["sync"])
            #expect(lifted.status == 0, "\(lifted.stderr)")
            #expect(lifted.stdout == "0 new, 1 updated, 0 removed\n", "\(lifted.stdout)")
        }
        let after = try await fixture.shelf.run(["show", "7d3c0006"])
        #expect(after.stdout.contains("State         New"), "\(after.stdout)")
        #expect(try await fixture.shelf.run(["list", "--json"]).stdout.count == before.count)
        await fixture.finish()
    }

    // MARK: Loans pages

    static func loansOutcome(_ fault: Fault) -> Outcome {
        let stopped = "sync stopped at page 1 of the loans"
        return switch fault {
        case .serverError: .fails(.serverError, [stopped, "answered 500", "after 5 attempts", "try again later"])
        case .rateLimited, .slowDrip: .getsThrough
        case .notFound: .fails(.noSuchPage, [stopped, "404"])
        case .reset: .fails(.serverError, [stopped, "cut short", "after 5 attempts", "try again"])
        case .truncated: .fails(.badData, [stopped, "malformed"])
        case .overstated: .fails(.serverError, [stopped, "cut short", "after 5 attempts", "try again"])
        case .understated: .fails(.badData, [stopped, "malformed"])
        case .expiredToken, .wrongType: .getsThrough
        case .redirectLoop: .fails(.protocolError, [stopped, "too many redirects", "misconfigured"])
        case .html: .fails(.badData, [stopped, "HTML"])
        }
    }

    @Test(arguments: Fault.allCases)
    func loansPage(_ fault: Fault) async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        let loans = try await fixture.shelf.run(["loans", "--json"]).stdout
        let list = try await fixture.shelf.run(["list", "--json"]).stdout
        try #require(loans.contains("The Adventures of Sherlock Holmes"), "\(loans)")
        // A new loan waits on the server: the faulted sync must not half-apply it, the lifted one must show it.
        _ = try await fixture.server.state.borrow(Self.janeEyre, as: "demo")
        await fixture.server.state.updateSwitches { $0.loans = fault.faults(dripRate: 1_500) }
        let tokens = await fixture.server.state.stats.tokensIssued
        let started = Date()
        let faulted = try await fixture.shelf.run(["sync", "--no-download"])
        switch Self.loansOutcome(fault) {
        case .getsThrough:
            #expect(faulted.status == 0, "\(faulted.stderr)")
            await Self.expectFired(fault, since: started) { await fixture.server.state.switches.loans.isEmpty }
            if fault == .expiredToken {
                #expect(await fixture.server.state.stats.tokensIssued > tokens, "no new bearer token was asked for")
            }
        case .fails(let exit, let words):
            Self.expectOneLine(faulted, exit: exit, words: words)
            #expect(try await fixture.shelf.run(["loans", "--json"]).stdout == loans, "the loans changed")
            #expect(try await fixture.shelf.run(["list", "--json"]).stdout == list, "the titles changed")
            await fixture.server.state.updateSwitches { $0.loans = PageFaults() }
            let lifted = try await fixture.shelf.run(["sync", "--no-download"])
            #expect(lifted.status == 0, "\(lifted.stderr)")
        }
        let after = try await fixture.shelf.run(["loans"])
        #expect(after.stdout.contains("Jane Eyre") && after.stdout.contains("The Adventures of Sherlock Holmes"),
                "\(after.stdout)")
        await fixture.finish()
    }

    // MARK: Manifests

    static func manifestOutcome(_ fault: Fault) -> Outcome {
        switch fault {
        case .serverError: .fails(.serverError, ["the library refused (500)", "try again later"])
        case .rateLimited, .slowDrip, .expiredToken, .wrongType: .getsThrough
        case .notFound: .fails(.serverNotFound, ["the library does not know this title or loan", "run `shelf sync`"])
        case .reset: .fails(.serverError, ["/manifests/", "cut short", "try again"])
        case .truncated: .fails(.badData, ["audiobook manifest", "unusable", "try again later"])
        case .overstated: .fails(.serverError, ["/manifests/", "cut short", "try again"])
        case .understated: .fails(.badData, ["audiobook manifest", "unusable", "try again later"])
        case .redirectLoop: .fails(.protocolError, ["too many redirects", "misconfigured"])
        case .html: .fails(.badData, ["audiobook manifest", "HTML page", "try again later"])
        }
    }

    @Test(arguments: Fault.allCases)
    func manifest(_ fault: Fault) async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        await fixture.server.state.updateSwitches { $0.manifests = fault.faults(dripRate: 1_000) }
        let grants = await fixture.server.state.stats.fulfilmentTokensIssued
        let started = Date()
        let faulted = try await fixture.shelf.run(["download", "7d3c0002"])
        if case .getsThrough = Self.manifestOutcome(fault) {
            await Self.expectFired(fault, since: started) { await fixture.server.state.switches.manifests.isEmpty }
        }
        if fault == .expiredToken {
            #expect(await fixture.server.state.stats.fulfilmentTokensIssued == grants + 2, "the refused token was not replaced")
        }
        try await Self.expectDownload(faulted, outcome: Self.manifestOutcome(fault), fixture: fixture) {
            await fixture.server.state.updateSwitches { $0.manifests = PageFaults() }
        }
        await fixture.finish()
    }

    /// Beyond the cell: a token refused again after the one renewal is said, and nothing is left half-done.
    @Test func aManifestThatRefusesEveryTokenSaysSoOnce() async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        await fixture.server.state.updateSwitches { $0.manifests = PageFaults(expiredToken: true) }
        let grants = await fixture.server.state.stats.fulfilmentTokensIssued
        let refused = try await fixture.shelf.run(["download", "7d3c0002"])
        Self.expectOneLine(refused, exit: .notPermitted, words: [
            "/manifests/", "refused the library's own fulfilment token", "Expired bearer token", "also a new one",
            "try again later", "shelf login",
        ])
        #expect(await fixture.server.state.stats.fulfilmentTokensIssued == grants + 2, "one renewal, no more")
        try await Self.expectDownload(refused, outcome: .fails(.notPermitted, []), fixture: fixture) {
            await fixture.server.state.updateSwitches { $0.manifests = PageFaults() }
        }
        await fixture.finish()
    }

    // MARK: Parts

    static func partOutcome(_ fault: Fault) -> Outcome {
        let part = "The Adventures of Sherlock Holmes, part 2"
        let again = "run `shelf download 7d3c0002` again to resume"
        return switch fault {
        case .serverError: .fails(.serverError, [part, "gave up after 6 attempts", "answered 500", again])
        case .rateLimited, .slowDrip, .expiredToken, .wrongType: .getsThrough
        case .notFound: .fails(.serverError, [part, "answered 404", again])
        case .reset: .fails(.serverError, [part, "gave up after 6 attempts", "Connection reset", again])
        case .truncated, .understated: .fails(.serverError, [part, "the manifest says", again])
        case .overstated: .fails(.serverError, [part, "gave up after 6 attempts", "remaining to read", again])
        case .redirectLoop: .fails(.serverError, [part, "too many redirects", "misconfigured", again])
        case .html: .fails(.serverError, [part, "HTML page instead of the audio", again])
        }
    }

    @Test(arguments: Fault.allCases)
    func part(_ fault: Fault) async throws {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        if fault == .truncated || fault == .understated {
            await fixture.server.state.updateSwitches { $0.manifestPartLengths = true }
        }
        await fixture.server.state.setAudioFaults(
            AudioFaults(parts: [2], response: fault.faults(dripRate: 8_000)), for: Self.sherlock)
        let started = Date()
        let faulted = try await fixture.shelf.run(["download", "7d3c0002"])
        let outcome = Self.partOutcome(fault)
        if case .getsThrough = outcome {
            await Self.expectFired(fault, since: started) {
                await fixture.server.state.switches.audio[Self.sherlock]?.response == nil
            }
        }
        try await Self.expectDownload(faulted, outcome: outcome, fixture: fixture) {
            await fixture.server.state.setAudioFaults(AudioFaults(), for: Self.sherlock)
        }
        await fixture.finish()
    }

    // MARK: Checks

    /// The faulted download's outcome; after a failure, the title is still New and every finished part it left is
    /// the server's, and once the fault is lifted (`lift`) the download completes. Either way the files end equal to
    /// the server's.
    private static func expectDownload(
        _ faulted: ShelfRunner.Result, outcome: Outcome, fixture: CLIFixture, lift: () async -> Void
    ) async throws {
        switch outcome {
        case .getsThrough:
            #expect(faulted.status == 0, "\(faulted.stderr)")
            #expect(faulted.stdout.hasPrefix("Downloaded The Adventures of Sherlock Holmes"), "\(faulted.stdout)")
        case .fails(let exit, let words):
            expectOneLine(faulted, exit: exit, words: words)
            let show = try await fixture.shelf.run(["show", "7d3c0002"])
            #expect(show.stdout.contains("State         New"), "\(show.stdout)")
            let files = try fixture.files(of: "7d3c0002")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: files.path)) ?? []
            let left = try names.filter { $0.hasSuffix(".mp3") }.map { ($0, try Data(contentsOf: files.appendingPathComponent($0))) }
            await lift()
            let lifted = try await fixture.shelf.run(["download", "7d3c0002"])
            #expect(lifted.status == 0, "\(lifted.stderr)")
            // What the failure left as finished parts was already the server's (checked below for the end state).
            for (name, bytes) in left {
                #expect(try Data(contentsOf: files.appendingPathComponent(name)) == bytes, "\(name) changed after the failure")
            }
        }
        await lift()
        let show = try await fixture.shelf.run(["show", "7d3c0002"])
        #expect(show.stdout.contains("State         Downloaded"), "\(show.stdout)")
        try await expectServersBytes(fixture)
    }

    /// Every part on disk is byte for byte what the server serves.
    private static func expectServersBytes(_ fixture: CLIFixture) async throws {
        let files = try fixture.files(of: "7d3c0002")
        let manifest = try ShelfCore.AudiobookManifest.parse(
            Data(contentsOf: files.appendingPathComponent("manifest.json")), url: files)
        try #require(!manifest.parts.isEmpty)
        for (index, part) in manifest.parts.enumerated() {
            let remote = try await offloaded { try HTTPClient().request(URL(string: part.href)!).body }
            let name = String(format: "part-%03d.mp3", index + 1)
            let local = try Data(contentsOf: files.appendingPathComponent(name))
            #expect(local == remote, "\(name): \(local.count) bytes on disk, \(remote.count) on the server")
        }
    }

    /// A cell that got through really met its fault: a slow drip took its time (at least a second), a fault that
    /// fires once was used up (`usedUp`), and a Retry-After second was waited for.
    private static func expectFired(_ fault: Fault, since started: Date, usedUp: () async -> Bool) async {
        let elapsed = Date().timeIntervalSince(started)
        if fault == .slowDrip {
            #expect(elapsed >= 1, "the drip took \(elapsed) s")
        } else if fault != .wrongType {  // the label stays on (ResponseFaultTests shows it is served)
            #expect(await usedUp(), "the fault never fired")
        }
        if fault == .rateLimited { #expect(elapsed >= 1, "the Retry-After second was not waited for: \(elapsed) s") }
    }

    /// A failure: this exit status and one line on standard error holding every one of `words`.
    private static func expectOneLine(_ result: ShelfRunner.Result, exit: ShelfExit, words: [String]) {
        #expect(result.status == exit.rawValue, "exit \(result.status), not \(exit.rawValue): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        for word in words {
            #expect(result.stderr.contains(word), "\(word.debugDescription) not in: \(result.stderr)")
        }
    }
}
