import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// Where a session begins, decided from what the store and the library say, with no I/O of its own.
extension ListenMachine {
    /// The speed to play at: the one asked for, else the book's; one the player cannot do is 1×.
    static func speed(asked: Double?, saved: Double) -> Double {
        let speed = asked ?? saved
        return TempoFilter.speeds.contains(speed) ? speed : 1.0
    }

    /// Where a session begins and what to say about it; `taken` is when the other device's place it begins at was
    /// saved (the offer is answered), `offer` another device's place still waiting for an answer.
    struct Start {
        var position: PlaybackPosition
        var note: String?
        var taken: Date?
        var offer: ListeningPosition?
        /// When the place resumed was saved; nil for a place asked for (`--from`, `--chapter`) or the beginning.
        var since: Date?
    }

    /// Where to begin: `--from` or `--chapter`, else this computer's position, or another device's newer place waiting
    /// for an answer (`remote` asks the library, and is only called when that is needed) when it was saved after this
    /// computer's; an older one (this computer played on after it was offered) is offered again. A place resumed is
    /// gone back from by `options.rewind` for the time since it was saved (as of `now`).
    static func startingPoint(
        options: ListenOptions, saved: ListeningState, timeline: Timeline, chapters: [Audiobook.Chapter],
        now: Date = Date(), remote: () -> ListeningPosition?
    ) -> Start {
        var start = resumePoint(options: options, saved: saved, timeline: timeline, chapters: chapters, remote: remote)
        guard let since = start.since else { return start }
        let away = now.timeIntervalSince(since)
        let here = timeline.bookTime(start.position)
        let target = max(0, here - options.rewind.seconds(after: away))
        guard here - target >= 0.5 else { return start }
        start.position = timeline.place(target)
        start.note = (start.note.map { $0 + " " } ?? "")
            + "Back \(Int((here - target).rounded())) s after \(Rewind.pauseLabel(away)): from \(Clock.format(target))."
        return start
    }

    private static func resumePoint(
        options: ListenOptions, saved: ListeningState, timeline: Timeline, chapters: [Audiobook.Chapter],
        remote: () -> ListeningPosition?
    ) -> Start {
        if let from = options.from { return Start(position: timeline.place(from)) }
        if let chapter = options.chapter {
            // `--chapter 1` is Chapter 1, not the opening credits before it.
            let numbers = ChapterNumbers(titles: chapters.map(\.title))
            let entry = chapters[numbers.entry(numbered: chapter) ?? min(chapters.count - 1, chapter - 1)]
            return Start(position: PlaybackPosition(part: entry.part, seconds: entry.offset))
        }
        var position = saved.position.flatMap(timeline.position(of:))
        var note = position.map { "Resuming at \(Clock.format(timeline.bookTime($0)))." }
        var taken: Date?
        var offer: ListeningPosition?
        var since = saved.position?.at
        if let remote = remote(), let there = timeline.position(of: remote) {
            if remote.at > (saved.position?.at ?? .distantPast) {
                taken = remote.at
                if position.map({ abs(timeline.bookTime($0) - timeline.bookTime(there)) > 1 }) ?? true {
                    position = there
                    since = remote.at
                    // Palace's apps send a device URN; a device that sends a name is called by it.
                    let name = remote.deviceName ?? (remote.device.hasPrefix("urn:") ? "another device" : remote.device)
                    note = "Resuming at \(Clock.format(timeline.bookTime(there))) from \(name)."
                }
            } else {
                offer = remote
            }
        }
        guard let position else { return Start(position: PlaybackPosition(part: 0, seconds: 0), taken: taken, offer: offer) }
        if saved.consumption == .finished || timeline.bookTime(position) > timeline.total - 1 {
            return Start(position: PlaybackPosition(part: 0, seconds: 0), note: "Starting again from the beginning.",
                         taken: taken, offer: offer)
        }
        return Start(position: position, note: note, taken: taken, offer: offer, since: since)
    }
}
