// shelf-playback-bench: the playback benchmark for `shelf listen` (issue 5), in-process, on audio it makes with the
// ffmpeg CLI. Not a test: it prints a table of figures and exits 0 whatever they are. Benchmarks/listen.sh runs it.
//
//   decode speed     AudioDecoder.decodeAll, and next() + TempoFilter as the player's decode thread runs them at
//                    1× and 2×, against `ffmpeg -nostdin -i FILE -f null -` on the same file in the same run
//   first samples    Player.play(from:) to the first samples queued at SDL (output.queuedFrames > 0)
//   seek             Player.seek(to:) to new samples queued at SDL; seek empties SDL's queue, so the first
//                    queuedFrames > 0 after it is new audio. Within one part, and to another part.
//   CPU              getrusage(RUSAGE_SELF) user+sys over ~20 s of playing, per second of audio and per wall second
//
// Audio goes to SDL's dummy driver (real-time pacing, samples discarded) unless SDL_AUDIODRIVER is set.
// Usage: shelf-playback-bench [--work DIR] [--runs N] [--seeks N] [--play SECONDS] [--ffmpeg PATH]
import Foundation
import ShelfPlayback

struct BenchOptions {
    var work = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-playback-bench").path
    /// Repetitions of each decode and first-samples measurement (the median is reported).
    var runs = 11
    var seeks = 20
    var playSeconds = 20.0
    var ffmpeg = "ffmpeg"

    static func parse(_ arguments: [String]) -> BenchOptions {
        var options = BenchOptions()
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { usage("\(name) needs a value") }
            switch name {
            case "--work": options.work = value
            case "--runs": options.runs = max(1, Int(number(name, value)))
            case "--seeks": options.seeks = max(1, Int(number(name, value)))
            case "--play": options.playSeconds = max(2, number(name, value))
            case "--ffmpeg": options.ffmpeg = value
            default: usage("unknown option \(name)")
            }
        }
        return options
    }

    static func number(_ name: String, _ value: String) -> Double {
        guard let number = Double(value) else { usage("\(name) takes a number") }
        return number
    }

    static func usage(_ problem: String) -> Never {
        FileHandle.standardError.write(Data("""
            shelf-playback-bench: \(problem)
            usage: shelf-playback-bench [--work DIR] [--runs N] [--seeks N] [--play SECONDS] [--ffmpeg PATH]

            """.utf8))
        exit(64)
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

// MARK: - Clocks

/// Monotonic seconds.
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// User + system CPU seconds of this process (every thread), or of its waited-for children.
func cpuSeconds(children: Bool = false) -> Double {
    var usage = rusage()
    let who = children ? RUSAGE_CHILDREN : RUSAGE_SELF
    _ = getrusage(__rusage_who_t(truncatingIfNeeded: who.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func sleep(seconds: Double) { usleep(useconds_t(seconds * 1e6)) }

/// Waits until SDL holds samples; false after `limit` seconds. Polls every 0.25 ms rather than spinning, so the
/// poller does not take a core from the decode thread on a small machine.
func waitForQueuedSamples(_ output: AudioOutput, limit: Double = 5) -> Bool {
    let deadline = now() + limit
    while output.queuedFrames == 0 {
        if now() > deadline { return false }
        usleep(250)
    }
    return true
}

// MARK: - Inputs

/// Runs a program to the end; its output goes to /dev/null. Returns the wall seconds it took.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let started = now()
    try process.run()
    process.waitUntilExit()
    let wall = now() - started
    guard process.terminationStatus == 0 else {
        throw BenchFailure(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return wall
}

/// A speech-like stand-in: a tone under pink noise, mono 44.1 kHz MP3 at 64 kbps (a common audiobook encoding).
/// Made once and kept in the work directory.
func makeAudio(_ path: String, seconds: Int, frequency: Int, ffmpeg: String) throws {
    guard !FileManager.default.fileExists(atPath: path) else { return }
    let scratch = path + ".partial.mp3"
    try run(ffmpeg, [
        "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
        "-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds):sample_rate=44100",
        "-f", "lavfi", "-i", "anoisesrc=duration=\(seconds):color=pink:amplitude=0.1:sample_rate=44100",
        "-filter_complex", "amix=inputs=2:duration=first", "-ac", "1",
        "-c:a", "libmp3lame", "-b:a", "64k", scratch,
    ])
    try FileManager.default.moveItem(atPath: scratch, toPath: path)
}

// MARK: - Measurements

struct DecodeResult {
    var label: String
    var audioSeconds: Double
    var wall: Double
    var cpu: Double
    var speed: Double { audioSeconds / wall }
}

/// Median wall (and the CPU of that run) of `runs` repetitions of `body`, which returns seconds of audio.
func timed(_ label: String, runs: Int, children: Bool = false, _ body: () throws -> Double) rethrows -> DecodeResult {
    var results: [DecodeResult] = []
    for _ in 0..<runs {
        let cpu0 = cpuSeconds(children: children)
        let start = now()
        let audio = try body()
        let wall = now() - start
        results.append(DecodeResult(label: label, audioSeconds: audio, wall: wall, cpu: cpuSeconds(children: children) - cpu0))
    }
    return results.sorted { $0.wall < $1.wall }[results.count / 2]
}

/// Decodes through `next()` and a tempo filter, as Player's decode thread does; returns seconds of source audio.
func decodeThroughFilter(_ path: String, speed: Double) throws -> Double {
    let decoder = try AudioDecoder(path: path)
    let filter = try TempoFilter(speed: speed)
    var frames = 0
    while let chunk = try decoder.next() {
        frames += filter.process(chunk.samples).count / PCM.channels
    }
    frames += filter.finish().count / PCM.channels
    return Double(frames) / Double(PCM.sampleRate) * speed
}

/// Runs `body` with a fresh device and player, as `shelf listen` has them, then stops the player and waits until
/// the device is let go. SDL's dummy and disk drivers open one device at a time, and the player's threads release
/// the last one just after `stop()` returns, closing it while its audio thread finishes a period; so an open that
/// fails is tried again for a while, and `open` is the time of the attempt that succeeded.
func withPlayer<T>(
    _ parts: [String], speed: Double, _ body: (Player, AudioOutput) throws -> T
) throws -> (result: T, open: Double) {
    weak var released: AudioOutput?
    let (result, open): (T, Double) = try {
        let (output, open) = try openOutput()
        released = output
        let player = Player(parts: parts, output: output)
        defer { player.stop() }
        try player.setSpeed(speed)
        return (try body(player, output), open)
    }()
    let deadline = now() + 2
    while released != nil && now() < deadline { usleep(1_000) }
    return (result, open)
}

func openOutput() throws -> (AudioOutput, Double) {
    let deadline = now() + 2
    while true {
        let opening = now()
        do {
            let output = try AudioOutput()
            return (output, now() - opening)
        } catch where now() < deadline {
            usleep(5_000)
        }
    }
}

/// Seconds from `play(from:)` to the first samples at SDL, and how long opening the device took before it.
func firstSamples(_ parts: [String], from start: PlaybackPosition, speed: Double) throws -> (first: Double, open: Double) {
    let (first, open) = try withPlayer(parts, speed: speed) { player, output in
        let started = now()
        try player.play(from: start)
        guard waitForQueuedSamples(output) else { throw BenchFailure(description: "no samples 5 s after play(from: \(start))") }
        return now() - started
    }
    return (first, open)
}

/// Latencies of `count` seeks at random places: within the current part, or each to another part.
func seekLatencies(
    _ parts: [String], durations: [Double], acrossParts: Bool, speed: Double, count: Int
) throws -> [Double] {
    var random = SystemRandomNumberGenerator()
    return try withPlayer(parts, speed: speed) { player, output in
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        guard waitForQueuedSamples(output) else { throw BenchFailure(description: "no samples after play") }
        sleep(seconds: 0.5)
        var part = 0
        var latencies: [Double] = []
        for _ in 0..<count {
            if acrossParts {
                part = (part + Int.random(in: 1..<parts.count, using: &random)) % parts.count
            }
            let target = PlaybackPosition(part: part, seconds: Double.random(in: 0...(durations[part] - 5), using: &random))
            let started = now()
            try player.seek(to: target)
            guard waitForQueuedSamples(output) else { throw BenchFailure(description: "no samples after seeking to \(target)") }
            latencies.append(now() - started)
            // Long enough for SDL's queue to fill and the decoder to run ahead and block, as between a patron's keys.
            sleep(seconds: Double.random(in: 0.4...0.7, using: &random))
        }
        return latencies
    }.result
}

struct CPUResult {
    var speed: Double
    var wall: Double
    var audio: Double
    var cpu: Double
}

/// CPU of this process while the player plays `seconds` of wall time, after a second of warming up.
func playingCPU(_ path: String, speed: Double, seconds: Double) throws -> CPUResult {
    try withPlayer([path], speed: speed) { player, output in
        try player.play(from: PlaybackPosition(part: 0, seconds: 0))
        guard waitForQueuedSamples(output) else { throw BenchFailure(description: "no samples after play") }
        sleep(seconds: 1)
        let position0 = player.position.seconds
        let cpu0 = cpuSeconds()
        let wall0 = now()
        sleep(seconds: seconds)
        let position1 = player.position.seconds
        let cpu1 = cpuSeconds()
        let wall1 = now()
        return CPUResult(speed: speed, wall: wall1 - wall0, audio: position1 - position0, cpu: cpu1 - cpu0)
    }.result
}

// MARK: - Main

func main() throws {
    let options = BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
    setenv("SDL_AUDIODRIVER", "dummy", 0)
    let driver = ProcessInfo.processInfo.environment["SDL_AUDIODRIVER"] ?? "dummy"
    try FileManager.default.createDirectory(atPath: options.work, withIntermediateDirectories: true)
    let long = "\(options.work)/long-600s-64k.mp3"
    let parts = (1...3).map { "\(options.work)/part-\($0)-60s-64k.mp3" }
    try makeAudio(long, seconds: 600, frequency: 220, ffmpeg: options.ffmpeg)
    for (index, part) in parts.enumerated() {
        try makeAudio(part, seconds: 60, frequency: 330 + 110 * index, ffmpeg: options.ffmpeg)
    }
    let durations = try parts.map { try AudioDecoder(path: $0).duration ?? 60 }
    let longDuration = try AudioDecoder(path: long).duration ?? 600
    print("shelf-playback-bench: \(Int(longDuration)) s file and \(parts.count) parts of 60 s, MP3 64 kbps mono 44.1 kHz; "
          + "SDL driver \(driver); \(ProcessInfo.processInfo.activeProcessorCount) cores")

    // Decode speed, ours against ffmpeg's on the same file.
    let runs = min(options.runs, 5)
    var decodes: [DecodeResult] = []
    decodes.append(try timed("ffmpeg -i FILE -f null -", runs: runs, children: true) {
        try run(options.ffmpeg, ["-hide_banner", "-loglevel", "error", "-nostdin", "-i", long, "-f", "null", "-"])
        return longDuration
    })
    decodes.append(try timed("ffmpeg … -ar 44100 -ac 2 -f null -", runs: runs, children: true) {
        try run(options.ffmpeg, ["-hide_banner", "-loglevel", "error", "-nostdin", "-i", long, "-ar", "44100", "-ac", "2", "-f", "null", "-"])
        return longDuration
    })
    decodes.append(try timed("AudioDecoder.decodeAll", runs: runs) {
        Double(try AudioDecoder(path: long).decodeAll().frames) / Double(PCM.sampleRate)
    })
    decodes.append(try timed("next() + TempoFilter 1× (player path)", runs: runs) { try decodeThroughFilter(long, speed: 1) })
    decodes.append(try timed("next() + TempoFilter 2× (WSOLA)", runs: runs) { try decodeThroughFilter(long, speed: 2) })
    let ffmpegSpeed = decodes[0].speed
    print()
    print("decode speed (\(Int(longDuration)) s file, median of \(runs))")
    print(pad("", 38) + lpad("audio_s", 9) + lpad("wall_s", 9) + lpad("cpu_s", 9) + lpad("x_realtime", 12) + lpad("vs_ffmpeg", 11))
    for result in decodes {
        print(pad(result.label, 38) + lpad(f(result.audioSeconds, 1), 9) + lpad(f(result.wall, 3), 9) + lpad(f(result.cpu, 3), 9)
              + lpad(f(result.speed, 0), 12) + lpad(f(result.speed / ffmpegSpeed, 2) + "×", 11))
    }

    // Time to first samples.
    let starts: [(String, [String], PlaybackPosition, Double)] = [
        ("start of the file, 1×", [long], PlaybackPosition(part: 0, seconds: 0), 1),
        ("300 s into the file, 1×", [long], PlaybackPosition(part: 0, seconds: 300), 1),
        ("part 2 at 30 s, 1×", parts, PlaybackPosition(part: 1, seconds: 30), 1),
        ("300 s into the file, 2×", [long], PlaybackPosition(part: 0, seconds: 300), 2),
    ]
    print()
    print("play(from:) to first samples at SDL (median and max of \(options.runs); target ≤ 200 ms)")
    print(pad("", 38) + lpad("median_ms", 11) + lpad("max_ms", 9) + lpad("open_ms", 9) + "  open = AudioOutput() before it")
    for (label, files, start, speed) in starts {
        var firsts: [Double] = []
        var opens: [Double] = []
        for _ in 0..<options.runs {
            let (first, open) = try firstSamples(files, from: start, speed: speed)
            firsts.append(first)
            opens.append(open)
        }
        print(pad(label, 38) + lpad(ms(median(firsts)), 11) + lpad(ms(firsts.max()!), 9) + lpad(ms(median(opens)), 9))
    }

    // Seek latency.
    print()
    print("seek(to:) to new samples at SDL (\(options.seeks) seeks at random places; target ≤ 50 ms)")
    print(pad("", 38) + lpad("median_ms", 11) + lpad("p90_ms", 9) + lpad("max_ms", 9))
    let seekCases: [(String, [String], [Double], Bool, Double)] = [
        ("within a part (600 s file), 1×", [long], [longDuration], false, 1),
        ("across parts (60 s parts), 1×", parts, durations, true, 1),
        ("within a part (600 s file), 2×", [long], [longDuration], false, 2),
        ("across parts (60 s parts), 2×", parts, durations, true, 2),
    ]
    for (label, files, lengths, across, speed) in seekCases {
        let latencies = try seekLatencies(
            files, durations: lengths, acrossParts: across, speed: speed, count: options.seeks).sorted()
        let p90 = latencies[min(latencies.count - 1, Int((Double(latencies.count) * 0.9).rounded(.up)) - 1)]
        print(pad(label, 38) + lpad(ms(median(latencies)), 11) + lpad(ms(p90), 9) + lpad(ms(latencies.last!), 9))
    }

    // CPU while playing.
    print()
    print("CPU while playing (\(f(options.playSeconds, 0)) s of wall time each; target ≤ 1% of a core at 1×)")
    print(pad("", 38) + lpad("wall_s", 9) + lpad("audio_s", 9) + lpad("cpu_s", 9) + lpad("cpu_ms/audio_s", 16) + lpad("%core", 8))
    for speed in [1.0, 2.0] {
        let result = try playingCPU(long, speed: speed, seconds: options.playSeconds)
        print(pad("Player at \(f(speed, 0))×", 38) + lpad(f(result.wall, 2), 9) + lpad(f(result.audio, 2), 9)
              + lpad(f(result.cpu, 3), 9) + lpad(f(result.cpu / result.audio * 1000, 2), 16)
              + lpad(f(result.cpu / result.wall * 100, 2), 8))
    }
}

func f(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
func ms(_ seconds: Double) -> String { f(seconds * 1000, 1) }
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}
func lpad(_ text: String, _ width: Int) -> String {
    text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("shelf-playback-bench: \(error)\n".utf8))
    exit(1)
}
