import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf list`: the titles in the store.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the titles of a library, with their state and availability.")

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

        func validate() throws {
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
                let printer = ListPrinter(store: store, library: library, filter: filter, quiet: global.quiet)
                try output.json ? printer.printJSON() : printer.printTable()
            }
        }
    }
}
