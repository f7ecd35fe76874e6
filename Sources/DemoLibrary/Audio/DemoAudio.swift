import Foundation
import Synchronization
import ShelfSpawn

/// One chapter's audio as ffmpeg makes it: a sine tone of a given pitch and length.
struct AudioRecipe: Hashable, Sendable {
    var frequency: Int
    var seconds: Int

    /// Bumped whenever the ffmpeg arguments change, so old cached files are not reused.
    static let version = 1

    /// Parts of a minute or more (`shelf demo`'s, for trying the player) tick once a second, an octave up, so a
    /// listener hears the time go by, and a change of speed.
    var ticks: Bool { seconds >= 60 }

    /// The cache file's name, which is the whole recipe: same name, same bytes.
    var fileName: String {
        "sine-\(frequency)hz-\(seconds)s\(ticks ? "-ticks" : "")-mono-22050-32k-v\(Self.version).mp3"
    }

    var ffmpegArguments: [String] {
        [
            "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
            "-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds):sample_rate=22050" + (ticks ? ":beep_factor=2" : ""),
            "-ac", "1", "-c:a", "libmp3lame", "-b:a", "32k",
            // No timestamps or encoder versions in the file, so every run writes the same bytes.
            "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact",
            "-f", "mp3",
        ]
    }
}

/// A generated MP3 and its running time as ffprobe measured it.
struct AudioClip: Sendable {
    let bytes: [UInt8]
    let duration: Double
}

/// Why the demo library has no audio to serve.
struct DemoAudioError: Error, CustomStringConvertible {
    let description: String
}

/// Makes the chapter audio of every demo audiobook with ffmpeg once, caching the files on disk
/// under names that spell out their recipe, so later starts (and other servers) reuse them.
actor DemoAudio {
    /// The recipes of a title's parts: a pitch per chapter, shifted per title so books differ.
    static func recipes(for id: String, partCount: Int?, partSeconds: Int? = nil) -> [AudioRecipe] {
        var hasher = FNV1a64()
        hasher.combine(id)
        let variant = Int(hasher.value % 3)
        let count = partCount ?? (2 + Int((hasher.value >> 8) % 3))
        let seconds = [3, 2, 4, 3]
        return (0..<max(1, count)).map { n in
            AudioRecipe(frequency: 220 + 110 * (n % 4) + 20 * variant, seconds: partSeconds ?? seconds[n % 4])
        }
    }

    /// Every recipe any title can use (twelve), so one start-up makes all the audio there is.
    static func allRecipes(partSeconds: Int? = nil) -> [AudioRecipe] {
        (0..<3).flatMap { variant in
            (0..<4).map { n in AudioRecipe(frequency: 220 + 110 * n + 20 * variant, seconds: partSeconds ?? [3, 2, 4, 3][n]) }
        }
    }

    let directory: URL
    let ffmpegPath: String?
    let partSeconds: Int?
    private var generation: Task<[AudioRecipe: AudioClip], any Error>?
    /// Single-file audiobooks made or being made, by recipe.
    var singleFiles: [SingleFileRecipe: Task<AudioClip, any Error>] = [:]

    init(directory: URL?, ffmpegPath: String?, partSeconds: Int? = nil) {
        self.partSeconds = partSeconds
        self.directory = directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("shelf-demo-audio", isDirectory: true)
        self.ffmpegPath = ffmpegPath
    }

    /// The clips, generated on first call (or read from the cache); later calls share the result.
    func clips() async throws -> [AudioRecipe: AudioClip] {
        if let generation { return try await generation.value }
        let directory = self.directory
        let (configured, partSeconds) = (ffmpegPath, partSeconds)
        // On the server's own threads when a server asked (an unstructured task does not inherit them).
        let task = Task(executorPreference: ThreadPoolTaskExecutor.current) { try await Self.generate(Self.allRecipes(partSeconds: partSeconds), into: directory, ffmpeg: configured) }
        generation = task
        return try await task.value
    }

    private static func generate(
        _ recipes: [AudioRecipe], into directory: URL, ffmpeg configured: String?
    ) async throws -> [AudioRecipe: AudioClip] {
        var clips: [AudioRecipe: AudioClip] = [:]
        for recipe in recipes {
            clips[recipe] = try await cached(directory.appendingPathComponent(recipe.fileName), ffmpeg: configured) { tools, scratch in
                _ = try await run(tools.ffmpeg, recipe.ffmpegArguments + [scratch.path])
            }
        }
        return clips
    }

    /// Clips being made in this process, by file. Servers started together (a test suite's dozens, on an empty
    /// cache) make each clip once and share it: each running ffmpeg for every clip kept a loaded machine's servers
    /// from answering for minutes.
    private static let making = Mutex<[String: Task<AudioClip, any Error>]>([:])

    /// The clip in `file` with its measured duration beside it, or, when not cached yet, made by `make` into a
    /// scratch file, measured with ffprobe and renamed into place (once in this process, however many ask).
    static func cached(
        _ file: URL, ffmpeg configured: String?,
        make: @Sendable @escaping ((ffmpeg: String, ffprobe: String), URL) async throws -> Void
    ) async throws -> AudioClip {
        if let clip = stored(file) { return clip }
        let task = making.withLock { tasks in
            if let task = tasks[file.path] { return task }
            let task = Task(executorPreference: ThreadPoolTaskExecutor.current) {
                try await Self.make(file, ffmpeg: configured, make: make)
            }
            tasks[file.path] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            // A failure is not kept: the next to ask tries again.
            making.withLock { tasks in tasks[file.path] = nil }
            throw error
        }
    }

    private static func stored(_ file: URL) -> AudioClip? {
        let durationFile = file.appendingPathExtension("duration")
        guard let bytes = try? Data(contentsOf: file), !bytes.isEmpty,
              let text = try? String(contentsOf: durationFile, encoding: .utf8),
              let duration = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        return AudioClip(bytes: Array(bytes), duration: duration)
    }

    private static func make(
        _ file: URL, ffmpeg configured: String?, make: @Sendable ((ffmpeg: String, ffprobe: String), URL) async throws -> Void
    ) async throws -> AudioClip {
        if let clip = stored(file) { return clip }
        let durationFile = file.appendingPathExtension("duration")
        let tools = try locateTools(configured)
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Written under a private name and renamed, so concurrent servers never read half a file.
        let scratch = directory.appendingPathComponent(".\(UUID().uuidString)-\(file.lastPathComponent)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try await make(tools, scratch)
        let probe = try await run(tools.ffprobe, [
            "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", scratch.path,
        ])
        guard let duration = Double(probe.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw DemoAudioError(description: "ffprobe gave no duration for \(file.lastPathComponent): \(probe)")
        }
        let bytes = try Data(contentsOf: scratch)
        try Data(String(duration).utf8).write(to: durationFile, options: .atomic)
        // rename(2) replaces atomically; another server may have put the same bytes there first.
        _ = rename(scratch.path, file.path)
        return AudioClip(bytes: Array(bytes), duration: duration)
    }

    private static func locateTools(_ configured: String?) throws -> (ffmpeg: String, ffprobe: String) {
        let fileManager = FileManager.default
        let ffmpeg: String?
        if let configured {
            ffmpeg = fileManager.isExecutableFile(atPath: configured) ? configured : nil
        } else {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            ffmpeg = path.split(separator: ":").map { "\($0)/ffmpeg" }.first { fileManager.isExecutableFile(atPath: $0) }
        }
        guard let ffmpeg else {
            throw DemoAudioError(description: "ffmpeg is not installed (\(configured ?? "not on PATH")); "
                + "the demo library makes its audiobook parts with it; run Scripts/setup")
        }
        let ffprobe = URL(fileURLWithPath: ffmpeg).deletingLastPathComponent().appendingPathComponent("ffprobe").path
        guard fileManager.isExecutableFile(atPath: ffprobe) else {
            throw DemoAudioError(description: "ffprobe is missing next to \(ffmpeg); run Scripts/setup")
        }
        return (ffmpeg, ffprobe)
    }

    /// Runs a tool to completion without holding a thread of the concurrency pool; returns its stdout.
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Output goes to files rather than pipes, so a chatty tool can never fill a pipe and stall.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-demo-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: DemoAudioError(description: "could not run \(executable): \(error)"))
            }
        }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw DemoAudioError(description: "\(URL(fileURLWithPath: executable).lastPathComponent) failed "
                + "(exit \(status)): \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return text
    }
}
