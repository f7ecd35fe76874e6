import Foundation
import ShelfPlayback
import Testing

@Suite(.timeLimit(.minutes(5))) struct M4BExporterTests {
    private static let aac = ["-c:a", "aac", "-b:a", "64k"]
    private static let mp3 = ["-c:a", "libmp3lame", "-b:a", "32k"]

    private func cover(in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("cover.png")
        _ = try FFtool.run(
            "/usr/bin/ffmpeg",
            ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=32x32", "-frames:v", "1", file.path])
        return file
    }

    private func book(_ parts: [URL], chapters: [M4BBook.Chapter] = [], cover: URL? = nil) -> M4BBook {
        M4BBook(
            parts: parts, chapters: chapters, title: "The Test Book", author: "Ada Author", narrator: "Ned Narrator",
            year: "1899", cover: cover)
    }

    private func leftovers(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("out.m4b") }.sorted()
    }

    /// The pitch heard between two moments of a file, by decoding it as the player does.
    private func pitch(_ file: URL, from start: Double, to end: Double) throws -> Double {
        let audio = try AudioDecoder(path: file.path).decodeAll()
        let rate = Double(PCM.sampleRate) * Double(PCM.channels)
        return TestAudio.frequency(audio.samples[Int(start * rate)..<Int(end * rate)])
    }

    @Test func aacPartsAreCopiedPacketForPacketWithChaptersTagsAndCover() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lengths = [2.0, 3.0, 1.5]
        let parts = try lengths.enumerated().map { index, seconds in
            try FFtool.tone(directory.appendingPathComponent("part-\(index).m4a"), frequency: 300 + 200 * index,
                            seconds: seconds, codec: Self.aac)
        }
        let chapters = [
            M4BBook.Chapter(title: "Opening", part: 0, offset: 0),
            M4BBook.Chapter(title: "The Middle", part: 1, offset: 1.0),
            M4BBook.Chapter(title: "Part Two Begins", part: 1, offset: 0),
            M4BBook.Chapter(title: "The End", part: 2, offset: 0),
        ]
        let out = directory.appendingPathComponent("out.m4b")
        let result = try M4BExporter.export(book(parts, chapters: chapters, cover: try cover(in: directory)), to: out)
        #expect(result.method == .remuxed)
        #expect(result.cover)
        #expect(result.chapters.map(\.title) == ["Opening", "Part Two Begins", "The Middle", "The End"])
        #expect(abs(result.duration - 6.5) < 0.1)
        #expect(result.bytes == Int64(try Data(contentsOf: out).count))

        let probe = try Probe.of(out)
        #expect(abs(probe.duration - lengths.reduce(0, +)) < 0.5)
        #expect(probe.audio?.codec_name == "aac")
        #expect(probe.titles == ["Opening", "Part Two Begins", "The Middle", "The End"])
        for (start, expected) in zip(probe.starts, [0.0, 2.0, 3.0, 5.0]) { #expect(abs(start - expected) < 0.1, "\(probe.starts)") }
        let tags = probe.tags
        #expect(tags["title"] == "The Test Book")
        #expect(tags["album"] == "The Test Book")
        #expect(tags["artist"] == "Ada Author")
        #expect(tags["composer"] == "Ned Narrator")
        #expect(tags["genre"] == "Audiobook")
        #expect(tags["date"] == "1899")
        #expect(probe.hasCover)
        // Not re-encoded: the audio packets are the parts' packets, byte for byte and in order.
        let copied = try Probe.packets(out)
        let originals = try parts.flatMap { try Probe.packets($0) }
        #expect(copied.count == originals.count)
        #expect(copied == originals, "the audio packets differ from the parts'")
        // Each part's tone is where its chapter says.
        for (range, frequency) in [((0.5, 1.5), 300.0), ((2.5, 4.5), 500.0), ((5.2, 6.2), 700.0)] {
            #expect(abs(try pitch(out, from: range.0, to: range.1) - frequency) < 10)
        }
        #expect(try leftovers(directory) == ["out.m4b"])
    }

    @Test func mp3PartsAreEncodedToAACWithAChapterPerPartWhenTheBookNamesNone() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Different rates and channel counts: each part is resampled to the first one's format.
        let parts = [
            try FFtool.tone(directory.appendingPathComponent("a.mp3"), frequency: 330, seconds: 3, rate: 22_050, channels: 1,
                            codec: Self.mp3),
            try FFtool.tone(directory.appendingPathComponent("b.mp3"), frequency: 440, seconds: 2, rate: 44_100, channels: 2,
                            codec: Self.mp3),
        ]
        var ticks = 0
        let out = directory.appendingPathComponent("out.m4b")
        let result = try M4BExporter.export(book(parts), to: out, progress: { done, total in
            ticks += 1
            #expect(done <= total + 0.01)
        })
        #expect(ticks > 10)
        #expect(result.method == .encoded)
        #expect(!result.cover)
        let probe = try Probe.of(out)
        #expect(probe.audio?.codec_name == "aac")
        #expect(probe.audio?.sample_rate == "22050")
        #expect(probe.audio?.channels == 1)
        #expect(abs(probe.duration - 5) < 0.5)
        #expect(probe.titles == ["Part 1", "Part 2"])
        #expect(abs(probe.starts[1] - 3) < 0.1)
        #expect(abs(try pitch(out, from: 0.5, to: 2.5) - 330) < 10)
        #expect(abs(try pitch(out, from: 3.3, to: 4.7) - 440) < 10)
        #expect(!probe.hasCover)
        #expect(try leftovers(directory) == ["out.m4b"])
    }

    @Test func aacPartsThatDifferAreEncodedNotCopied() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = [
            try FFtool.tone(directory.appendingPathComponent("a.m4a"), frequency: 330, seconds: 2, rate: 44_100, codec: Self.aac),
            try FFtool.tone(directory.appendingPathComponent("b.m4a"), frequency: 440, seconds: 2, rate: 48_000, codec: Self.aac),
        ]
        let result = try M4BExporter.export(book(parts), to: directory.appendingPathComponent("out.m4b"))
        #expect(result.method == .encoded)
        #expect(abs(result.duration - 4) < 0.1)
    }

    @Test func anExistingFileIsKeptUnlessOverwritingIsAsked() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let part = try FFtool.tone(directory.appendingPathComponent("a.m4a"), frequency: 330, seconds: 1, codec: Self.aac)
        let out = directory.appendingPathComponent("out.m4b")
        try Data("mine".utf8).write(to: out)
        #expect(throws: M4BExportError.fileExists(path: out.path)) { try M4BExporter.export(book([part]), to: out) }
        #expect(try Data(contentsOf: out) == Data("mine".utf8))
        _ = try M4BExporter.export(book([part]), to: out, overwrite: true)
        #expect(try Probe.of(out).audio?.codec_name == "aac")
        #expect(try leftovers(directory) == ["out.m4b"])
    }

    @Test func anInterruptRemovesThePartialFileAndWritesNothing() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = try (0..<2).map {
            try FFtool.tone(directory.appendingPathComponent("p\($0).mp3"), frequency: 440, seconds: 3, codec: Self.mp3)
        }
        let out = directory.appendingPathComponent("out.m4b")
        var partialSeen = false
        var asked = 0
        #expect(throws: M4BExportError.interrupted) {
            try M4BExporter.export(
                book(parts), to: out,
                progress: { _, _ in
                    partialSeen = partialSeen || FileManager.default.fileExists(atPath: out.path + ".partial")
                },
                shouldStop: {
                    asked += 1
                    return asked > 40
                })
        }
        #expect(partialSeen)
        #expect(try leftovers(directory).isEmpty)
    }

    @Test func aPartCutShortFailsTheExportAndLeavesNoFile() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try FFtool.tone(directory.appendingPathComponent("a.mp3"), frequency: 330, seconds: 3, codec: Self.mp3)
        let cut = try FFtool.tone(directory.appendingPathComponent("b.mp3"), frequency: 440, seconds: 4, codec: Self.mp3)
        // LAME's header still says 4 s; the audio stops near 2 s.
        let bytes = try Data(contentsOf: cut)
        try bytes.prefix(bytes.count / 2).write(to: cut)
        let out = directory.appendingPathComponent("out.m4b")
        var partialSeen = false
        #expect {
            try M4BExporter.export(book([whole, cut]), to: out, progress: { _, _ in
                partialSeen = partialSeen || FileManager.default.fileExists(atPath: out.path + ".partial")
            })
        } throws: { error in
            guard case .cutShort(let path, let endsAt, let declared)? = error as? PlaybackError else { return false }
            return path == cut.path && endsAt < 3 && declared > 3.9
        }
        #expect(partialSeen)
        #expect(try leftovers(directory).isEmpty)
    }

    @Test func aPartThatIsNotAudioFailsWithFFmpegsMessage() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try FFtool.tone(directory.appendingPathComponent("a.m4a"), frequency: 330, seconds: 1, codec: Self.aac)
        let bad = directory.appendingPathComponent("b.m4a")
        try Data(repeating: 0x41, count: 4096).write(to: bad)
        let out = directory.appendingPathComponent("out.m4b")
        #expect {
            try M4BExporter.export(book([good, bad]), to: out)
        } throws: { error in
            guard case .ffmpeg(let action, let message)? = error as? PlaybackError else { return false }
            return action == "open \(bad.path)" && message == "Invalid data found when processing input"
        }
        #expect(try leftovers(directory).isEmpty)
    }
}
