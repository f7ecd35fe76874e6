import ArgumentParser
import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// The player: `shelf listen` runs it in shelf's own process, and `shelf-listen` is the same player as a program of
/// its own (which `shelf export` and `shelf doctor` hand over to). FFmpeg and SDL are opened only when it plays.
public struct ListenCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelf-listen",
        abstract: "Play an audiobook in the terminal, from where you stopped (run as `shelf listen`).",
        discussion: ListenArguments.discussion,
        version: ShelfVersion.current)

    @OptionGroup var arguments: ListenArguments

    public init() {}

    public func run() throws {
        let arguments = self.arguments
        try withFailureHandling {
            // Connecting to a sound server takes a while: the store, the book and the library's positions are
            // read meanwhile. The device itself opens with the first decoded samples.
            let audio = Background { try AudioOutput.prepare() }
            let (store, library, edition) = try arguments.global.openEdition(arguments.id)
            let options = ListenOptions(
                // A sample starts at its beginning unless asked otherwise: the book's own place is not the sample's.
                from: arguments.from.flatMap(Clock.parse) ?? (arguments.sample && arguments.chapter == nil ? 0 : nil),
                chapter: arguments.chapter, speed: arguments.speed,
                screen: !arguments.noUI && Terminal.isInteractive, limit: arguments.limit.flatMap(Clock.parse),
                sleep: arguments.sleep.flatMap { text in
                    if case .set(let request) = SleepTimer.parse(text) { return request }
                    return nil
                },
                skip: try ListenOptions.skip(asked: arguments.skip.flatMap(Clock.parse), store: store),
                rewind: (try? Rewind.chosen(asked: arguments.rewind.flatMap(Rewind.init), store: store)) ?? .auto,
                skipSilence: ListenOptions.switched(
                    ListenOptions.skipSilenceSetting, asked: arguments.skipSilence, store: store),
                normalize: ListenOptions.switched(ListenOptions.normalizeSetting, asked: arguments.normalize, store: store),
                volume: Double(arguments.volume ?? 100) / 100, sample: arguments.sample, cover: !arguments.noCover,
                log: arguments.global.logger)
            let session = try ListenSession(
                store: store, library: library, home: arguments.global.resolvedHome,
                configuration: arguments.global.httpConfiguration, edition: edition, options: options)
            // FFmpeg and SDL have been loading meanwhile (PlaybackLibraries.preload): a broken installation is
            // one line now, not a "damaged" file for every part.
            do { try PlaybackLibraries.require() } catch let error as PlaybackError { throw ListenError.playback(error) }
            if let chapter = arguments.chapter, chapter > session.chapterCount {
                throw ValidationError("--chapter \(chapter) is past the last chapter of \(session.title) (it has \(session.chapterCount))")
            }
            // Past the end would mark the book finished and send the end to the library.
            if let from = arguments.from, let seconds = options.from, seconds >= session.length {
                throw ValidationError("--from \(from) is past the end of \(session.title) (\(Clock.format(session.length)))")
            }
            let outcome = try session.run(audio: audio)
            if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
        }
    }
}

/// The entry points: `Sources/shelf-listen/main.swift` calls `main()`, and `Sources/shelf/main.swift` calls
/// `runListen` for `shelf listen`.
public enum ListenProgram {
    public static func main() {
        ProcessSetUp.apply()
        // `shelf export` hands over as `shelf-listen --export ARGS`; anything else is the player, as always.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == ExportArguments.programFlag {
            ExportCommand.main(Array(arguments.dropFirst()))
        } else if arguments == [AudioProbe.programFlag] {
            exit(AudioProbe.run())
        } else {
            play(arguments)
        }
    }

    /// Whether `shelf`'s command line (program name first) is `shelf listen …` to be played at once: not asking
    /// for help or the version, which shelf's own `listen` command answers.
    public static func isPlayerInvocation(_ commandLine: [String]) -> Bool {
        guard commandLine.count > 1, commandLine[1] == "listen" else { return false }
        return !commandLine.dropFirst(2).contains { ["-h", "--help", "-help", "--version"].contains($0) }
    }

    /// Lets downloads in this process read the cover inside a book's audio file (FFmpeg is opened only then).
    public static func readEmbeddedCovers() {
        Cover.embeddedPicture.withLock { $0 = { file in (try? EmbeddedPicture.read(file)) ?? nil } }
    }

    /// `shelf listen ARGUMENTS` in `shelf`'s own process; exits with the player's status.
    public static func runListen(_ arguments: [String]) -> Never {
        ProcessSetUp.apply()
        play(arguments)
    }

    /// The player, FFmpeg and SDL loading meanwhile; ends the process.
    private static func play(_ arguments: [String]) -> Never {
        PlaybackLibraries.preload()
        ListenCommand.runAsShelfListen(arguments)
        finish()
    }

    /// Ends the process after the player finished well, its position saved and sent: standard output and error
    /// flushed, then `_exit`, so that the hundred-odd libraries FFmpeg brings do not run their exit-time
    /// destructors (which touch 2.3 MB of their pages only to quit). Nothing of shelf's own waits for exit: the
    /// stores commit as they go, and the screen is restored before the player returns.
    private static func finish() -> Never {
        fflush(nil)
        _exit(0)
    }
}

extension ListenCommand {
    /// `main()`, except that a usage error names `shelf listen`, the command the patron typed, in one line (exit
    /// 64), rather than this program's own name and usage.
    static func runAsShelfListen(_ arguments: [String]) {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            let message = "shelf listen: \(message(for: error))"
            Output.error(message)
            if FailureReport.jsonRequested() { FailureReport.printObject(message, exit: ShelfExit.usage.rawValue) }
            Foundation.exit(ShelfExit.usage.rawValue)
        }
    }
}

/// `shelf-listen --probe-audio`, for `shelf doctor`: opens the audio device SDL would play on and closes it again.
/// Prints `ok` or why it failed on standard output; exits 0, or 87 (no audio device).
enum AudioProbe {
    static let programFlag = "--probe-audio"

    static func run() -> Int32 {
        do {
            _ = try ListenSession.openOutput()
            print("ok")
            return 0
        } catch {
            print("\(error)")
            return ShelfExit.audioDevice.rawValue
        }
    }
}
