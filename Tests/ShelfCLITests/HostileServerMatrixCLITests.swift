import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// The hostile-server matrix: each way a server can try to fill the disk, hold shelf for ever or lead it off the
/// web, met by the real binary against the demo library with its switch on. A cell asserts the exit status and the
/// one line that says what was wrong, that the store still holds what it held (the title still New, the listing
/// the same), what is left on disk, and the process's peak resident memory (GNU time's). Each cell ends by the
/// bound it meets, never by the test's patience: the suite's time limit only catches a bound that does not hold.
///
/// A part's bounds here are the defaults, but for the drip's window (`--rate-window 2`, so six attempts take
/// seconds, not twelve minutes) and the free space kept (a private 80 MB disk of its own).
@Suite("Hostile servers: the matrix", .timeLimit(.minutes(6)))
struct HostileServerMatrixCLITests {
    private static let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    /// What a refusal may take.
    private static let peakLimitKB = 64 * 1024
    /// The largest file shelf may write in a part's cell, enforced by the kernel (`prlimit --fsize`: a write past
    /// it kills the process with SIGXFSZ, which fails the cell): more than any bound the demo's parts allow (their
    /// duration at 2 Mbit/s, with 16 MB to spare), far less than what the servers send.
    private static let fileLimit = 48 * 1_048_576
    /// What `file:` redirects point at: a file every machine has, which must never be read as a part or a page.
    private static let localFile = "file:///etc/passwd"

    // MARK: Parts

    enum PartCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case tenGiB = "a part stating 10 GiB and sending for ever"
        case endless = "a part sending for ever, no length stated"
        case drip = "a part dripping 2 bytes a second"
        case fileRedirect = "a part redirected to file:"

        var testDescription: String { rawValue }

        var faults: AudioFaults {
            switch self {
            case .tenGiB: AudioFaults(parts: [2], extraContentLength: 10 * 1_073_741_824, endless: true)
            case .endless: AudioFaults(parts: [2], endless: true)
            case .drip: AudioFaults(parts: [2], bytesPerSecond: 2)
            case .fileRedirect: AudioFaults(parts: [2], response: PageFaults(redirectTo: HostileServerMatrixCLITests.localFile))
            }
        }

        var options: [String] { self == .drip ? ["--rate-window", "2"] : [] }

        /// The exit status and the words of the one line.
        var outcome: (ShelfExit, [String]) {
            let part = "The Adventures of Sherlock Holmes, part 2"
            return switch self {
            case .tenGiB: (.serverError, [part, "offers 10737", "nothing of it was kept"])
            case .endless: (.serverError, [part, "sent more than", "nothing of it was kept"])
            case .drip: (.serverError, [part, "gave up after 6 attempts", "slower than 1024 bytes a second for 2 s"])
            case .fileRedirect: (.serverError, [part, "file:///etc/passwd"])
            }
        }
    }

    @Test(arguments: PartCase.allCases)
    func part(_ hostile: PartCase) async throws {
        try await CLIFixture.with { fixture in
            try await fixture.signIn()
            let before = try await fixture.shelf.run(["list", "--json"]).stdout
            await fixture.server.state.setAudioFaults(hostile.faults, for: Self.sherlock)
            let (refused, peakKB) = try await fixture.shelf.runMeasuringMemory(
                ["download", "7d3c0002"] + hostile.options, inside: ["/usr/bin/prlimit", "--fsize=\(Self.fileLimit)"])
            let (exit, words) = hostile.outcome
            Self.expectOneLine(refused, exit: exit, words: words)
            #expect(peakKB <= Self.peakLimitKB, "\(hostile): a peak of \(peakKB) KB")
            // What the server wrote, into socket buffers shelf never read too: told, not judged.
            let sent = await fixture.server.state.partBytesSent(Self.sherlock, part: 2)
            let onDisk = try Self.partBytesOnDisk(fixture)
            print("hostile: \(hostile): exit \(refused.status), peak \(peakKB) KB, \(sent) bytes sent, \(onDisk) kept")
            // A refused part keeps nothing; a cut-off drip keeps what arrived, for the next run to resume.
            #expect(onDisk <= (hostile == .drip ? 1_024 : 0), "\(hostile): \(onDisk) bytes of part 2 on disk")
            try await Self.expectUnchanged(fixture, listing: before)
            // The advice, followed: against the same server, the same refusal and nothing changed; once the server
            // mends, the download completes.
            #expect(refused.stderr.contains("run `shelf download 7d3c0002` again"), "\(refused.stderr)")
            let again = try await fixture.shelf.run(["download", "7d3c0002"] + hostile.options)
            Self.expectOneLine(again, exit: exit, words: words)
            try await Self.expectUnchanged(fixture, listing: before)
            await fixture.server.state.setAudioFaults(AudioFaults(), for: Self.sherlock)
            try await Self.expectDownloads(fixture)
        }
    }

    /// A part sending for ever onto a disk that fills: the free space kept (64 MB) is judged while writing, and the
    /// download stops as on a full disk. The folder is a private 80 MB disk (a tmpfs in a mount namespace of the
    /// process's own), so the test neither fills nor depends on the machine's disk.
    @Test func aPartFillingTheDiskStopsAtTheSpaceKept() async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            print("skipped: a private disk needs root and unshare(1)")
            return
        }
        try await CLIFixture.with { fixture in
            try await fixture.signIn()
            let before = try await fixture.shelf.run(["list", "--json"]).stdout
            await fixture.server.state.setAudioFaults(PartCase.endless.faults, for: Self.sherlock)
            let folder = try fixture.files(of: "7d3c0002")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let script = "mount -t tmpfs -o size=80m shelf-hostile \"$1\" && shift && exec \"$@\""
            let (refused, peakKB) = try await fixture.shelf.runMeasuringMemory(
                ["download", "7d3c0002"],
                inside: ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", folder.path])
            Self.expectOneLine(refused, exit: .diskFull, words: [
                "less than the 64 MB shelf keeps free there (--keep-free)", "stopped writing", "the bytes received are kept",
            ])
            #expect(peakKB <= Self.peakLimitKB, "a peak of \(peakKB) KB")
            let sent = await fixture.server.state.partBytesSent(Self.sherlock, part: 2)
            print("hostile: a part filling the disk: exit \(refused.status), peak \(peakKB) KB, \(sent) bytes sent")
            try await Self.expectUnchanged(fixture, listing: before)
            // The advice, followed on a disk with room, once the server sends the part it should.
            await fixture.server.state.setAudioFaults(AudioFaults(), for: Self.sherlock)
            try await Self.expectDownloads(fixture)
        }
    }

    // MARK: Catalog pages

    enum PageCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case slowloris = "a catalog page dripping 2 bytes a second"
        case fileRedirect = "a catalog page redirected to file:"
        case endlessRepeating = "pages without end, repeating titles"
        case endlessNew = "pages without end, each with new titles"

        var testDescription: String { rawValue }

        var options: [String] { self == .endlessNew ? ["--max-pages", "30"] : [] }

        func apply(to switches: inout DemoSwitches) {
            switch self {
            case .slowloris: switches.pages[2] = PageFaults(bytesPerSecond: 2)
            case .fileRedirect: switches.pages[2] = PageFaults(redirectTo: HostileServerMatrixCLITests.localFile)
            case .endlessRepeating: switches.endlessPages = true
            case .endlessNew:
                switches.endlessPages = true
                switches.endlessNewTitles = true
            }
        }

        /// The exit status and the words of the one line.
        var outcome: (ShelfExit, [String]) {
            let stopped = "sync stopped at page 2 of the catalog"
            return switch self {
            case .slowloris: (.serverError, [stopped, "stalled after", "attempts over"])
            case .fileRedirect: (.protocolError, [stopped, "file:///etc/passwd"])
            case .endlessRepeating: (.success, ["brought no title not seen this sync"])
            case .endlessNew: (.badData, ["the catalog has more than 30 pages", "nothing was changed", "--max-pages"])
            }
        }
    }

    @Test(arguments: PageCase.allCases)
    func catalogPage(_ hostile: PageCase) async throws {
        try await CLIFixture.with { fixture in
            let synced = try await fixture.shelf.run(["sync", "--quiet"])
            try #require(synced.status == 0, "\(synced.stderr)")
            let before = try await fixture.shelf.run(["list", "--json"]).stdout
            await fixture.server.state.updateSwitches { hostile.apply(to: &$0) }
            let started = Date()
            let (ended, peakKB) = try await fixture.shelf.runMeasuringMemory(["sync"] + hostile.options)
            let elapsed = Date().timeIntervalSince(started)
            let (exit, words) = hostile.outcome
            Self.expectOneLine(ended, exit: exit, words: words)
            #expect(peakKB <= Self.peakLimitKB, "\(hostile): a peak of \(peakKB) KB")
            let pages = await fixture.server.state.requestCount("/crawlable")
            print("hostile: \(hostile): exit \(ended.status), \(Int(elapsed)) s, peak \(peakKB) KB, \(pages) pages asked")
            #expect(try await fixture.shelf.run(["list", "--json"]).stdout == before, "\(hostile): the store changed")
            if hostile == .endlessNew {
                // The bound, and no page past it (the first sync's pages and 31 more at most).
                #expect(pages <= 2 * (1 + 31), "\(pages) pages asked")
            }
        }
    }

    // MARK: Checks

    private static func expectOneLine(_ result: ShelfRunner.Result, exit: ShelfExit, words: [String]) {
        #expect(result.status == exit.rawValue, "exit \(result.status), not \(exit.rawValue): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        for word in words {
            #expect(result.stderr.contains(word), "\(word.debugDescription) not in: \(result.stderr)")
        }
    }

    /// The bytes of part 2 kept on disk, finished or not.
    private static func partBytesOnDisk(_ fixture: CLIFixture) throws -> Int {
        let folder = try fixture.files(of: "7d3c0002")
        return ["part-002.mp3", "part-002.mp3.part"].reduce(0) { total, name in
            let path = folder.appendingPathComponent(name).path
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return total + size
        }
    }

    /// `shelf download` of the title succeeds and leaves it Downloaded.
    private static func expectDownloads(_ fixture: CLIFixture) async throws {
        let download = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(download.status == 0, "\(download.stderr)")
        let show = try await fixture.shelf.run(["show", "7d3c0002"])
        #expect(show.stdout.contains("State         Downloaded"), "\(show.stdout)")
    }

    /// The title is still New and the listing what it was.
    private static func expectUnchanged(_ fixture: CLIFixture, listing: String) async throws {
        let show = try await fixture.shelf.run(["show", "7d3c0002"])
        #expect(show.stdout.contains("State         New"), "\(show.stdout)")
        #expect(try await fixture.shelf.run(["list", "--json"]).stdout == listing, "the store changed")
    }
}
