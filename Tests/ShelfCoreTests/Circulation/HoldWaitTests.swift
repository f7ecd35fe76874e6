import Foundation
import Testing
@testable import ShelfCore

/// The wait of a hold: `(⌈position / copies⌉ − ½) × loan period`, said in the unit a person would use.
@Suite struct HoldWaitTests {
    @Test func theWaitGrowsWithThePlaceInLineAndShrinksWithCopies() {
        let rows: [(position: Int, copies: Int, loanDays: Double, days: Double, text: String)] = [
            (1, 1, 21, 10.5, "about 2 weeks"),
            (1, 3, 14, 7, "about 7 days"),
            (3, 2, 21, 31.5, "about 5 weeks"),
            (6, 2, 21, 52.5, "about 8 weeks"),
            (12, 2, 21, 115.5, "about 4 months"),
            (40, 1, 21, 829.5, "about 27 months"),
            (2, 5, 7, 3.5, "about 4 days"),
            (1, 10, 1, 0.5, "about 1 day"),
        ]
        for row in rows {
            let wait = HoldWait.estimate(position: row.position, copies: row.copies, loanDays: row.loanDays, measured: true)
            #expect(wait?.days == row.days && wait?.text == row.text, "\(row) gave \(String(describing: wait))")
        }
    }

    @Test func withoutAPlaceOrACopyThereIsNoEstimate() {
        #expect(HoldWait.estimate(position: nil, copies: 2, loanDays: 21, measured: true) == nil)
        #expect(HoldWait.estimate(position: 3, copies: nil, loanDays: 21, measured: true) == nil)
        #expect(HoldWait.estimate(position: 3, copies: 0, loanDays: 21, measured: true) == nil)
        #expect(HoldWait.estimate(position: 0, copies: 2, loanDays: 21, measured: true) == nil)
    }

    @Test func theBasisSaysWhereTheLoanPeriodCameFrom() {
        let measured = HoldWait.estimate(position: 3, copies: 2, loanDays: 21, measured: true)!
        #expect(measured.basis == "an estimate from #3 in line, 2 copies, 3-week loans")
        let usual = HoldWait.estimate(position: 1, copies: 1, loanDays: 10, measured: false)!
        #expect(usual.basis == "an estimate from #1 in line, 1 copy, 10-day loans (the usual; no loan of yours here to measure)")
    }
}
