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

    /// `download --all` leaves out the titles the patron archived: how many, and how to bring one back.
    func leftOut(archived: Int) {
        guard archived > 0 && talk else { return }
        Output.line("Left out \(archived) archived title\(archived == 1 ? "" : "s") (`shelf download ID` brings one back).")
    }

    /// Ctrl-C or SIGTERM: the title named (or the one under way) is back where it was, its parts kept.
    func interrupted(_ title: EditionSummary?) {
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
