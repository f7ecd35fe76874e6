import ArgumentParser
import Foundation
import ShelfCore

/// Runs one circulation action and prints its outcome.
private func circulate(
    _ global: GlobalOptions, _ id: String, json: Bool,
    _ action: (CirculationService, EditionRef) throws -> CirculationOutcome
) throws {
    try withFailureHandling {
        let (store, library, edition) = try global.openEdition(id)
        let http = global.httpConfiguration
        let service = try CirculationService(
            store: store, home: global.resolvedHome, library: library, configuration: http,
            credentialWarning: { Output.error("shelf: warning: \($0)") })
        let outcome = try action(service, edition)
        if json { return try Output.json(outcome) }
        if !global.quiet { Output.line(outcome.message) }
    }
}

extension Shelf {
    /// `shelf borrow ID`.
    struct Borrow: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "borrow",
            abstract: "Borrow a title that has a copy free (or whose hold is ready).",
            discussion: "Prints the due date. A title with no copy free is reserved instead with `shelf reserve`.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The title's id, or a unique part of it.") var id: String

        func run() throws { try circulate(global, id, json: output.json) { try $0.borrow($1) } }
    }

    /// `shelf reserve ID`.
    struct Reserve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reserve",
            abstract: "Place a hold on a title with no copy free.",
            discussion: "Prints your place in the queue. `shelf sync` says when the hold is ready to borrow.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The title's id, or a unique part of it.") var id: String

        func run() throws { try circulate(global, id, json: output.json) { try $0.reserve($1) } }
    }

    /// `shelf return ID`.
    struct Return: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "return",
            abstract: "Return a loan, or cancel a hold.",
            discussion: "Asks first on a terminal; --yes confirms without asking (needed without a terminal). "
                + "Local files of a returned title are removed. Refused while `shelf listen` plays the title, unless --force.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The title's id, or a unique part of it.") var id: String
        @Flag(name: .shortAndLong, help: "Do not ask for confirmation.") var yes = false
        @Flag(help: "Return it even while `shelf listen` plays it (the player stops and keeps its position).")
        var force = false

        func run() throws {
            if !yes {
                try withFailureHandling {
                    let store = try global.openStore()
                    let summary = try store.edition(id, in: try store.library(named: global.library)).summary
                    // Nothing to ask about a title that is neither on loan nor on hold: the return says why not.
                    guard [.loan, .hold, .holdReady].contains(summary.entitlement) else { return }
                    let verb = summary.entitlement == .loan ? "Return" : "Cancel your hold on"
                    guard let answer = Prompt.confirm("\(verb) \(summary.title)?") else {
                        throw CirculationError.confirmationNeeded("\(verb.lowercased()) \(summary.title)")
                    }
                    if !answer {
                        Output.line("Kept \(summary.title).")
                        throw ExitCode.success
                    }
                }
            }
            try circulate(global, id, json: output.json) { try $0.returnTitle($1, force: force) }
        }
    }
}
