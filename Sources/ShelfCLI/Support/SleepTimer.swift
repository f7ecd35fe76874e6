import Foundation
import ShelfCore

/// The sleep timer: a number of seconds of playing left (they run only while playing), or the end of a chapter (by
/// index: the end of the chapter playing, or of one a few chapters on). Here, beside `shelf listen`'s arguments, so
/// that their check and the player read `--sleep` with one parser.
package enum SleepTimer: Equatable {
    case seconds(Double)
    case endOfChapter(Int)

    /// What the patron asks for, before the chapter playing is known.
    package enum Request: Equatable {
        case seconds(Double)
        /// The end of this many chapters, the one playing the first.
        case chapters(Int)
    }

    /// What `s` and `--sleep` take: minutes ("20", "1.5"), a length ("1h", "45m", "90s", "1:30:00"), "c" or
    /// "chapter" for the end of this chapter, "2c" or "2 chapters" for two; "off" and "0" turn the timer off (nil).
    /// Empty is the end of this chapter. Throws nothing: a text that is none of these is `.invalid`.
    package enum Answer: Equatable {
        case set(Request)
        case off
        case invalid
    }

    package static func parse(_ text: String) -> Answer {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if text.isEmpty || ["c", "chapter", "end of chapter"].contains(text) { return .set(.chapters(1)) }
        if ["off", "0", "no"].contains(text) { return .off }
        for suffix in [" chapters", "chapters", " chapter", "chapter", "c"] where text.hasSuffix(suffix) {
            guard let count = Int(text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), count > 0 else {
                return .invalid
            }
            return .set(.chapters(count))
        }
        if text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            guard let minutes = Double(text), minutes.isFinite, minutes > 0 else { return .invalid }
            return .set(.seconds(minutes * 60))
        }
        guard let seconds = Clock.parse(text), seconds > 0 else { return .invalid }
        return .set(.seconds(seconds))
    }
}
