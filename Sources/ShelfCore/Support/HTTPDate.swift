import Foundation

/// HTTP dates (RFC 9110 §5.6.7) read by hand: `Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete
/// `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`. No DateFormatter: ICU keeps every
/// zone name it was shown, and a header is whatever a server sends.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date a header value names, or nil when it is none of the three forms.
    /// `now` places a two-digit year: more than 50 years ahead means the century before.
    public static func parse(_ value: String, now: Date = Date()) -> Date? {
        let fields = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        switch fields.count {
        case 6 where fields[5].uppercased() == "GMT" || fields[5].uppercased() == "UTC":
            // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT".
            guard fields[0].hasSuffix(","), let day = number(fields[1], digits: 1...2), let month = month(fields[2]),
                  let year = number(fields[3], digits: 4...4)
            else { return nil }
            return date(year: year, month: month, day: day, time: fields[4])
        case 4 where fields[3].uppercased() == "GMT" || fields[3].uppercased() == "UTC":
            // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT".
            guard fields[0].hasSuffix(",") else { return nil }
            let parts = fields[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let day = number(parts[0], digits: 1...2), let month = month(parts[1]),
                  let short = number(parts[2], digits: 2...2)
            else { return nil }
            let thisYear = 1970 + Int((now.timeIntervalSince1970 / 31_556_952).rounded(.down))
            var year = thisYear - thisYear % 100 + short
            if year > thisYear + 50 { year -= 100 }
            return date(year: year, month: month, day: day, time: fields[2])
        case 5:
            // asctime: "Sun" "Nov" "6" "08:49:37" "1994".
            guard let month = month(fields[1]), let day = number(fields[2], digits: 1...2),
                  let year = number(fields[4], digits: 4...4)
            else { return nil }
            return date(year: year, month: month, day: day, time: fields[3])
        default:
            return nil
        }
    }

    private static func number(_ text: String, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }

    private static func month(_ text: String) -> Int? {
        months.firstIndex(of: text.lowercased()).map { $0 + 1 }
    }

    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let hour = number(parts[0], digits: 2...2), let minute = number(parts[1], digits: 2...2),
              let second = number(parts[2], digits: 2...2), hour < 24, minute < 60, second <= 60
        else { return nil }
        let lengths = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...lengths[month - 1]).contains(day) else { return nil }
        let days = CivilDays.days(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }
}
