import Foundation
import GRDB

/// When a hold may come: an estimate from the patron's place in line, the copies the library has and how long its
/// loans last. Said as an estimate everywhere it is shown; nothing is promised.
public struct HoldWait: Codable, Sendable, Equatable {
    /// The patron's place in line (1: next).
    public var position: Int
    /// Copies the library lends.
    public var copies: Int
    /// How long a loan lasts, in days.
    public var loanDays: Double
    /// True when `loanDays` was measured from the patron's own loans of this library; false when it is the usual
    /// three weeks, the library having lent them nothing yet to measure.
    public var loanDaysMeasured: Bool
    /// The estimated wait, in days.
    public var days: Double
    /// "about 6 weeks".
    public var text: String

    /// Loans last three weeks at most public libraries (Palace's default loan period), when nothing better is known.
    public static let usualLoanDays = 21.0

    /// The wait of the `position`th in line for `copies` copies lent `loanDays` at a time: each copy is half-way
    /// through its loan on average, then serves one patron a loan period each, so the wait is
    /// `(⌈position / copies⌉ − ½) × loanDays`. Nil without a place in line or a copy.
    public static func estimate(position: Int?, copies: Int?, loanDays: Double, measured: Bool) -> HoldWait? {
        guard let position, let copies, position >= 1, copies >= 1, loanDays > 0 else { return nil }
        let rounds = (position + copies - 1) / copies
        let days = (Double(rounds) - 0.5) * loanDays
        return HoldWait(position: position, copies: copies, loanDays: loanDays, loanDaysMeasured: measured, days: days,
                        text: phrase(days: days))
    }

    /// "about 4 days", "about 6 weeks", "about 5 months".
    static func phrase(days: Double) -> String {
        func about(_ count: Int, _ unit: String) -> String { "about \(count) \(unit)\(count == 1 ? "" : "s")" }
        if days < 10 { return about(max(1, Int(days.rounded())), "day") }
        if days < 63 { return about(Int((days / 7).rounded()), "week") }
        return about(Int((days / 30.44).rounded()), "month")
    }

    /// How the estimate is worked out, for the line after it: "an estimate from #3 in line, 2 copies, 3-week loans".
    public var basis: String {
        let weeks = loanDays / 7
        let period = weeks == weeks.rounded() ? "\(Int(weeks))-week loans" : "\(Int(loanDays.rounded()))-day loans"
        return "an estimate from #\(position) in line, \(copies) cop\(copies == 1 ? "y" : "ies"), "
            + period + (loanDaysMeasured ? "" : " (the usual; no loan of yours here to measure)")
    }
}

extension Store {
    /// How long this library's loans last: the median of the patron's loans there (from their start to their end,
    /// 1 to 90 days), else `HoldWait.usualLoanDays`.
    public func loanDays(of library: Library) throws -> (days: Double, measured: Bool) {
        let spans = try read { db in
            try Double.fetchAll(db, sql: """
                SELECT (until - since) / 86400.0 FROM loan
                WHERE library_id = ? AND kind = 'loan' AND since IS NOT NULL AND until IS NOT NULL
                  AND until - since BETWEEN 86400 AND 7776000
                ORDER BY 1
                """, arguments: [library.id])
        }
        guard !spans.isEmpty else { return (HoldWait.usualLoanDays, false) }
        let middle = spans.count / 2
        let median = spans.count % 2 == 1 ? spans[middle] : (spans[middle - 1] + spans[middle]) / 2
        // Whole days: a loan of 20.99 days is a three-week loan that began a little after its day.
        return (median.rounded(), true)
    }

    /// Each hold's wait among `editions` (the others left as they are), the library's loan period read once.
    public func withHoldWaits(_ editions: [EditionSummary], library: Library) throws -> [EditionSummary] {
        guard editions.contains(where: { $0.entitlement == .hold }) else { return editions }
        let period = try loanDays(of: library)
        return editions.map { edition in
            guard edition.entitlement == .hold else { return edition }
            var edition = edition
            edition.holdWait = HoldWait.estimate(
                position: edition.holdsPosition, copies: edition.copiesTotal, loanDays: period.days, measured: period.measured)
            return edition
        }
    }
}
