import Foundation
import ShelfPlayback
import Testing

@Suite(.timeLimit(.minutes(5))) struct AudioDecoderTests {
    @Test(arguments: TestAudio.formats.map(\.ext))
    func decodesDurationAndFrequency(ext: String) throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try TestAudio.tone(ext, frequency: 440, seconds: 2, in: directory)
        let decoder = try AudioDecoder(path: url.path)
        let all = try decoder.decodeAll()
        #expect(abs(all.duration - 2.0) < 0.06, "\(ext): decoded \(all.duration) s")
        #expect(abs(TestAudio.frequency(all.samples) - 440) < 5, "\(ext): \(TestAudio.frequency(all.samples)) Hz")
        #expect(abs(all.time) < 0.05)
        #expect(decoder.skippedFrames == 0)
    }

    @Test(arguments: TestAudio.formats.map(\.ext))
    func seekLandsWithin50ms(ext: String) throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try TestAudio.tone(ext, frequency: 440, seconds: 3, in: directory)
        let decoder = try AudioDecoder(path: url.path)
        try decoder.seek(to: 1.5)
        let rest = try decoder.decodeAll()
        #expect(abs(rest.time - 1.5) < 0.05, "\(ext): landed at \(rest.time)")
        #expect(abs(rest.duration - 1.5) < 0.05, "\(ext): \(rest.duration) s after the seek")
        try decoder.seek(to: 0.25)
        let again = try #require(try decoder.next())
        #expect(abs(again.time - 0.25) < 0.05)
    }

    @Test func truncatedMP3EndsCleanly() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try TestAudio.tone("mp3", frequency: 440, seconds: 2, in: directory)
        let data = try Data(contentsOf: url)
        var cut = data.prefix(data.count / 2)
        cut.append(Data(repeating: 0xFF, count: 300))  // garbage where the next frame should be
        let truncated = directory.appendingPathComponent("cut.mp3")
        try cut.write(to: truncated)
        let all = try AudioDecoder(path: truncated.path).decodeAll()
        #expect(all.duration > 0.8 && all.duration < 1.2, "decoded \(all.duration) s")
    }

    @Test func missingFileIsAnError() {
        #expect(throws: PlaybackError.self) { try AudioDecoder(path: "/nonexistent/shelf.mp3") }
    }

    @Test func doubleSpeedHalvesTheSamplesAndKeepsThePitch() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try TestAudio.tone("wav", frequency: 440, seconds: 2, in: directory)
        let decoder = try AudioDecoder(path: url.path)
        let filter = try TempoFilter(speed: 2.0)
        var input = 0
        var output: [Int16] = []
        while let chunk = try decoder.next() {
            input += chunk.frames
            output += filter.process(chunk.samples)
        }
        output += filter.finish()
        let ratio = Double(output.count / PCM.channels) / Double(input)
        #expect(abs(ratio - 0.5) < 0.02, "ratio \(ratio)")
        #expect(abs(TestAudio.frequency(output) - 440) < 8, "\(TestAudio.frequency(output)) Hz")
        #expect(throws: PlaybackError.speedOutOfRange(4.5)) { try filter.setSpeed(4.5) }
    }
}

extension AudioDecoderTests {
    @Test(arguments: ["mp3", "flac"])
    func corruptFramesAreSkipped(ext: String) throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try TestAudio.tone(ext, frequency: 440, seconds: 2, in: directory)
        var data = try Data(contentsOf: url)
        let middle = data.count / 2
        for offset in stride(from: middle, to: middle + 1500, by: 7) { data[offset] ^= 0x5A }
        let damaged = directory.appendingPathComponent("damaged.\(ext)")
        try data.write(to: damaged)
        let decoder = try AudioDecoder(path: damaged.path)
        let all = try decoder.decodeAll()
        #expect(all.duration > 1.7, "\(ext): decoded \(all.duration) s")
        #expect(decoder.skippedFrames > 0)
    }
}
