import ArgumentParser
import ShelfCore

/// What `shelf sync` prints of one library's refresh: its warnings, summary line and pushed positions at a terminal,
/// and each new event once, however the sync was run (under --json they are in the summary instead).
struct RefreshPrinter {
    /// Not --quiet and not --json.
    let talk: Bool
    let json: Bool

    func print(_ summary: SyncSummary, prefix: String) {
        if summary.skipped == true {
            if talk { Output.line("Skipped: \(summary.skipReason ?? summary.library)") }
            return
        }
        if talk {
            for warning in summary.warnings { Output.error("shelf: warning: \(summary.library): \(warning)") }
            Output.line(prefix + summary.line)
            if summary.positionsPushed > 0 {
                let count = summary.positionsPushed
                Output.line("\(prefix)Pushed \(count) listening position\(count == 1 ? "" : "s")")
            }
        }
        if !json { for line in EventTeller.lines(summary.events, prefix: prefix) { Output.line(line) } }
    }

    /// A download stopped by Ctrl-C or SIGTERM: what became of the title.
    static let interrupted = "shelf: download interrupted; the title is back where it was, with the parts received "
        + "so far kept for the next sync to resume"

    /// Refreshes each library in turn, printing each as it ends: a library's failure is a line and the others go
    /// on (but for another sync holding the lock, which stops them all); the first failure ends the command once
    /// every library had its turn, with what was synced. Ctrl-C or SIGTERM ends it at once, with the signal.
    func run(_ libraries: [Library], _ refresh: LibraryRefresh, bar: ProgressBar, quiet: Bool) throws -> [SyncSummary] {
        var summaries: [SyncSummary] = []
        var firstFailure: (any ShelfFailure)?
        for library in libraries {
            let prefix = libraries.count > 1 ? "\(library.name): " : ""
            do {
                summaries.append(try refresh.run(library))
                bar.finish()
                print(summaries[summaries.count - 1], prefix: prefix)
            } catch DownloadError.interrupted(let signal) {
                bar.finish()
                Output.error(Self.interrupted)
                throw ExitCode(128 + signal)
            } catch let failure as ShelfFailure {
                // Under --quiet a library already known to be failing says nothing more until it recovers.
                if !quiet || refresh.lastTransition?.isNews ?? true { Output.error("shelf: \(prefix)\(failure.description)") }
                firstFailure = firstFailure ?? failure
                if case SyncError.busy = failure { break }
            }
        }
        if let firstFailure {
            throw ReportedFailure(message: firstFailure.description, exit: firstFailure.exitCode, partial: "synced", summaries)
        }
        return summaries
    }
}

/// What `shelf download` prints of each title's outcome, as it comes, and the first failure it ends with.
final class DownloadPrinter {
    let talk: Bool
    let json: Bool
    private(set) var firstFailure: (exit: ShelfExit, message: String)?

    init(talk: Bool, json: Bool) {
        self.talk = talk
        self.json = json
    }

    /// Downloads the title `named`, or every loan wanted (`--all`), printing each outcome as it comes. A named
    /// title that failed throws its failure; otherwise the first failure ends the command once every title had its
    /// turn, with the reports. Ctrl-C or SIGTERM ends it at once, with the signal (the queue keeps the title as it
    /// was, to resume next time).
    func run(_ run: DownloadRun, named: EditionRef?, priority: QueuePriority, bar: ProgressBar, store: Store) throws
        -> [DownloadReport]
    {
        var reports: [DownloadReport] = []
        do {
            if let named {
                let outcome = try run.named(named, priority: priority)
                if case .failed(let failure) = outcome.result { throw failure }
                if case .busy(let failure) = outcome.result { throw failure }
                bar.finish()
                print(outcome)
                reports = outcome.report.map { [$0] } ?? []
            } else {
                leftOut(archived: try run.archivedCount())
                let outcomes = try run.drain(.loans) { bar.finish(); self.print($0) }
                if outcomes.isEmpty && talk { Output.line("Nothing to download.") }
                reports = outcomes.compactMap(\.report)
            }
        } catch DownloadError.interrupted(let signal) {
            bar.finish()
            interrupted(try? named.map { try store.summary(of: $0) })
            throw ExitCode(128 + signal)
        }
        if let failure = firstFailure {
            throw ReportedFailure(message: failure.message, exit: failure.exit, partial: "downloads", reports)
        }
        return reports
    }

    /// `download --all` leaves out the titles the patron archived: how many, and how to bring one back.
    private func leftOut(archived: Int) {
        guard archived > 0 && talk else { return }
        Output.line("Left out \(archived) archived title\(archived == 1 ? "" : "s") (`shelf download ID` brings one back).")
    }

    /// Ctrl-C or SIGTERM: the title named (or the one under way) is back where it was, its parts kept.
    private func interrupted(_ title: EditionSummary?) {
        let name = title.map { "\($0.title) is back to \($0.state.label)" } ?? "the title is back where it was"
        let again = title.map { "shelf download \($0.shortID)" } ?? "shelf download --all"
        Output.error("shelf: download interrupted; \(name), with the parts received so far kept for `\(again)` to resume")
    }

    func print(_ outcome: DownloadOutcome) {
        switch outcome.result {
        case .downloaded, .declined, .backingOff:
            if talk { Output.line(outcome.line) }
        case .busy:
            // Another shelf is downloading it: that one tells how it went.
            if !json { Output.line(outcome.line) }
        case .overBudget, .stopped:
            if !json { Output.line(outcome.line) }
            firstFailure = firstFailure ?? (.serverError, outcome.line)
        case .failed(let failure):
            Output.error("shelf: \(failure.description)")
            firstFailure = firstFailure ?? (failure.exitCode, failure.description)
        }
        for failure in outcome.report?.failures ?? [] {
            Output.error("shelf: \(outcome.title), \(failure); run `shelf download \(outcome.shortID)` again to resume")
        }
    }
}
