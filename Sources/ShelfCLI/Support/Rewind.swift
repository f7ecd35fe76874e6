import Foundation
import ShelfCore

/// How far back the player goes when it plays on after a pause (`--rewind`, kept for the patron): after a long
/// pause the listener has lost the thread. Here, beside `shelf listen`'s arguments, so that their check and the
/// player read `--rewind` with one parser.
package enum Rewind: Equatable {
    /// Audiobookshelf's rule, the default: nothing after a pause under 3 s, 10 s under 5 minutes, 20 s under 30
    /// minutes, else 30 s.
    case auto
    case off
    /// This much after any pause of 3 s or more.
    case seconds(Double)

    /// Where `--rewind` is kept (the positions database's `setting` table).
    package static let setting = "listen.rewind"

    /// "auto", "off", or a length (10s, 1m).
    package init?(_ text: String) {
        switch text.lowercased() {
        case "auto": self = .auto
        case "off", "0", "none": self = .off
        default:
            guard let seconds = Clock.parse(text) else { return nil }
            self = seconds > 0 ? .seconds(seconds) : .off
        }
    }

    /// As `--rewind` takes it, to be kept.
    package var text: String {
        switch self {
        case .auto: "auto"
        case .off: "off"
        case .seconds(let seconds): "\(Int(seconds.rounded()))s"
        }
    }

    /// Seconds to go back after a pause of `paused` seconds.
    package func seconds(after paused: Double) -> Double {
        guard paused >= 3 else { return 0 }
        switch self {
        case .off: return 0
        case .seconds(let seconds): return seconds
        case .auto:
            if paused < 5 * 60 { return 10 }
            if paused < 30 * 60 { return 20 }
            return 30
        }
    }

    /// What was asked now (kept for the next time), else what was kept, else `auto`.
    package static func chosen(asked: Rewind?, store: Store) throws -> Rewind {
        if let asked {
            try store.setSetting(setting, to: asked.text)
            return asked
        }
        return try store.setting(setting).flatMap(Rewind.init) ?? .auto
    }

    /// "a 12-minute pause", "2 days away": the pause as the line that says why the player went back names it.
    package static func pauseLabel(_ seconds: Double) -> String {
        let minutes = Int(seconds / 60)
        if seconds < 60 { return "a \(Int(seconds))-second pause" }
        if minutes < 60 { return "a \(minutes)-minute pause" }
        let hours = minutes / 60
        if hours < 24 { return hours == 1 ? "an hour's pause" : "\(hours) hours away" }
        let days = hours / 24
        return days == 1 ? "a day away" : "\(days) days away"
    }
}
