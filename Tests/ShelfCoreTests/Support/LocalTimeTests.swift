import Foundation
import Testing
@testable import ShelfCore

/// The C library's local time writes what Foundation's formatters wrote before it, in this machine's zone.
@Suite(.timeLimit(.minutes(5))) struct LocalTimeTests {
    static func formatted(_ date: Date, _ format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    @Test func stampsAndShortDatesAgreeWithDateFormatter() {
        let now = Date()
        // Every month, the turn of a year, the epoch, and moments either side of midnight.
        var dates = (0..<40).map { now.addingTimeInterval(Double($0) * 86_400 * 23 - 400 * 86_400) }
        dates += [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_798_761_599), Date(timeIntervalSince1970: 1_798_761_600)]
        for date in dates {
            #expect(LocalTime.timestamp(date) == Self.formatted(date, "yyyy-MM-dd HH:mm"))
            let sameYear = Calendar.current.component(.year, from: date) == Calendar.current.component(.year, from: now)
            #expect(LocalTime.shortDate(date, now: now) == Self.formatted(date, sameYear ? "MMM d" : "MMM d yyyy"))
        }
    }
}
