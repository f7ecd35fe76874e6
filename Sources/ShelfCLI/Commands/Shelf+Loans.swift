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
        if json { return try Output.json(editions) }
        if editions.isEmpty {
            // Only a patron not signed in is asked whether they are: a loan that ended leaves a signed-in shelf empty.
            let signedIn = ((try? CredentialStore(home: global.resolvedHome).load(for: library)) ?? nil) != nil
            if !global.quiet { Output.line(empty + (signedIn ? "" : unsignedHint)) }
            return
        }
        Output.table(
            ["ID", "TITLE", "AUTHOR", "TYPE", "STATE", "STATUS"],
            editions.map { [$0.shortID, $0.title, $0.authors, $0.kind, $0.state.label, $0.circulation] })
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
            abstract: "List your holds: place in line, or ready to borrow until when.",
            discussion: "From the store: run `shelf sync` (signed in) to bring it up to date. Works offline.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try printShelf(global, json: output.json, kinds: [.hold, .holdReady], empty: "No holds.")
        }
    }
}
