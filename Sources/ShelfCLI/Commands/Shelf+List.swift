import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf list`: the titles in the store.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the titles of a library, with their state and availability.",
            discussion: """
                Rows are printed as they are read from the store; --json writes its array an element at a time.

                --json writes each title on one line: its id, shortID, title, authors, medium, protection, state, \
                entitlement and availableUntil (on loan or on hold), circulation (the AVAILABILITY phrase), \
                consumption and percent (audiobooks), series (name, position), inCatalog (only when false), foundBy \
                and actions, each left out when empty or none. --json --full writes every field of each title, \
                pretty-printed, as shelf show --json names them.

                The columns' widths are known before the first row is read, so it is printed at once however many \
                titles there are. On a terminal (or with COLUMNS set) the table is fitted to its width: AUTHOR has \
                24 columns and TITLE what is left once AVAILABILITY has 24; TITLE, then AUTHOR, shrink when the \
                window is narrow, a cell too long for its column is cut with "…", and a row still too wide is cut \
                at the edge. Written to a pipe or a file, TITLE has 40 columns and AUTHOR 28, and AVAILABILITY is \
                never cut. ID is as wide as the library's widest short id, TYPE 13 ("audiobook DRM": `shelf show` \
                names the scheme), STATE 11 and PROGRESS 11. --tsv writes every cell whole, separated by tabs, with \
                the header first. Widths count terminal columns: an East Asian wide character takes two, a \
                combining mark none.

                The ID column is a short id to type: a UUID's first 8 characters, more when another title of the \
                library shares them (as git widens a commit's); an ISBN or another plain token (letters, digits, \
                '.', '_', '-', at most 24) whole; for any other id, such as a loans feed's \
                .../works/?urn=urn%3A...%2F44977, the first 8 of 16 hex digits of a hash of the id. Titles whose \
                ids end alike (urn:x:1 and urn:y:1; 9781488208676 and urn:isbn:9781488208676) are each shown by \
                the shortest end of their id, cut at a ':' or '/', that no other id ends with (x:1, y:1), or by \
                the whole id: a shown id always leads back to its own title. shelf show and the other commands \
                take it, the start of it, the id's end, or the whole id; an id that is one title's whole id and \
                the end of another's opens the whole match, and says so on standard error.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        @Flag(name: .long, help: "Only titles that can be had now: free, on loan, ready, or with a copy to borrow.")
        var available = false

        @Option(name: .long, help: ArgumentHelp(
            "Only titles in this state: \(LifecycleState.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "state"))
        var state: String?

        @Flag(name: .long, help: "Include titles no longer in the catalog.")
        var removed = false

        @Option(name: .long, help: ArgumentHelp(
            "Only titles of this series, as the catalog names it (case does not matter).", valueName: "name"))
        var series: String?

        @Flag(name: .long, help: "Tab-separated values, every cell whole, in place of the table.")
        var tsv = false

        @Flag(name: .long, help: "With --json, every field of each title, pretty-printed (without it, one line a title).")
        var full = false

        func validate() throws {
            if tsv && output.json { throw ValidationError("--tsv and --json: give one of them") }
            if full && !output.json { throw ValidationError("--full goes with --json") }
            if let series, series.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--series needs a series name")
            }
            if let state, LifecycleState(rawValue: state.lowercased()) == nil {
                throw ValidationError(
                    "unknown state '\(state)'; one of: \(LifecycleState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                let filter = EditionFilter(
                    availableOnly: available, state: state.flatMap { LifecycleState(rawValue: $0.lowercased()) },
                    includeRemoved: removed, series: series)
                var printer = ListPrinter(store: store, library: library, filter: filter, quiet: global.quiet)
                printer.tabSeparated = tsv
                try output.json ? printer.printJSON(full: full) : printer.printTable()
            }
        }
    }
}
