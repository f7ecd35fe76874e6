import Foundation
import ShelfCore
import ShelfPlayback

/// What the machine says, as pure functions of its state.
extension ListenMachine {
    func place(_ position: PlaybackPosition) -> Place {
        Place(position: position, readingOrderItem: book.parts[position.part].readingOrderItem, at: now)
    }

    func playingLine(at start: PlaybackPosition) -> String {
        "Playing \(sample ? "the sample of " : "")\(book.summary.title) at \(Clock.format(timeline.bookTime(start))) of \(Clock.format(timeline.total)), "
            + "\(Self.speedLabel(speed)) speed" + (skipsSilence ? ", skipping silence." : ".")
    }

    /// " Skipping silence saved 1:02." once it saved a second or more.
    var savedText: String {
        skipsSilence && player.silenceSaved >= 1 ? " Skipping silence saved \(Clock.format(player.silenceSaved))." : ""
    }

    func chapterLine(_ chapter: Int, at position: PlaybackPosition) -> String {
        "\(ListenScreen.chapterLabel(chapter, of: book)) at \(Clock.format(timeline.bookTime(position)))."
    }

    /// Why playing cannot go on into `part`: the download's failure, or a file gone missing after it finished.
    func unavailableText(part: Int, failure: String?) -> String {
        let id = book.summary.shortID
        let reason = failure ?? "its file is missing; run `shelf archive \(id)`, then `shelf download \(id)`"
        return "part \(part + 1) is not on this computer and cannot be downloaded now (\(reason)); the position is saved"
    }

    /// Why the book stopped before its end: its last part (and any before it skipped) could not be opened.
    func unplayableText(part: Int) -> String {
        let id = book.summary.shortID
        return "part \(part + 1) of \(book.summary.title) cannot be played: its file is damaged or not audio; "
            + "it is not marked finished (`shelf archive \(id)`, then `shelf download \(id)`, fetches it again)"
    }

    func stoppedLine(_ outcome: ListenOutcome, at here: PlaybackPosition) -> String {
        if sample {
            if outcome == .finished { return "End of the sample of \(book.summary.title)." + savedText }
            return "Stopped the sample of \(book.summary.title) at \(Clock.format(timeline.bookTime(here))) of "
                + "\(Clock.format(timeline.total))." + savedText
        }
        if outcome == .finished { return "Finished \(book.summary.title)." + savedText }
        let time = timeline.bookTime(here)
        let chapter = timeline.chapter(at: here)
        let percent = timeline.total > 0 ? Int(time / timeline.total * 100) : 0
        let listenedText = switch outcome {
        case .limitReached: "Listened for \(Clock.format(listened)); "
        case .slept: "Sleep timer: "
        default: ""
        }
        return listenedText + "Stopped at \(Clock.format(time)) of \(Clock.format(timeline.total)) (\(percent)%), "
            + "in \(ListenScreen.chapterLabel(chapter, of: book)). Position saved." + savedText
    }
}
