import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf status`: counts per state, the last sync, what changed.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show per-state counts, the last sync and what it changed.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                let report = try store.status(of: library)
                if output.json { return try Output.json(report) }
                Output.line(Output.bold(report.library) + (report.catalogTitle.map { " — \($0)" } ?? "") + " (\(report.url))")
                if let at = report.lastSyncAt {
                    var line = "Last sync: \(Output.timestamp(at)) (\(Output.relative(at))), \(report.lastSyncStatus ?? "?")"
                    if let message = report.lastSyncMessage { line += ": \(message)" }
                    Output.line(line)
                    if report.lastSyncStatus != "ok", let ok = report.lastSyncOKAt {
                        Output.line("Last good sync: \(Output.timestamp(ok)) (\(Output.relative(ok)))")
                    }
                } else {
                    Output.line("Last sync: never (run `shelf sync`)")
                }
                let account: String
                switch Result(catching: { try CredentialStore(home: global.resolvedHome).load(for: library) }) {
                case .success(let credentials?): account = "signed in with card \(credentials.maskedUsername)"
                case .success(nil): account = "not signed in (`shelf login` to see loans and holds)"
                case .failure(let error): account = "\(error)"
                }
                Output.line("Account: \(account)")
                Output.line("Titles: \(report.titles) in the catalog, \(report.removed) removed · \(report.loans) on loan · \(report.holds) on hold")
                Output.line("States: " + LifecycleState.allCases.map { "\($0.label) \(report.states[$0.rawValue] ?? 0)" }
                    .joined(separator: " · "))
                let follows = try store.follows()
                if !follows.isEmpty {
                    Output.line("Following: " + follows.map { follow in
                        follow.name + (follow.newTitles > 0 ? " " + Output.bold("[\(follow.newTitles) new]") : "")
                    }.joined(separator: " · ") + (follows.contains { $0.newTitles > 0 } ? " (shelf news)" : ""))
                }
                let unseen = try store.notices(libraryIDs: [library.id], unseen: true).count
                if unseen > 0 { Output.line("Events: " + Output.bold("[\(unseen) new]") + " (shelf events --unseen)") }
                if !report.lastChanges.isEmpty {
                    Output.line("Changed by the last sync:")
                    for change in report.lastChanges {
                        Output.line("  \(TextWidth.pad(change.kind, to: 12)) \(change.title ?? change.id ?? "") — \(change.detail)")
                    }
                }
            }
        }
    }
}
