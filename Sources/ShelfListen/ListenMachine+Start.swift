import Foundation
import ShelfCore
import ShelfPlayback

/// Where a session begins, decided from what the store and the library say, with no I/O of its own.
extension ListenMachine {
    /// The speed to play at: the one asked for, else the book's; one the player cannot do is 1×.
    static func speed(asked: Double?, saved: Double) -> Double {
        let speed = asked ?? saved
        return TempoFilter.speeds.contains(speed) ? speed : 1.0
    }

    /// Where to begin: `--from` or `--chapter`, else the newer of this computer's position and another device's
    /// (`remote` asks the library, and is only called when that is needed); and what to say about it.
    static func startingPoint(
        options: ListenOptions, saved: ListeningState, timeline: Timeline, chapters: [Audiobook.Chapter],
        remote: () -> ListeningPosition?
    ) -> (position: PlaybackPosition, note: String?) {
        if let from = options.from { return (timeline.place(from), nil) }
        if let chapter = options.chapter {
            let entry = chapters[chapter - 1]
            return (PlaybackPosition(part: entry.part, seconds: entry.offset), nil)
        }
        var position = saved.position.flatMap(timeline.position(of:))
        var note = position.map { "Resuming at \(Clock.format(timeline.bookTime($0)))." }
        if let remote = remote(), let there = timeline.position(of: remote),
            remote.at > (saved.position?.at ?? .distantPast),
            position.map({ abs(timeline.bookTime($0) - timeline.bookTime(there)) > 1 }) ?? true
        {
            position = there
            // Palace's apps send a device URN; a device that sends a name is called by it.
            let name = remote.deviceName ?? (remote.device.hasPrefix("urn:") ? "another device" : remote.device)
            note = "Resuming at \(Clock.format(timeline.bookTime(there))) from \(name)."
        }
        guard let position else { return (PlaybackPosition(part: 0, seconds: 0), nil) }
        if saved.consumption == .finished || timeline.bookTime(position) > timeline.total - 1 {
            return (PlaybackPosition(part: 0, seconds: 0), "Starting again from the beginning.")
        }
        return (position, note)
    }
}
