import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// What `shelf listen` was asked to do.
struct ListenOptions {
    /// Where to start, in seconds of the book; nil resumes.
    var from: Double?
    /// The chapter to start at, from 1.
    var chapter: Int?
    var speed: Double?
    /// The full-screen player; false prints one line per chapter and at the end.
    var screen: Bool
    /// Stop after this much listening (seconds of playing, pauses not counted).
    var limit: Double?
    /// A sleep timer set from the start (`--sleep 30m`, `--sleep chapter`, `--sleep 2c`).
    var sleep: SleepTimer.Request?
    /// What ←/→ skip, in seconds (`--skip`, kept for next time).
    var skip: Double = ListenOptions.defaultSkip
    /// How far back to go on playing after a pause (`--rewind`, kept).
    var rewind: Rewind = .auto
    /// Shorten long pauses in the recording (`--skip-silence`, kept; `S`).
    var skipSilence = false
    /// Even out the loudness (`--normalize`, kept).
    var normalize = false
    /// The volume to start at, 0 to 2 (`--volume`, in percent; not kept).
    var volume = 1.0
    /// Play the title's sample (`--sample`): no loan, nothing kept but the fact it was heard.
    var sample = false
    /// Draw the cover beside the player (`--no-cover` turns it off).
    var cover = true
    var log: (@Sendable (String) -> Void)?
}

/// How a listening session ended.
enum ListenOutcome: Equatable {
    case quit, finished, limitReached
    /// The sleep timer ran out with no screen, so no key could play again.
    case slept
    /// An interrupt, terminate or hang-up signal.
    case signal(Int32)
    /// The terminal closed under the player.
    case terminalGone
    /// The audio device went away with no screen to say so and no key to resume.
    case deviceLost
    /// The next part is not on disk and cannot be downloaded now.
    case partUnavailable(ShelfExit)
    /// The title's files were removed while it played (archived or returned).
    case filesRemoved

    var exitCode: Int32 {
        switch self {
        case .quit, .finished, .limitReached, .slept, .filesRemoved: 0
        case .signal(let number): 128 + number
        case .terminalGone: 128 + SIGHUP
        case .deviceLost: ShelfExit.audioDevice.rawValue
        case .partUnavailable(let code): code.rawValue
        }
    }
}

/// Why `shelf listen` cannot play a title.
enum ListenError: ShelfFailure {
    case notAudiobook(title: String)
    case notDownloaded(title: String, id: String, reason: String)
    case playback(PlaybackError)
    case alreadyPlaying(pid: Int32?)

    var exitCode: ShelfExit {
        switch self {
        case .alreadyPlaying: .busy
        case .notAudiobook: .notAllowed
        case .notDownloaded: .offline
        case .playback(.noAudioDevice): .audioDevice
        // A broken installation, as when shelf-listen itself is missing.
        case .playback(.libraryMissing): .internalError
        case .playback: .playbackFailed
        }
    }

    var description: String {
        switch self {
        case .notAudiobook(let title): "\(title) is not an audiobook; shelf only plays audiobooks"
        case .notDownloaded(let title, let id, let reason):
            "\(title) is not downloaded and cannot be fetched now (\(reason)); connect and run `shelf download \(id)`"
        case .playback(let error): error.description
        case .alreadyPlaying(let pid):
            "this title is already playing in another shelf listen" + (pid.map { " (pid \($0))" } ?? "") + "; quit that one first"
        }
    }
}
