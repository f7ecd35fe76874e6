import Foundation
import ShelfPlayback
import ShelfSpawn
import Testing

/// Skipping silence, the volume boost and its limiter, and loudness normalisation, measured in what SDL's disk driver
/// wrote: the whole chain the player plays through.
extension PlayerTests {
    /// A 440 Hz sine of `seconds` with the `silent` spans (start, end, in seconds) zeroed, as 16-bit WAV.
    static func toneWithGaps(seconds: Double, silent: [(Double, Double)], amplitude: Double = 0.5, in directory: URL,
                             name: String = "gaps") throws -> URL {
        let url = directory.appendingPathComponent("\(name).wav")
        let spans = silent.map { "between(t,\($0.0),\($0.1))" }.joined(separator: "+")
        // lavfi's sine is at 1/8 of full scale.
        var filter = "volume=\(amplitude * 8)"
        if !spans.isEmpty { filter += ",volume=enable='\(spans)':volume=0" }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = [
            "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
            "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)", "-af", filter, "-ac", "2",
            "-c:a", "pcm_s16le", url.path,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return url
    }

    private func playToTheEnd(_ player: Player, within seconds: Double) throws {
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        let started = Date()
        while player.state != .finished && Date().timeIntervalSince(started) < seconds { usleep(20_000) }
    }

    @Test func skippingSilenceShortensLongPausesAndKeepsShortOnesAndBookTime() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Pauses of 3 s and 1 s (each cut to 0.3 s) and one of 0.4 s (kept whole).
        let clip = try Self.toneWithGaps(seconds: 10, silent: [(2, 5), (7, 8), (8.5, 8.9)], in: directory)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [clip.path], output: try diskOutput(file))
        player.setSkipSilence(true)
        try playToTheEnd(player, within: 30)
        let end = player.position
        let saved = player.savedBySkipping
        player.stop()
        let audio = TestAudio.trimmedSilence(try samples(in: file))
        let heard = Double(audio.count / 2) / 44_100
        let expectedSaved = (3 - 0.3) + (1 - 0.3)
        // An underrun on a loaded machine writes silence into what was heard, never takes any away: 5% below, and
        // above, anything short of the 10 s heard without skipping.
        #expect(Self.heardAsSkipped(heard, expected: 10 - expectedSaved, without: 10), "heard \(heard) s")
        #expect(abs(saved - expectedSaved) / expectedSaved < 0.05, "saved \(saved) s")
        // Positions stay in the book's time: the end is at 10 s, not at 6.6.
        #expect(end.part == 0 && abs(end.seconds - 10) < 0.15, "ended at \(end)")
        // The 0.4 s pause is still there: a run of silence between 0.35 and 0.45 s.
        #expect(Self.silences(in: audio).contains { $0 > 0.35 && $0 < 0.45 }, "\(Self.silences(in: audio))")
    }

    /// Whether `heard` seconds are what skipping makes of the clip (`expected`), less 5% at most, or more by what
    /// a loaded machine's underruns add (seen up to 0.47 s), yet less than what is heard `without` skipping. What
    /// skipping saved is checked exactly by `savedBySkipping`, which no underrun touches.
    static func heardAsSkipped(_ heard: Double, expected: Double, without: Double) -> Bool {
        heard > expected * 0.95 && heard < without
    }

    @Test func skippingSilenceAtTwiceTheSpeedSavesHalfTheTime() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = try Self.toneWithGaps(seconds: 8, silent: [(2, 6)], in: directory)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [clip.path], output: try diskOutput(file))
        try player.setSpeed(2)
        player.setSkipSilence(true)
        try playToTheEnd(player, within: 30)
        let end = player.position
        let saved = player.savedBySkipping
        player.stop()
        let heard = Double(TestAudio.trimmedSilence(try samples(in: file)).count / 2) / 44_100
        #expect(Self.heardAsSkipped(heard, expected: (8 - 3.7) / 2, without: 8 / 2), "heard \(heard) s")
        #expect(abs(saved - 3.7 / 2) / (3.7 / 2) < 0.05, "saved \(saved) s")
        #expect(abs(end.seconds - 8) < 0.2, "ended at \(end)")
    }

    @Test func noSilenceAndAllSilenceBothPlayThrough() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tone = try Self.toneWithGaps(seconds: 2, silent: [], in: directory, name: "tone")
        let quiet = try Self.toneWithGaps(seconds: 3, silent: [(0, 3)], in: directory, name: "quiet")
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [tone.path, quiet.path], output: try diskOutput(file))
        player.setSkipSilence(true)
        try playToTheEnd(player, within: 20)
        let end = player.position
        let saved = player.savedBySkipping
        player.stop()
        #expect(player.state == .stopped)
        // The tone whole; of the silent part only 0.3 s, and the end is its end.
        #expect(abs(saved - 2.7) < 0.1, "saved \(saved)")
        #expect(end.part == 1 && abs(end.seconds - 3) < 0.15, "ended at \(end)")
        let heard = Double(TestAudio.trimmedSilence(try samples(in: file)).count / 2) / 44_100
        #expect(abs(heard - 2) < 0.1, "heard \(heard)")
    }

    /// The loudest sample and the root mean square of a file as the player decodes it.
    private func levels(of file: URL) throws -> (peak: Double, rms: Double) {
        let samples = try AudioDecoder(path: file.path).decodeAll().samples
        return (Double(samples.map { abs(Int($0)) }.max() ?? 0), Self.rms(samples[...]))
    }

    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
    }

    /// Twice the volume on a tone at 90 % of full scale: the limiter holds every sample under 0 dBFS without
    /// flattening the wave's tops (a clipped sine has a strong third harmonic; a limited one keeps its shape).
    @Test func boostingNeverClips() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loud = try Self.toneWithGaps(seconds: 1.5, silent: [], amplitude: 0.9, in: directory, name: "loud")
        let source = try levels(of: loud)
        #expect(source.peak * 2 > 32_767 * 1.2, "the boost would clip \(source.peak)")
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [loud.path], output: try diskOutput(file))
        player.volume = 2
        #expect(player.volume == 2)
        try playToTheEnd(player, within: 10)
        player.stop()
        let out = TestAudio.trimmedSilence(try samples(in: file))
        let peak = out.map { abs(Int($0)) }.max() ?? 0
        #expect(peak <= 32_767 * 97 / 100 + 1 && peak > 31_000, "peak \(peak)")
        let middle = out[(out.startIndex + out.count / 4 & ~1)..<(out.startIndex + out.count * 3 / 4 & ~1)]
        let third = Signal.goertzel(middle, frequency: 1_320) / Signal.goertzel(middle, frequency: 440)
        #expect(third < 0.01, "third harmonic at \(third) of the tone")
        player.volume = 5
        #expect(player.volume == Player.maxVolume)
    }

    @Test func boostingAQuietRecordingDoublesIt() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let quiet = try Self.toneWithGaps(seconds: 1, silent: [], amplitude: 0.1, in: directory, name: "soft")
        let source = try levels(of: quiet)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [quiet.path], output: try diskOutput(file))
        player.volume = 2
        try playToTheEnd(player, within: 10)
        player.stop()
        let peak = Double(try samples(in: file).map { abs(Int($0)) }.max() ?? 0)
        #expect(abs(peak / source.peak - 2) < 0.02, "×\(peak / source.peak)")
    }

    @Test func normalisingBringsAQuietRecordingUp() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Far under −20 dBFS RMS: normalising raises it by its most, four times.
        let quiet = try Self.toneWithGaps(seconds: 2, silent: [], amplitude: 0.035, in: directory, name: "faint")
        let source = try levels(of: quiet)
        #expect(source.rms * 4 < 32_768 * 0.1)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [quiet.path], output: try diskOutput(file))
        player.normalizesLoudness = true
        try playToTheEnd(player, within: 10)
        player.stop()
        let ratio = Self.rms(TestAudio.trimmedSilence(try samples(in: file))) / source.rms
        #expect(ratio > 3.8 && ratio < 4.1, "×\(ratio)")
    }

    @Test func normalisingBringsALoudRecordingDown() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loud = try Self.toneWithGaps(seconds: 2, silent: [], amplitude: 0.8, in: directory, name: "blaring")
        let source = try levels(of: loud)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [loud.path], output: try diskOutput(file))
        player.normalizesLoudness = true
        try playToTheEnd(player, within: 10)
        player.stop()
        // Far over −20 dBFS RMS: normalising lowers it by its most, by half.
        #expect(source.rms * 0.5 > 32_768 * 0.1)
        let ratio = Self.rms(TestAudio.trimmedSilence(try samples(in: file))) / source.rms
        #expect(abs(ratio - 0.5) < 0.02, "×\(ratio)")
    }

    /// Lengths in seconds of the runs of silence (under 200) inside `audio`.
    static func silences(in audio: ArraySlice<Int16>) -> [Double] {
        var runs: [Double] = []
        var run = 0
        var index = audio.startIndex
        while index < audio.endIndex {
            if abs(Int(audio[index])) < 200 && abs(Int(audio[index + 1])) < 200 {
                run += 1
            } else {
                // A sine crosses zero often: only a run longer than 20 ms is a pause.
                if run > 882 { runs.append(Double(run) / 44_100) }
                run = 0
            }
            index += 2
        }
        return runs
    }
}
