import Foundation

/// Running times as catalogs write them: seconds (`36914.0`, Palace's `dcterms:duration`), an ISO 8601 duration
/// (`PT10H2M`, `P1DT2H`, `PT1H30M15.5S`) or a clock time (`10:02:00`).
public enum OPDSDuration {
    /// The duration in seconds; nil for anything else, a negative or a non-finite value.
    public static func parse(_ text: String) -> Double? {
        let text = text.trimmingWhitespace()
        guard let first = text.first else { return nil }
        let seconds: Double?
        if first == "P" || first == "p" {
            seconds = iso8601(text.uppercased())
        } else if text.contains(":") {
            seconds = clock(text)
        } else {
            seconds = Double(text)
        }
        return seconds.flatMap(Self.seconds)
    }

    /// The longest running time taken from a document: 1,000 hours. Longer ones are nonsense that would overflow
    /// the whole seconds `clockString` prints (a feed's `1e300` stopped `shelf show`).
    public static let maxSeconds = 3_600_000.0

    /// A number of seconds as a running time: nil for a negative, non-finite or over-long one.
    public static func seconds(_ value: Double) -> Double? {
        value.isFinite && value >= 0 && value <= maxSeconds ? value : nil
    }

    /// `P[nW][nD][T[nH][nM][nS]]`; years and months have no fixed length, so a duration using them is refused.
    private static func iso8601(_ text: String) -> Double? {
        var total = 0.0
        var number = ""
        var inTime = false
        var sawUnit = false
        for character in text.dropFirst() {
            switch character {
            case "0"..."9", ".", ",":
                number.append(character == "," ? "." : character)
            case "T":
                guard number.isEmpty, !inTime else { return nil }
                inTime = true
            default:
                guard let value = Double(number) else { return nil }
                let unit: Double
                switch (character, inTime) {
                case ("W", false): unit = 604_800
                case ("D", false): unit = 86_400
                case ("H", true): unit = 3_600
                case ("M", true): unit = 60
                case ("S", true): unit = 1
                default: return nil
                }
                total += value * unit
                number = ""
                sawUnit = true
            }
        }
        return sawUnit && number.isEmpty ? total : nil
    }

    /// `h:mm:ss` or `mm:ss`.
    private static func clock(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.reduce(0.0) { $0 * 60 + $1! }
    }

    /// `10:02:00`, `0:45:09`: how `shelf show` prints a running time.
    public static func clockString(_ seconds: Double) -> String {
        // A value stored before durations were bounded prints as the bound, not as a trap.
        let whole = Int(seconds.isFinite ? min(max(seconds, 0), maxSeconds).rounded() : 0)
        return String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
    }
}
