import Foundation
import ShelfCore
import Synchronization

/// The seconds of the clock heard while playing, per UTC minute (minutes since 1970), since they were last taken.
struct HeardTime {
    /// The longest step counted at once: a longer gap between two turns of the loop (the computer asleep) is not
    /// listening.
    static let longestStep: Double = 5
    private var last: Date?
    private(set) var minutes: [Int: Double] = [:]

    /// Counts the time since the last call when the player was playing through it, split at minute boundaries.
    mutating func advance(to now: Date, playing: Bool) {
        defer { last = now }
        guard playing, let last, now > last else { return }
        var from = max(last, now.addingTimeInterval(-Self.longestStep))
        while from < now {
            let minute = PlaytimeReporter.minute(of: from)
            let end = min(now, Date(timeIntervalSince1970: Double(minute + 1) * 60))
            minutes[minute, default: 0] += end.timeIntervalSince(from)
            from = end
        }
    }

    /// What was counted since the last take.
    mutating func take() -> [Int: Double] {
        defer { minutes = [:] }
        return minutes
    }
}

/// The library's playtime reporter, on a thread of its own, one push at a time.
final class PlaytimeChannel: Sendable {
    private let reporter: Mutex<PlaytimeReporter>
    private let warnings = Mutex<[String]>([])
    private let running = Mutex(false)

    init(_ reporter: PlaytimeReporter) { self.reporter = Mutex(reporter) }

    /// Posts the minutes that are over, in the background, unless a push is under way.
    func push() { _ = pushInBackground() }

    /// Posts the minutes that are over on a thread of its own; nil when a push is under way already.
    func pushInBackground() -> Background<Void>? {
        let start = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard start else { return nil }
        return Background { [self] in
            let report = reporter.withLock { $0.pushPending() }
            warnings.withLock { $0 += report.warnings }
            running.withLock { $0 = false }
        }
    }

    /// The warnings since the last call.
    func takeWarnings() -> [String] {
        warnings.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
