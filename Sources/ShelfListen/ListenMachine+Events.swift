import Foundation
import ShelfCore
import ShelfPlayback

/// What goes into the machine and what comes out.
extension ListenMachine {
    /// What the player reports, read by the shell just before the event that carries it.
    struct Snapshot: Equatable {
        var now: Date
        /// What has been heard.
        var position: PlaybackPosition
        var state: Player.State
        /// The part the player waits for while its file downloads.
        var bufferingPart: Int?
        /// The parts whose files could not be opened at all.
        var unopenable: Set<Int> = []
        /// The part the player needs (the one it waits for, else the one it plays) when its file is not on disk.
        var missing: Int?
        /// With `missing`: no part of the title is on disk (its files were removed).
        var noneOnDisk = false
        /// Seconds of listening skipping silence has saved this session.
        var silenceSaved = 0.0
    }

    /// Something that happened to the session.
    enum Event {
        /// The player started at `position`; `note` says why there (resuming, another device's position…).
        case started(at: PlaybackPosition, speed: Double, note: String?, Snapshot)
        /// A key, with the parts whose files are on disk (the contents refuses a chapter in any other).
        case key(Key, Snapshot, onDisk: Set<Int>)
        /// About ten times a second: time passes, the player moves on.
        case tick(Snapshot)
        /// A command from another program over MPRIS (media keys, playerctl, a desktop widget).
        case remote(RemoteCommand, Snapshot)
        /// The audio device went away (reported until a new one opens).
        case deviceLost(Snapshot)
        /// An interrupt, terminate or hang-up signal.
        case signal(Int32, Snapshot)
        /// The terminal closed under the player.
        case terminalGone(Snapshot)
        /// The window changed size.
        case resized
        /// Parts the player could not play and skipped.
        case problems([String])
        /// One-line warnings from the library's annotation service.
        case warnings([String])
        /// Part lengths measured from the files (a zero: the file could not say).
        case measured([Int: Double])
        /// The book re-read while its parts download, with the lengths of those that arrived.
        case partsArrived(Audiobook, lengths: [Int: Double], complete: Bool)
        /// The background download ended; `failure` says why it stopped short.
        case downloadEnded(failure: String?)
        /// The download gave up on one part (others may still download).
        case partFailed(Int, reason: String)
        /// The store took a position.
        case saved(PlaybackPosition)
        /// The store refused a position.
        case saveFailed(String)
        /// An effect failed; the rest of its batch was not carried out.
        case failed(String)
        /// A new audio device opened and plays.
        case deviceReopened
        /// A new audio device could not be opened.
        case deviceFailed(String)
        /// The title's bookmarks as the store has them, in book order (answers `readBookmarks`).
        case bookmarksRead([Bookmark])
        /// Another device's newer place waiting for an answer (an open offer), pulled while playing (answers
        /// `pullRemote` when there is one) or found at the start.
        case remotePosition(ListeningPosition)
    }

    /// A place in the book as the store and the library name it.
    struct Place: Equatable {
        var position: PlaybackPosition
        var readingOrderItem: String
        var at: Date
    }

    /// Something the shell is to do, in order.
    enum Effect: Equatable {
        /// Save the heard position, answered by `saved` or `saveFailed`.
        case savePosition(Place, percent: Double?, finished: Bool)
        case saveSpeed(Double)
        /// Add a bookmark, named or not.
        case addBookmark(Place, name: String?)
        /// Give the terminal back and stop the process (Ctrl-Z) until the shell's `fg`; then take the screen again.
        case suspend
        /// Send queued positions and bookmarks to the library in the background.
        case push
        case seek(PlaybackPosition)
        case play
        case pause
        case setSpeed(Double)
        case setVolume(Double)
        /// Skip silence or not, and keep the choice for the next session.
        case setSkipSilence(Bool)
        /// Open the audio device again and play from `at`; answered by `deviceReopened` or `deviceFailed`.
        case reopenDevice(at: PlaybackPosition, speed: Double)
        /// Re-read the book for download progress and parts that arrived; answered by `partsArrived`.
        case refreshBook
        /// Have the download fetch these parts (indices) before the others.
        case fetchFirst([Int])
        /// A line on standard output.
        case line(String)
        /// A line on standard error.
        case errorLine(String)
        /// Draw the screen at the end of this turn of the loop.
        case redraw
        case stopPlayer
        case restoreTerminal
        /// Push queued positions, waiting up to `seconds`; then the warnings that came are handed back.
        case pushAndWait(seconds: Double)
        /// The session is over.
        case end(ListenOutcome)
        /// Read the title's bookmarks from the store; answered by `bookmarksRead`.
        case readBookmarks
        /// Delete a bookmark (the library's copy is DELETEd with the next push).
        case deleteBookmark(Int64)
        /// Ask the library for other devices' positions in the background; answered by `remotePosition`.
        case pullRemote
        /// The patron answered other devices' positions saved up to this time (went there, stayed, or moved on):
        /// this computer's position may be pushed over them.
        case settleOffer(Date)
    }

    enum Mode: Equatable {
        case player, contents, help, bookmarks
        /// A one-line question on the message line, answered by typing.
        case prompt(Prompt)
    }

    /// A line on the screen until `until`.
    struct Message: Equatable {
        var text: String
        var until: Date
    }

    /// The download of the title's missing parts.
    enum Download: Equatable {
        case running
        case ended(failure: String?)
    }

    static func speedLabel(_ speed: Double) -> String { Clock.speed(speed) }
}
