import Foundation

/// Durations as a listener reads and types them: "1:02:03", "2:03", "90s", "10m", "1h".
public enum Clock {
    /// A playback speed as the player shows it: `1.25×`, `2.0×`.
    public static func speed(_ speed: Double) -> String {
        var text = String(format: "%.2f", speed)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text += "0" }
        return text + "×"
    }

    /// "just now", "3 minutes ago", "2 days ago": how long before `now` a date was.
    public static func relative(_ date: Date, now: Date = Date()) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        if seconds < 0 { return "in the future" }
        func unit(_ count: Int, _ name: String) -> String { "\(count) \(name)\(count == 1 ? "" : "s") ago" }
        switch seconds {
        case ..<60: return "just now"
        case ..<3_600: return unit(seconds / 60, "minute")
        case ..<86_400: return unit(seconds / 3_600, "hour")
        default: return unit(seconds / 86_400, "day")
        }
    }

    /// "1:02:03" from an hour on, "2:03" below it; whole seconds, rounded down; negative is 0:00. The one rule for
    /// every time shelf shows: a time a millisecond short of a second (a position stored in milliseconds, a sum of
    /// part lengths) is that second, so 2:10 in the player is 2:10 in `shelf bookmarks`.
    public static func format(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int((seconds + 0.001).rounded(.down))) : 0
        let (hours, minutes, rest) = (total / 3_600, total / 60 % 60, total % 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }

    /// Seconds from "1:02:30", "2:30", "90", "90s", "10m", "1h", "1h30m" or "1.5h"; nil for anything else.
    public static func parse(_ text: String) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty else { return nil }
        if text.contains(":") {
            let fields = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(fields.count) else { return nil }
            var seconds = 0.0
            for (index, field) in fields.enumerated() {
                // Only the seconds may have a fraction; minutes and seconds after the first field stay below 60.
                guard let value = number(field), index == fields.count - 1 || !field.contains("."),
                    index == 0 || value < 60
                else { return nil }
                seconds = seconds * 60 + value
            }
            return seconds
        }
        if let plain = number(Substring(text)) { return plain }
        // A run of number-and-unit pairs: "1h30m", "90s".
        var seconds = 0.0
        var digits = ""
        var units = Set<Character>()
        for character in text {
            if character.isNumber || character == "." {
                digits.append(character)
                continue
            }
            let scale: Double
            switch character {
            case "h": scale = 3_600
            case "m": scale = 60
            case "s": scale = 1
            default: return nil
            }
            guard let value = number(Substring(digits)), units.insert(character).inserted else { return nil }
            seconds += value * scale
            digits = ""
        }
        return digits.isEmpty ? seconds : nil
    }

    private static func number(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(text), value.isFinite, value >= 0
        else { return nil }
        return value
    }
}
