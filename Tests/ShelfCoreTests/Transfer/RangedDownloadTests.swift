import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

/// The bytes received as the downloader last reported them, read by the test's stop signal.
private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: Int64 = 0
    var value: Int64 {
        get { lock.withLock { bytes } }
        set { lock.withLock { bytes = newValue } }
    }
}

/// One part fetched as byte ranges over several connections: the demo library on loopback, its part 1 of about
/// 12 KB sent at 3,000 bytes a second on each connection (a server capping each connection), and ranges of at
/// least 1,500 bytes.
@Suite(.timeLimit(.minutes(5))) struct RangedDownloadTests {
    static let book = DownloadFixture.bookID

    /// The line telling that part 1 was split four ways (the bytes to come are what had not arrived by then).
    private static func isSplitLine(_ line: String) -> Bool {
        line.hasPrefix("part 1: ") && line.hasSuffix(" bytes to come; fetching it over 4 connections")
    }

    /// The quick settings with small ranges over four connections, logging into `lines`.
    private static func settings(_ lines: WarningLog) -> DownloadSettings {
        var settings = DownloadFixture.quick
        settings.minimumSplit = 1_500
        settings.concurrency = 4
        settings.perHost = 4
        settings.log = { line in lines.append(line) }
        return settings
    }

    @Test func aCappedPartIsFetchedAsRangesOverEveryIdleConnection() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [1], bytesPerSecond: 3_000), for: Self.book)
        let lines = WarningLog()
        let part = fixture.parts[0]
        let results = try PartDownloader(settings: Self.settings(lines)).run([part])
        let (requests, ranged, sent) = (
            await fixture.server.state.partRequestCount(Self.book, part: 1),
            await fixture.server.state.partRangeRequestCount(Self.book, part: 1),
            await fixture.server.state.partBytesSent(Self.book, part: 1))
        await fixture.server.state.setAudioFaults(AudioFaults(), for: Self.book)
        let expected = try await fixture.serverBytes()[0]
        #expect(results[0] == .complete(bytes: Int64(expected.count)))
        #expect(try Data(contentsOf: part.destination) == expected)
        // The first request was whole; the three idle connections each took a range of the rest (and a range
        // ending early may take half of the largest left, as aria2c does). The first connection is cut where the
        // second range starts: what the server had sent past it by then is all that came twice.
        let told = lines.lines
        #expect(told.first.map(Self.isSplitLine) == true, "\(told)")
        #expect(requests >= 4 && ranged == requests - 1, "\(requests) requests, \(ranged) ranged; \(told)")
        #expect(sent >= expected.count && sent < expected.count * 5 / 4, "\(sent) for \(expected.count)")
        #expect(!FileManager.default.fileExists(atPath: part.destination.path + ".part"))
        #expect(!FileManager.default.fileExists(atPath: part.destination.path + ".part.json"))
        await fixture.finish()
    }

    /// Splits part 1 and stops the download once half of it is in, as Ctrl-C does; the part.
    private func interruptedSplit(_ fixture: DownloadFixture) async throws -> DownloadPart {
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [1], bytesPerSecond: 3_000), for: Self.book)
        let part = fixture.parts[0]
        let received = Received()
        var settings = Self.settings(WarningLog())
        let record = part.destination.appendingPathExtension("part.json")
        settings.stopSignal = { () -> Int32? in
            guard received.value >= 6_000, let data = try? Data(contentsOf: record),
                String(decoding: data, as: UTF8.self).contains("ranges")
            else { return nil }
            return SIGINT
        }
        #expect(throws: DownloadError.interrupted(signal: SIGINT)) {
            _ = try PartDownloader(settings: settings).run([part]) { progress in received.value = progress.received }
        }
        await fixture.server.state.setAudioFaults(AudioFaults(), for: Self.book)
        return part
    }

    @Test func eachRangeResumesWhereItStopped() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        let part = try await interruptedSplit(fixture)
        // The ranges and where each stopped are recorded beside the one `.part` file.
        let record = try JSONDecoder().decode(
            PartFileRecord.self, from: Data(contentsOf: part.destination.appendingPathExtension("part.json")))
        let ranges = try #require(record.ranges)
        #expect(ranges.count == 4, "\(ranges)")
        let done = ranges.reduce(Int64(0)) { $0 + $1[2] }
        #expect(done >= 6_000 && done < record.total ?? 0, "\(ranges)")
        // The server counts what it wrote until it finds each connection closed: wait until the count holds.
        var sent = -1
        while await fixture.server.state.partBytesSent(Self.book, part: 1) != sent {
            sent = await fixture.server.state.partBytesSent(Self.book, part: 1)
            try await Task.sleep(for: .milliseconds(500))
        }
        let (requests, ranged) = (
            await fixture.server.state.partRequestCount(Self.book, part: 1),
            await fixture.server.state.partRangeRequestCount(Self.book, part: 1))
        // The next run asks only for what each range still lacks.
        let results = try PartDownloader(settings: Self.settings(WarningLog())).run([part])
        let again = await fixture.server.state.partRequestCount(Self.book, part: 1) - requests
        let againRanged = await fixture.server.state.partRangeRequestCount(Self.book, part: 1) - ranged
        let resent = await fixture.server.state.partBytesSent(Self.book, part: 1) - sent
        let expected = try await fixture.serverBytes()[0]
        #expect(results[0] == .complete(bytes: Int64(expected.count)))
        #expect(try Data(contentsOf: part.destination) == expected)
        #expect(again >= 1 && again <= 4 && againRanged == again, "\(again) requests, \(againRanged) of them ranged")
        #expect(resent <= expected.count - Int(done), "\(resent) of \(expected.count), \(done) done")
        #expect(!FileManager.default.fileExists(atPath: part.destination.path + ".part.json"))
        await fixture.finish()
    }

    @Test func rangesOfACopyThatChangedStartTheWholePartAgain() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        let part = try await interruptedSplit(fixture)
        // The server's copy changes: If-Range sends the whole new copy, and the ranges of the old are thrown away.
        await fixture.server.state.setAudioFaults(AudioFaults(changedParts: [1]), for: Self.book)
        let lines = WarningLog()
        let results = try PartDownloader(settings: Self.settings(lines)).run([part])
        let expected = try await fixture.serverBytes()[0]
        #expect(results[0] == .complete(bytes: Int64(expected.count)))
        #expect(try Data(contentsOf: part.destination) == expected)
        #expect(lines.lines == [
            "part 1: the server ignored a byte range; fetching it again over one connection",
        ])
        await fixture.finish()
    }

    @Test func aServerThatAnswersRangesWithTheWholeFileGetsOneConnection() async throws {
        let fixture = DownloadFixture()
        try await fixture.start()
        // It says it takes ranges, and sends the whole part to each.
        await fixture.server.state.setAudioFaults(
            AudioFaults(parts: [1], bytesPerSecond: 3_000, ignoresRanges: true), for: Self.book)
        let lines = WarningLog()
        let part = fixture.parts[0]
        let results = try PartDownloader(settings: Self.settings(lines)).run([part])
        await fixture.server.state.setAudioFaults(AudioFaults(), for: Self.book)
        let expected = try await fixture.serverBytes()[0]
        #expect(results[0] == .complete(bytes: Int64(expected.count)))
        #expect(try Data(contentsOf: part.destination) == expected)
        // One line says so; no second split.
        let told = lines.lines
        #expect(told.count == 2 && Self.isSplitLine(told[0]), "\(told)")
        #expect(told.last == "part 1: the server ignored a byte range; fetching it again over one connection", "\(told)")
        #expect(!FileManager.default.fileExists(atPath: part.destination.path + ".part.json"))
        await fixture.finish()
    }
}
