import Foundation

import ShelfCore

/// OPDS dates and durations.
enum DatesFuzz {
    static func dates(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        if let date = OPDSDate.parse(text) {
            let seconds = date.timeIntervalSince1970
            require(seconds.isFinite, "\(text.debugDescription) parsed to a non-finite date")
            // Formatted (to the second) and parsed again, it is the same instant, to the second.
            let formatted = OPDSDate.format(date)
            guard let again = OPDSDate.parse(formatted) else {
                require(false, "\(text.debugDescription) parsed, but its formatted form \(formatted) does not")
                return
            }
            require(again.timeIntervalSince1970 == seconds.rounded(.down),
                    "\(text.debugDescription) → \(formatted) → \(again.timeIntervalSince1970), not \(seconds.rounded(.down))")
        }
        if let duration = OPDSDuration.parse(text) {
            require(duration.isFinite && duration >= 0, "\(text.debugDescription) parsed to the duration \(duration)")
            // `shelf show` prints every running time it keeps.
            let clock = OPDSDuration.clockString(duration)
            require(!clock.isEmpty, "the running time \(duration) prints as nothing")
        }
    }
}
