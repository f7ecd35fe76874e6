import Foundation
import ShelfPlayback
import Testing

/// Plays through SDL's disk driver, which writes the exact output stream to a file in real time.
/// Serialized: SDL chooses its audio driver when its audio starts, for the whole process. The driver and the file are
/// given to the device, never set in the environment: setenv while another suite starts a process (Foundation's
/// Process.run reads the environment) crashed the test process.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PlayerTests {
    func diskOutput(_ file: URL) throws -> AudioOutput {
        try AudioOutput(driver: "disk", device: file.path)
    }

    func samples(in file: URL) throws -> [Int16] {
        let data = try Data(contentsOf: file)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    @Test func playsAClipThroughTheDiskDriver() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = try TestAudio.tone("mp3", frequency: 440, seconds: 2, in: directory)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [clip.path], output: try diskOutput(file))
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        let started = Date()
        while player.state != .finished && Date().timeIntervalSince(started) < 5 { usleep(20_000) }
        let end = player.position
        player.stop()
        #expect(player.state == .stopped)
        let audio = TestAudio.trimmedSilence(try samples(in: file))
        let seconds = Double(audio.count / 2) / 44_100
        #expect(abs(seconds - 2.0) < 0.1, "heard \(seconds) s")
        #expect(abs(TestAudio.frequency(audio) - 440) < 5)
        #expect(end.part == 0 && abs(end.seconds - 2.0) < 0.1, "ended at \(end)")
    }

    @Test func crossesPartsAndReportsWhatWasHeard() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try TestAudio.tone("flac", frequency: 440, seconds: 1, in: directory)
        let second = try TestAudio.tone("ogg", frequency: 880, seconds: 1, in: directory)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [first.path, second.path], output: try diskOutput(file))
        try player.play(from: PlaybackPosition(part: 0, seconds: 0.5))
        usleep(300_000)
        let early = player.position
        #expect(early.part == 0 && early.seconds >= 0.5 && early.seconds < 0.9, "early \(early)")
        let started = Date()
        while player.state != .finished && Date().timeIntervalSince(started) < 4 { usleep(20_000) }
        let end = player.position
        player.stop()
        #expect(end.part == 1 && abs(end.seconds - 1.0) < 0.1, "ended at \(end)")
        let audio = TestAudio.trimmedSilence(try samples(in: file))
        let seconds = Double(audio.count / 2) / 44_100
        #expect(abs(seconds - 1.5) < 0.1, "heard \(seconds) s")
        #expect(abs(TestAudio.frequency(audio.prefix(44_100 / 2 * 2 - 2000)) - 440) < 8)
        #expect(abs(TestAudio.frequency(audio.suffix(44_100 / 2 * 2 * 2 - 4000)) - 880) < 8)
    }

    @Test func pauseSeekAndSpeed() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = try TestAudio.tone("wav", frequency: 440, seconds: 3, in: directory)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [clip.path], output: try diskOutput(file))
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        usleep(200_000)
        player.pause()
        #expect(player.state == .paused)
        let paused = player.position
        usleep(200_000)
        #expect(abs(player.position.seconds - paused.seconds) < 0.01, "position moved while paused")
        try player.seek(to: PlaybackPosition(part: 0, seconds: 2.0))
        #expect(player.position == PlaybackPosition(part: 0, seconds: 2.0))
        try player.setSpeed(2.0)
        try player.play()
        let started = Date()
        while player.state != .finished && Date().timeIntervalSince(started) < 30 { usleep(20_000) }
        #expect(player.state == .finished)
        // The speed as heard, not as timed (a loaded machine is slower, and an underrun writes silence, neither of
        // which says anything of the speed): the sounding output is what played before the pause and the last
        // second of the source at twice the speed, half a second, where 1x would be a whole one. The device's
        // buffer may add a few hundredths of a second at the pause.
        let sounding = Double(try samples(in: file).lazy.filter { abs(Int($0)) > 200 }.count)
            / Double(PCM.channels * PCM.sampleRate)
        let afterSeek = sounding - paused.seconds
        #expect(afterSeek > 0.3 && afterSeek < 0.75, "\(afterSeek) s sounded after the seek, \(sounding) s in all")
        #expect(abs(player.position.seconds - 3.0) < 0.1, "ended at \(player.position)")
        #expect(throws: PlaybackError.noSuchPart(index: 3, count: 1)) {
            try player.seek(to: PlaybackPosition(part: 3, seconds: 0))
        }
        player.stop()
    }
}

extension PlayerTests {
    @Test func noDeviceIsAClearError() {
        // A device SDL cannot open (the disk driver's file in a folder that does not exist), whatever driver SDL's
        // audio already runs on in this process.
        do {
            _ = try AudioOutput(driver: "disk", device: "/nonexistent-shelf-folder/out.raw")
            Issue.record("opened a device with no driver")
        } catch let error as PlaybackError {
            #expect(error.description.hasPrefix("no audio device: set SDL_AUDIODRIVER (e.g. pulseaudio, alsa, or disk for testing)"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

extension PlayerTests {
    /// A part whose file is still downloading: the player says so, waits, and plays it when it is complete.
    @Test func waitsForAPartStillDownloading() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try TestAudio.tone("mp3", frequency: 440, seconds: 0.5, in: directory)
        let second = try TestAudio.tone("mp3", frequency: 880, seconds: 0.5, in: directory)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [first.path, second.path], output: try diskOutput(file))
        let arrived = Flag()
        player.partReady = { index in index == 0 || arrived.isSet }
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        var sawBuffering = false
        let started = Date()
        while Date().timeIntervalSince(started) < 1.5 {
            if player.state == .buffering { sawBuffering = true }
            usleep(20_000)
        }
        #expect(sawBuffering)
        #expect(player.bufferingPart == 1)
        let waiting = player.position
        #expect(waiting.part == 0 && abs(waiting.seconds - 0.5) < 0.1, "waiting at \(waiting)")
        arrived.set()
        while player.state != .finished && Date().timeIntervalSince(started) < 4 { usleep(20_000) }
        #expect(player.state == .finished)
        #expect(player.position.part == 1 && abs(player.position.seconds - 0.5) < 0.1, "ended at \(player.position)")
        player.stop()
        let audio = TestAudio.trimmedSilence(try samples(in: file))
        #expect(abs(TestAudio.frequency(audio.suffix(44_100 / 4 * 2)) - 880) < 10)
    }

    /// A part that is not audio at all is reported and skipped; the parts around it play.
    @Test func skipsAPartThatIsNotAudio() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try TestAudio.tone("mp3", frequency: 440, seconds: 0.5, in: directory)
        let broken = directory.appendingPathComponent("broken.mp3")
        try Data(repeating: 0x5A, count: 40_000).write(to: broken)
        let third = try TestAudio.tone("mp3", frequency: 880, seconds: 0.5, in: directory)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [first.path, broken.path, third.path], output: try diskOutput(file))
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        let started = Date()
        while player.state != .finished && Date().timeIntervalSince(started) < 4 { usleep(20_000) }
        #expect(player.state == .finished)
        #expect(player.position.part == 2)
        let problems = player.takeProblems()
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("part 2 cannot be played") == true, "\(problems)")
        #expect(problems.first?.hasSuffix("skipped to part 3") == true, "\(problems)")
        #expect(player.takeProblems().isEmpty)
        player.stop()
    }

    /// The volume scales what reaches the device (the sleep timer fades with it).
    @Test func volumeScalesTheOutput() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = try TestAudio.tone("wav", frequency: 440, seconds: 0.6, in: directory)
        let file = directory.appendingPathComponent("out.raw")
        let player = Player(parts: [clip.path], output: try diskOutput(file))
        player.volume = 0.25
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        let started = Date()
        while player.state != .finished && Date().timeIntervalSince(started) < 3 { usleep(20_000) }
        player.stop()
        let peak = try samples(in: file).map { abs(Int($0)) }.max() ?? 0
        let source = try AudioDecoder(path: clip.path).decodeAll().samples.map { abs(Int($0)) }.max() ?? 0
        #expect(source > 2_000)
        #expect(abs(Double(peak) - Double(source) / 4) < Double(source) * 0.02, "peak \(peak) of \(source)")
    }

    /// SDL's disk driver disconnects its device when a write fails: here the reader of a FIFO goes away,
    /// as a sound server or headphones would.
    @Test func noticesALostDevice() throws {
        signal(SIGPIPE, SIG_IGN)
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = try TestAudio.tone("wav", frequency: 440, seconds: 3, in: directory)
        let fifo = directory.appendingPathComponent("device.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let reader = Thread {
            guard let handle = FileHandle(forReadingAtPath: fifo.path) else { return }
            var total = 0
            while total < 44_100 * 4 / 2 {
                let data = handle.readData(ofLength: 16_384)
                if data.isEmpty { break }
                total += data.count
            }
            try? handle.close()
        }
        reader.start()
        let player = Player(parts: [clip.path], output: try diskOutput(fifo))
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        #expect(!player.deviceLost)
        let started = Date()
        // The reader stops after half a second of audio; a loaded machine (the whole suite) may take a while more.
        while !player.deviceLost && Date().timeIntervalSince(started) < 10 { usleep(20_000) }
        #expect(player.deviceLost)
        player.pause()
        let kept = player.position
        #expect(kept.seconds > 0.2 && kept.seconds < 2.0, "kept \(kept)")
        player.stop()
    }
}

/// A flag one thread sets and another reads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
