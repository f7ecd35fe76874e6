import ArgumentParser
import Foundation
import ShelfCore

/// Prints the patron's loans or holds.
private func printShelf(
    _ global: GlobalOptions, json: Bool, kinds: Set<Entitlement>, empty: String, unsignedHint: String = ""
) throws {
    try withFailureHandling {
        let (store, library) = try global.openLibrary()
        // Streamed, keeping only the loans or holds: the catalog around them may be 100,000 titles.
        var editions: [EditionSummary] = []
        try store.forEachEdition(of: library) { if kinds.contains($0.entitlement) { editions.append($0) } }
        editions = try store.withHoldWaits(editions, library: library)
        if json { return try Output.json(editions) }
        if editions.isEmpty {
            // Only a patron not signed in is asked whether they are: a loan that ended leaves a signed-in shelf empty.
            let signedIn = ((try? CredentialStore(home: global.resolvedHome).load(for: library)) ?? nil) != nil
            if !global.quiet { Output.line(empty + (signedIn ? "" : unsignedHint)) }
            return
        }
        // Holds say when they may come, as an estimate, with how it was worked out below the table.
        let waits = editions.compactMap(\.holdWait)
        guard !waits.isEmpty else {
            return Output.table(
                ["ID", "TITLE", "AUTHOR", "TYPE", "STATE", "STATUS"],
                editions.map { [$0.shortID, $0.title, $0.authors, $0.kind, $0.state.label, $0.circulation] })
        }
        Output.table(
            ["ID", "TITLE", "AUTHOR", "TYPE", "STATE", "STATUS", "WAIT (ESTIMATE)"],
            editions.map { [$0.shortID, $0.title, $0.authors, $0.kind, $0.state.label, $0.circulation, $0.holdWait?.text ?? ""] })
        if !global.quiet {
            let wait = waits[0]
            let period = wait.loanDaysMeasured ? "the loans you have had here (\(Int(wait.loanDays)) days)"
                : "the usual three-week loan (no loan of yours here to measure yet)"
            Output.line("Waits are estimates from your place in line, the library's copies and \(period).")
        }
    }
}

extension Shelf {
    /// `shelf loans`.
    struct Loans: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "loans",
            abstract: "List your loans with the days left.",
            discussion: "From the store: run `shelf sync` (signed in) to bring it up to date. Works offline.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try printShelf(global, json: output.json, kinds: [.loan], empty: "No loans.",
                           unsignedHint: " (Not signed in: `shelf login`, then `shelf sync`.)")
        }
    }

    /// `shelf holds`.
    struct Holds: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "holds",
            abstract: "List your holds: place in line, an estimate of the wait, or ready to borrow until when.",
            discussion: """
                From the store: run `shelf sync` (signed in) to bring it up to date. Works offline.

                The wait is an estimate, (⌈place in line / copies⌉ − ½) × the loan period: each copy is on average \
                half-way through its loan, then lent once a period. The loan period is the median of your own loans \
                at this library, else the usual three weeks. --json gives the figures as holdWait.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try printShelf(global, json: output.json, kinds: [.hold, .holdReady], empty: "No holds.")
        }
    }
}
