import Foundation

/// Date formats the server writes and reads, done by hand: the feeds format hundreds of thousands
/// of dates, and Foundation's formatters are neither cheap nor `Sendable`.
enum DemoDates {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `2024-03-01T12:00:00Z`
    static func iso8601(_ date: Date) -> String {
        let c = civil(date)
        return "\(pad(c.year, 4))-\(pad(c.month))-\(pad(c.day))T\(pad(c.hour)):\(pad(c.minute)):\(pad(c.second))Z"
    }

    /// `Fri, 01 Mar 2024 12:00:00 GMT` (RFC 9110 IMF-fixdate).
    static func http(_ date: Date) -> String {
        let c = civil(date)
        return "\(weekdays[c.weekday]), \(pad(c.day)) \(months[c.month - 1]) \(pad(c.year, 4)) "
            + "\(pad(c.hour)):\(pad(c.minute)):\(pad(c.second)) GMT"
    }

    /// Parses an IMF-fixdate; other legacy forms are answered as if absent, as RFC 9110 allows.
    static func parseHTTP(_ string: String) -> Date? {
        let parts = string.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT",
              let day = Int(parts[1]),
              let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + time[0] * 3_600 + time[1] * 60 + time[2]))
    }

    /// Parses `2024-03-01T12:00:00Z` (what `iso8601(_:)` writes).
    static func parseISO8601(_ string: String) -> Date? {
        let digits = string.utf8.map { Int($0) - 48 }
        guard string.utf8.count == 20, string.hasSuffix("Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard (0...9).contains(digits[i]) else { return nil }
                value = value * 10 + digits[i]
            }
            return value
        }
        guard let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10),
              let h = number(11..<13), let mi = number(14..<16), let s = number(17..<19)
        else { return nil }
        let days = daysFromCivil(year: y, month: mo, day: d)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + h * 3_600 + mi * 60 + s))
    }

    /// Drops sub-second precision, since HTTP dates carry whole seconds only.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    private static func pad(_ value: Int, _ width: Int = 2) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private struct Civil { var year, month, day, hour, minute, second, weekday: Int }

    // Howard Hinnant's days-from-civil algorithms.
    private static func civil(_ date: Date) -> Civil {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 7) % 7
        return Civil(
            year: year, month: month, day: day,
            hour: secondOfDay / 3_600, minute: secondOfDay % 3_600 / 60, second: secondOfDay % 60,
            weekday: weekday
        )
    }

    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
