import Foundation

/// Dates written for people, in local time, with the C library's `localtime_r`. Foundation's `DateFormatter` opens
/// ICU's locale and zone data first: an eighth of `shelf status`'s time, for one line.
public enum LocalTime {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `2026-11-21 14:03`.
    public static func timestamp(_ date: Date) -> String {
        guard let parts = parts(date) else { return "\(date)" }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2)) "
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2))"
    }

    /// `Nov 30` in the year of `now`, `Nov 30 2027` in another.
    public static func shortDate(_ date: Date, now: Date = Date()) -> String {
        guard let parts = parts(date), let today = self.parts(now) else { return "\(date)" }
        let day = "\(months[Int(parts.tm_mon)]) \(parts.tm_mday)"
        return parts.tm_year == today.tm_year ? day : "\(day) \(parts.tm_year + 1900)"
    }

    private static let zoneRead: Void = tzset()

    private static func parts(_ date: Date) -> tm? {
        _ = zoneRead
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        return localtime_r(&seconds, &parts) == nil ? nil : parts
    }

    private static func padded(_ value: Int32, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
