import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

/// A demo library, an open-access audiobook's manifest, and a scratch directory for its parts.
final class DownloadFixture: @unchecked Sendable {
    static let bookID = "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001"
    let server = DemoLibraryServer()
    var url: URL!
    var manifest: ShelfCore.AudiobookManifest!
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-parts-\(UUID())")

    func start() async throws {
        url = try await server.start()
        try await server.state.prepareAudio()
        let manifestURL = URL(string: "works/\(Self.bookID)/fulfill/open-access", relativeTo: url)!.absoluteURL
        let response = try HTTPClient().request(manifestURL)
        manifest = try ShelfCore.AudiobookManifest.parse(response.body, url: manifestURL)
    }

    var parts: [DownloadPart] {
        manifest.parts.map {
            DownloadPart(index: $0.index, url: URL(string: $0.href)!,
                         destination: directory.appendingPathComponent("part-\($0.index + 1).mp3"))
        }
    }

    /// The server's bytes for each part, fetched whole.
    func serverBytes() async throws -> [Data] {
        let urls = manifest.parts.map { URL(string: $0.href)! }
        return try urls.map { try HTTPClient().request($0).body }
    }

    func download(_ settings: DownloadSettings = DownloadFixture.quick, parts: [DownloadPart]? = nil) async throws
        -> [Int: PartResult]
    {
        let parts = parts ?? self.parts
        return try PartDownloader(settings: settings).run(parts)
    }

    static var quick: DownloadSettings {
        var settings = DownloadSettings()
        settings.backoffBase = 0.05
        settings.backoffCap = 0.2
        settings.stallSeconds = 5
        return settings
    }

    func finish() async {
        await server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

@Suite(.timeLimit(.minutes(5))) struct PartDownloaderTests {
    @Test func downloadsEveryPartByteForByte() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        #expect(fixture.manifest.parts.count >= 2)
        let results = try await fixture.download()
        let expected = try await fixture.serverBytes()
        for (index, bytes) in expected.enumerated() {
            #expect(results[index] == .complete(bytes: Int64(bytes.count)))
            #expect(try Data(contentsOf: fixture.parts[index].destination) == bytes)
            #expect(!FileManager.default.fileExists(atPath: fixture.parts[index].destination.path + ".part"))
        }
        // A second run finds everything in place and asks the server for nothing.
        let before = await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1)
        #expect(try await fixture.download().values.allSatisfy { if case .complete = $0 { true } else { false } })
        #expect(await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1) == before)
        await fixture.finish()
    }

    @Test func aDroppedConnectionResumesWithARange() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [1], dropAfterBytes: 3000), for: DownloadFixture.bookID)
        // The drop is the only fault: the stall watchdog is set past anything a loaded machine does, because a
        // watchdog retry (4 of them in a full run on two cores, the in-process server starved for 5 s each) is a
        // second range request of its own and counts the rest of the part again.
        var settings = DownloadFixture.quick
        settings.stallSeconds = 120
        let results = try await fixture.download(settings)
        // Only the missing bytes were sent again: 3000 before the drop, the rest once.
        let sent = await fixture.server.state.partBytesSent(DownloadFixture.bookID, part: 1)
        let expected = try await fixture.serverBytes()
        #expect(results[0] == .complete(bytes: Int64(expected[0].count)))
        #expect(try Data(contentsOf: fixture.parts[0].destination) == expected[0])
        #expect(await fixture.server.state.partRangeRequestCount(DownloadFixture.bookID, part: 1) == 1)
        #expect(sent == expected[0].count)
        await fixture.finish()
    }

    @Test func serverErrorsAndRateLimitsAreRetried() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [1], failOnce: true), for: DownloadFixture.bookID)
        var results = try await fixture.download()
        #expect(results.values.allSatisfy { if case .complete = $0 { true } else { false } })
        #expect(await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1) == 2)

        try FileManager.default.removeItem(at: fixture.directory)
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [2], rateLimitOnce: true), for: DownloadFixture.bookID)
        let started = Date()
        results = try await fixture.download()
        #expect(results[1] == .complete(bytes: Int64(try await fixture.serverBytes()[1].count)))
        // Retry-After: 1 was honoured rather than the short backoff.
        #expect(Date().timeIntervalSince(started) >= 0.9)
        await fixture.finish()
    }

    @Test func aPartThatChangedOnTheServerStartsOverWhileTheOthersResume() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        // The first attempt stops after 2000 bytes of every part...
        await fixture.server.state.setAudioFaults(
            AudioFaults(dropAfterBytes: 2000, dropEveryTime: true), for: DownloadFixture.bookID)
        var settings = DownloadFixture.quick
        settings.maxAttempts = 1
        let first = try await fixture.download(settings)
        #expect(first.values.allSatisfy { if case .failed = $0 { true } else { false } })
        #expect(FileManager.default.fileExists(atPath: fixture.parts[0].destination.path + ".part"))
        // ...then part 1 changes on the server: its partial bytes are stale, the others are still good.
        await fixture.server.state.setAudioFaults(AudioFaults(changedParts: [1]), for: DownloadFixture.bookID)
        let second = try await fixture.download()
        let expected = try await fixture.serverBytes()
        for (index, bytes) in expected.enumerated() {
            #expect(second[index] == .complete(bytes: Int64(bytes.count)))
            #expect(try Data(contentsOf: fixture.parts[index].destination) == bytes)
        }
        await fixture.finish()
    }

    @Test func oneMissingPartDoesNotStopTheOthers() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        await fixture.server.state.setAudioFaults(AudioFaults(missingParts: [2]), for: DownloadFixture.bookID)
        let results = try await fixture.download()
        #expect(results[1] == .failed(reason: "the server answered 404 Not Found"))
        #expect(results[0] == .complete(bytes: Int64(try await fixture.serverBytes()[0].count)))
        #expect(!FileManager.default.fileExists(atPath: fixture.parts[1].destination.path))
        await fixture.finish()
    }

    @Test func limitRateHoldsAllPartsTogetherWithinTwentyPercent() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        let total = try await fixture.serverBytes().reduce(0) { $0 + $1.count }
        // A rate that makes the whole download take 2.5 s, shared by four parallel connections.
        var settings = DownloadFixture.quick
        settings.concurrency = 4
        settings.limitRate = Int64(Double(total) / 2.5)
        let started = Date()
        let results = try await fixture.download(settings)
        let elapsed = Date().timeIntervalSince(started)
        #expect(results.values.allSatisfy { if case .complete = $0 { true } else { false } })
        let achieved = Double(total) / elapsed
        let limit = Double(settings.limitRate!)
        #expect(achieved <= limit * 1.2 && achieved >= limit * 0.8, "\(Int(achieved)) B/s against a limit of \(Int(limit)) B/s")
        await fixture.finish()
    }

    @Test func anOverstatingServerEndsWithTheRightBytes() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        // Content-Length promises 500 bytes more than are sent: the body is cut short, never moved into place as
        // it is; the resume asks past the end, and the 416's `Content-Range: bytes */total` (not the length of
        // its error body) says the bytes held are the whole part.
        let expected = try await fixture.serverBytes()[0]
        await fixture.server.state.resetStats()
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [1], extraContentLength: 500), for: DownloadFixture.bookID)
        var settings = DownloadFixture.quick
        settings.maxAttempts = 3
        let results = try await fixture.download(settings)
        #expect(results[0] == .complete(bytes: Int64(expected.count)))
        #expect(try Data(contentsOf: fixture.parts[0].destination) == expected)
        #expect(!FileManager.default.fileExists(atPath: fixture.parts[0].destination.path + ".part"))
        #expect(await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1) == 2)
        await fixture.finish()
    }

    /// Leaves part 1 as a kill between its last write and its rename does: every byte in `.part`, the validator
    /// saved beside it, nothing at the destination.
    private func killedBeforeTheRename(_ fixture: DownloadFixture) async throws -> Data {
        let part = fixture.parts[0]
        let url = part.url
        let response = try HTTPClient().request(url)
        let (bytes, etag) = (response.body, response.header("etag"))
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        try bytes.write(to: part.destination.appendingPathExtension("part"))
        let saved = ["validator": try #require(etag), "path": url.path]
        try JSONEncoder().encode(saved).write(to: part.destination.appendingPathExtension("part.json"))
        return bytes
    }

    @Test func aCompletePartFileLeftByAKillIsVerifiedAndMovedIntoPlace() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        let bytes = try await killedBeforeTheRename(fixture)
        let before = await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1)
        // Without lengths in the manifest the server is asked: its 416 states the total, which the file has.
        let results = try await fixture.download()
        #expect(results[0] == .complete(bytes: Int64(bytes.count)))
        #expect(try Data(contentsOf: fixture.parts[0].destination) == bytes)
        #expect(!FileManager.default.fileExists(atPath: fixture.parts[0].destination.path + ".part"))
        #expect(!FileManager.default.fileExists(atPath: fixture.parts[0].destination.path + ".part.json"))
        #expect(await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1) == before + 1)
        await fixture.finish()
    }

    @Test func aCompletePartFileOfTheManifestsLengthAndHashNeedsNoRequest() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        let bytes = try await killedBeforeTheRename(fixture)
        var part = fixture.parts[0]
        part.expectedLength = Int64(bytes.count)
        part.sha256 = try SHA256.hex(of: part.destination.appendingPathExtension("part"))
        let before = await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1)
        let results = try await fixture.download(parts: [part])
        #expect(results[0] == .complete(bytes: Int64(bytes.count)))
        #expect(try Data(contentsOf: part.destination) == bytes)
        #expect(await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1) == before)
        // A hash that does not match is not moved into place on trust: the part is fetched again.
        try FileManager.default.moveItem(at: part.destination, to: part.destination.appendingPathExtension("part"))
        part.sha256 = String(repeating: "0", count: 64)
        var settings = DownloadFixture.quick
        settings.maxAttempts = 2
        let again = try await fixture.download(settings, parts: [part])
        guard case .failed? = again[0] else {
            Issue.record("a part whose hash does not match should fail, got \(String(describing: again[0]))")
            await fixture.finish()
            return
        }
        #expect(!FileManager.default.fileExists(atPath: part.destination.path))
        #expect(await fixture.server.state.partRequestCount(DownloadFixture.bookID, part: 1) > before)
        await fixture.finish()
    }

    @Test func expiredPartURLsAreReportedSoTheCallerCanRefetch() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        await fixture.server.state.expireFulfilment()
        let results = try await fixture.download()
        for result in results.values {
            guard case .expired(let status) = result else {
                Issue.record("expected expired, got \(result)")
                continue
            }
            #expect([401, 403, 410].contains(status))
        }
        await fixture.finish()
    }

    /// A part of unknown length and duration may hold at most the cap: a server offering more is refused before a
    /// byte is written, and nothing is left on disk.
    @Test func aPartLargerThanItMayHoldIsRefusedBeforeItIsWritten() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        var settings = DownloadFixture.quick
        settings.partCap = 4096
        let parts = fixture.parts
        let results = try await fixture.download(settings, parts: parts)
        for part in parts {
            guard case .failed(let reason)? = results[part.index] else {
                Issue.record("part \(part.index + 1) not refused: \(String(describing: results[part.index]))")
                continue
            }
            #expect(reason.hasPrefix("the server offers ") && reason.hasSuffix(", more than 4096 bytes, the most a part may hold (--part-cap); nothing of it was kept"),
                    "\(reason)")
            #expect(!FileManager.default.fileExists(atPath: part.destination.path))
            #expect(!FileManager.default.fileExists(atPath: part.destination.appendingPathExtension("part").path))
        }
        await fixture.finish()
    }

    /// A server dripping bytes (here 2,000 a second against a floor of 100,000 over one second) is cut off and
    /// tried again until the attempts run out, its bytes kept for a resume: a busy machine only makes it slower.
    @Test func aPartDrippingBelowTheMinimumRateIsCutOffAndRetried() async throws {
        try await withDrippingPart({ ($0.minimumRate, $0.rateWindow, $0.maxAttempts) = (100_000, 1, 2) }) { part, result in
            guard case .failed(let reason)? = result else {
                Issue.record("not cut off: \(String(describing: result))")
                return
            }
            #expect(reason == "gave up after 2 attempts: slower than 100000 bytes a second for 1 s", "\(reason)")
            // What arrived is kept for the next run to resume.
            #expect(FileManager.default.fileExists(atPath: part.destination.appendingPathExtension("part").path))
        }
    }

    /// Downloads part 1 alone, dripped at 2,000 bytes a second, with the quick settings as `adjust` changes them;
    /// `check` sees the part and how it ended while its files are still there.
    private func withDrippingPart(
        _ adjust: (inout DownloadSettings) -> Void, check: (DownloadPart, PartResult?) throws -> Void
    ) async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [1], bytesPerSecond: 2_000), for: DownloadFixture.bookID)
        var settings = DownloadFixture.quick
        adjust(&settings)
        let parts = Array(fixture.parts.prefix(1))
        do {
            try check(parts[0], try await fixture.download(settings, parts: parts)[0])
        } catch {
            await fixture.finish()
            throw error
        }
        await fixture.finish()
    }

    /// A server just fast enough for the minimum rate still meets the part's deadline: here 2,000 bytes a second
    /// against an average of 1 MB a second after a grace of half a second, so for a part of 12 KB the deadline
    /// passes about half a second after the start. The part fails for it at once, not after its attempts, and keeps its bytes. A busy machine
    /// only makes the part slower.
    @Test func aPartPastItsDeadlineFailsAndKeepsItsBytes() async throws {
        try await withDrippingPart({ ($0.minimumAverage, $0.averageGrace, $0.maxAttempts) = (1_048_576, 0.5, 5) }) {
            part, result in
            guard case .failed(let reason)? = result else {
                Issue.record("not stopped at its deadline: \(String(describing: result))")
                return
            }
            // The part states no length in its manifest: its deadline is the size the server states.
            #expect(part.expectedLength == nil)
            #expect(reason.hasPrefix("took longer than 1 s, the most a part of 12427 bytes may take"), "\(reason)")
            #expect(reason.hasSuffix(" may take (its bytes are kept; running the download again goes on from them)"), "\(reason)")
            #expect(FileManager.default.fileExists(atPath: part.destination.appendingPathExtension("part").path))
            #expect(!FileManager.default.fileExists(atPath: part.destination.path))
        }
    }

    @Test func aPartsBoundIsItsLengthElseItsDurationAtTwoMegabitsElseTheCap() {
        let url = URL(string: "http://127.0.0.1:1/1.mp3")!
        let file = URL(fileURLWithPath: "/tmp/1.mp3")
        let cap: Int64 = 4 * 1_073_741_824
        #expect(DownloadPart(index: 0, url: url, destination: file, expectedLength: 1234, duration: 60)
            .bound(bytesPerSecond: 256_000, cap: cap) == 1234)
        #expect(DownloadPart(index: 0, url: url, destination: file, duration: 3600)
            .bound(bytesPerSecond: 256_000, cap: cap) == 3600 * 256_000 + 16 * 1_048_576)
        #expect(DownloadPart(index: 0, url: url, destination: file, duration: 100_000)
            .bound(bytesPerSecond: 256_000, cap: cap) == cap)
        #expect(DownloadPart(index: 0, url: url, destination: file).bound(bytesPerSecond: 256_000, cap: cap) == cap)
    }

    @Test func aManifestLengthThatDoesNotMatchFailsThePart() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        var parts = fixture.parts
        parts[0].expectedLength = 12
        let results = try await fixture.download(parts: parts)
        guard case .failed(let reason)? = results[0] else {
            Issue.record("expected a failure")
            await fixture.finish()
            return
        }
        #expect(reason.contains("more than the 12 bytes its manifest states"))
        #expect(!FileManager.default.fileExists(atPath: parts[0].destination.path))
        await fixture.finish()
    }

    @Test func notEnoughDiskSpaceIsCheckedBeforeStarting() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        var parts = fixture.parts
        parts[0].expectedLength = Int64.max / 4
        await #expect {
            _ = try await fixture.download(parts: parts)
        } throws: { error in
            guard case DownloadError.diskSpace(_, let mountPoint, _, _, _) = error else { return false }
            #expect((error as? DownloadError)?.exitCode == .diskFull)
            #expect(mountPoint == DiskSpace.mountPoint(of: fixture.directory.path))
            return (error as? DownloadError)?.description.hasPrefix("not enough room on the disk at \(mountPoint) for") == true
        }
        await fixture.finish()
    }

    @Test func aDigestFromTheManifestIsChecked() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        let expected = try await fixture.serverBytes()
        var good = try SHA256()
        try good.update(expected[0])
        var parts = fixture.parts
        parts[0].sha256 = try good.finish()
        parts[1].sha256 = String(repeating: "0", count: 64)
        var settings = DownloadFixture.quick
        settings.maxAttempts = 2
        let results = try await fixture.download(settings, parts: parts)
        #expect(results[0] == .complete(bytes: Int64(expected[0].count)))
        #expect(results[1] == .failed(reason: "gave up after 2 attempts: the part's SHA-256 does not match the manifest"))
        #expect(!FileManager.default.fileExists(atPath: parts[1].destination.path))
        await fixture.finish()
    }

    @Test func aStalledTransferIsAbandonedByTheWatchdog() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        // The server sits on every request longer than the watchdog allows.
        await fixture.server.state.setDelay(milliseconds: 2_500)
        var settings = DownloadFixture.quick
        settings.stallSeconds = 1
        settings.maxAttempts = 2
        let started = Date()
        let results = try await fixture.download(settings, parts: Array(fixture.parts.prefix(1)))
        guard case .failed(let reason)? = results[0] else {
            Issue.record("expected the part to fail, got \(String(describing: results[0]))")
            await fixture.finish()
            return
        }
        #expect(reason.hasPrefix("gave up after 2 attempts"))
        // Two attempts of about a second each, not two full server delays.
        #expect(Date().timeIntervalSince(started) < 4.5)
        await fixture.server.state.setDelay(milliseconds: 0)
        await fixture.finish()
    }
}
