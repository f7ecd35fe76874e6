import Foundation
import ShelfCore
import ShelfPlayback

/// Commands from other programs over MPRIS (media keys, `playerctl`, desktop widgets, headset buttons), handled by
/// the same rules as the keys; and what the session publishes back to them.
extension ListenMachine {
    /// An MPRIS call or property write, in the player's terms.
    enum RemoteCommand: Equatable {
        case playPause, play, pause
        /// Pauses, saves and pushes the position, and says "Stopped" until played again: an audiobook keeps its place.
        case stop
        /// The chapter after this one, as `n`.
        case next
        /// The start of this chapter, or the one before when just started, as `p`.
        case previous
        /// Moves by this many seconds of the book (MPRIS's Seek).
        case seek(by: Double)
        /// Goes to this many seconds into the book (MPRIS's SetPosition).
        case setPosition(Double)
        /// MPRIS's Rate: the speed, kept within what the player does (0.5× to 4×, in steps of 0.05).
        case setRate(Double)
        /// MPRIS's Volume, 0 to 1.
        case setVolume(Double)
        /// Ends the session as `q` does.
        case quit
    }

    /// What MPRIS reports, refreshed by the session each turn; signals go out for what changed.
    struct RemoteState: Equatable {
        /// "Playing", "Paused" or "Stopped".
        var status: String
        var rate: Double
        var volume: Double
        /// The chapter playing, for the metadata.
        var chapter: Int
        var chapterTitle: String
        /// The book's length in seconds.
        var length: Double
    }

    var remoteState: RemoteState {
        let status = switch player.state {
        case .playing, .buffering: "Playing"
        case .paused: remoteStopped ? "Stopped" : "Paused"
        case .finished, .stopped: "Stopped"
        }
        let chapter = max(0, timeline.chapter(at: player.position))
        return RemoteState(
            status: status, rate: speed, volume: muted ? 0 : volume, chapter: chapter,
            chapterTitle: book.chapters.indices.contains(chapter) ? book.chapters[chapter].title : book.summary.title,
            length: timeline.total)
    }

    mutating func handle(_ command: RemoteCommand) -> [Effect] {
        let here = player.position
        switch command {
        case .playPause:
            return togglePause()
        case .play:
            guard player.state != .playing && player.state != .buffering else { return [] }
            return togglePause()
        case .pause:
            guard player.state == .playing || player.state == .buffering else { return [] }
            return togglePause()
        case .stop:
            let effects = player.state == .playing || player.state == .buffering ? togglePause() : save(force: true)
            remoteStopped = true
            return effects
        case .next:
            return jump(toChapter: timeline.chapter(at: here) + 1)
        case .previous:
            let chapter = timeline.chapter(at: here)
            let into = timeline.bookTime(here) - timeline.chapterStart(chapter)
            return jump(toChapter: into > 3 ? chapter : chapter - 1)
        case .seek(let seconds):
            guard seconds.isFinite else { return [] }
            return skip(by: seconds)
        case .setPosition(let seconds):
            // MPRIS: a position outside the track is ignored.
            guard seconds.isFinite, seconds >= 0, seconds <= timeline.total else { return [] }
            return skip(by: seconds - timeline.bookTime(here))
        case .setRate(let rate):
            guard rate.isFinite, rate > 0 else { return [] }
            let wanted = min(TempoFilter.speeds.upperBound, max(TempoFilter.speeds.lowerBound, rate))
            return changeSpeed(by: wanted - speed)
        case .setVolume(let volume):
            return setRemoteVolume(volume)
        case .quit:
            return end(.quit)
        }
    }
}
