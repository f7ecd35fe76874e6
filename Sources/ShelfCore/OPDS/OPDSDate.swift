import Foundation

/// Dates as OPDS feeds write them: RFC 3339 timestamps, and the looser ISO 8601 forms seen in real feeds.
public enum OPDSDate {
    /// Parses `2015-08-17T20:37:53Z`, `…53.123Z`, `…53+02:00`, `…53+0200`, a timestamp without a zone (taken
    /// as UTC), `2015-08-17`, `2015-08` or `2015`; nil for anything else or an impossible date.
    ///
    /// Hand-written because Foundation's formatters each accept only one of these forms and cost
    /// microseconds per call, which matters at tens of thousands of entries per second.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// `2026-11-23T22:17:35Z`: the time in UTC to the second (truncated), as RFC 3339 writes it. Written with the C
    /// library's `gmtime_r`: Foundation's ISO 8601 format style builds a calendar with the current time zone first,
    /// which loads ICU's zone data (1.8 MB more held by the player, which stamps every position it posts).
    public static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return date.formatted(.iso8601) }
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))T"
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2))Z"
    }

    /// Parses an optional string; nil stays nil.
    public static func parse(_ text: String?) -> Date? {
        text.flatMap { parse($0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipSpaces()
        guard let year = scanner.digits(4) else { return nil }
        var month = 1
        var day = 1
        var seconds = 0.0
        var offset = 0
        if scanner.take(UInt8(ascii: "-")) {
            guard let m = scanner.digits(2) else { return nil }
            month = m
            if scanner.take(UInt8(ascii: "-")) {
                guard let d = scanner.digits(2) else { return nil }
                day = d
                if scanner.take(UInt8(ascii: "T")) || scanner.take(UInt8(ascii: "t"))
                    || scanner.take(UInt8(ascii: " "))
                {
                    guard let hour = scanner.digits(2), hour <= 24, scanner.take(UInt8(ascii: ":")),
                        let minute = scanner.digits(2), minute <= 59
                    else { return nil }
                    var second = 0.0
                    if scanner.take(UInt8(ascii: ":")) {
                        guard let whole = scanner.digits(2), whole <= 60 else { return nil }
                        second = Double(whole)
                        if scanner.take(UInt8(ascii: ".")) || scanner.take(UInt8(ascii: ",")) {
                            guard let fraction = scanner.fraction() else { return nil }
                            second += fraction
                        }
                    }
                    if hour == 24 && (minute != 0 || second != 0) { return nil }
                    seconds = Double(hour * 3600 + minute * 60) + second
                    guard let zone = scanner.zone() else { return nil }
                    offset = zone
                }
            }
        }
        scanner.skipSpaces()
        guard scanner.atEnd, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else {
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days) * 86_400 + seconds - Double(offset))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        CivilDays.days(year: year, month: month, day: day)
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpaces() {
            while index < bytes.count,
                bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A
                    || bytes[index] == 0x0D
            {
                index += 1
            }
        }

        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<count {
                let digit = Int(bytes[index + offset]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            index += count
            return value
        }

        mutating func fraction() -> Double? {
            var value = 0.0
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                value += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            return index > start ? value : nil
        }

        /// The zone designator as seconds east of UTC; none at all means UTC.
        mutating func zone() -> Int? {
            if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) { return 0 }
            let sign: Int
            if take(UInt8(ascii: "+")) {
                sign = 1
            } else if take(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return 0
            }
            guard let hours = digits(2), hours <= 23 else { return nil }
            var minutes = 0
            if take(UInt8(ascii: ":")) {
                guard let m = digits(2) else { return nil }
                minutes = m
            } else if let m = digits(2) {
                minutes = m
            }
            guard minutes <= 59 else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}

extension OPDSEntry {
    /// `issued` as a date (a bare year means its first of January), or nil when it does not parse.
    public var issuedDate: Date? { OPDSDate.parse(issued) }
    /// `updated` as a date, or nil when it does not parse.
    public var updatedDate: Date? { OPDSDate.parse(updated) }
    /// `published` as a date, or nil when it does not parse.
    public var publishedDate: Date? { OPDSDate.parse(published) }
}
