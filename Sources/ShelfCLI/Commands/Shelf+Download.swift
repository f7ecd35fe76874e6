import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf download ID`: fetch a borrowed or open-access audiobook's parts.
    struct Download: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download a borrowed or open-access audiobook.",
            discussion: """
                Follows the title's acquisition links to its audiobook manifest (through the library's bearer \
                token when it uses one), or to its package, and downloads the parts in parallel. Parts resume \
                where they stopped (Range, If-Range); links that expire are fetched again; a part that fails \
                does not stop the others, and running the command again resumes. Titles protected by DRM \
                (Findaway, LCP, OverDrive, Feedbooks) are reported, not attempted.

                A book offered as one audio file (mp3, m4b, ogg, opus, flac, aac…) or a zip of audio files, \
                as calibre, COPS and other plain servers offer them, is downloaded the same resumable way; \
                `shelf listen` reads its chapters from the file. A part that is not audio, or a zip with no \
                audio or a path outside the book, is refused (exit status 86) and nothing is kept. A library \
                that answers 401 for the file says to sign in (exit status 89), or, when it no longer accepts \
                the stored user name and password, erases them (exit status 77).

                Ctrl-C or SIGTERM stops the transfers, keeps the bytes received, puts the title back where it \
                was (New, or Updated) and exits with 128 plus the signal; the next download resumes, and \
                `shelf archive` clears the half-downloaded files. A part whose file already holds every byte \
                (the process was killed before renaming it) is checked against the manifest's length and \
                SHA-256, or the server's Content-Range total, and moved into place. Before starting, the free \
                space on the disk is checked against the manifest's sizes; a full disk is named by its mount \
                point (exit status 94). --limit-rate caps all parallel transfers together. With --all, a title \
                whose download failed twice or more in a row waits (30 minutes, doubling up to a day) and is \
                skipped with one line; naming the title tries it at once.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The title's id, or a unique part of it.") var id: String?

        @Flag(name: .long, help: "Download every loan not downloaded yet, in queue order.")
        var all = false

        @Option(name: .long, help: ArgumentHelp("high puts the title at the top of the queue.", valueName: "priority"))
        var priority = "normal"

        @Option(name: .long, help: ArgumentHelp("Parts downloaded at once.", valueName: "n"))
        var parallel = 4

        @Option(name: .customLong("limit-rate"), help: ArgumentHelp(
            "Total download speed cap, in bytes per second (k and m suffixes allowed).", valueName: "rate"))
        var limitRate: String?

        @Flag(name: .shortAndLong, help: "Do not ask before a large download (over 500 MB).")
        var yes = false

        func validate() throws {
            guard (id == nil) != !all else { throw ValidationError("give a title's id, or --all") }
            guard ["high", "normal"].contains(priority) else { throw ValidationError("--priority is high or normal") }
            guard (1...16).contains(parallel) else { throw ValidationError("--parallel must be 1 to 16") }
            if let limitRate, Self.parseRate(limitRate) == nil {
                throw ValidationError("--limit-rate takes a number of bytes per second, like 500k or 2m")
            }
        }

        static func parseRate(_ text: String) -> Int64? {
            let lower = text.lowercased()
            let (digits, scale): (Substring, Int64) = lower.hasSuffix("k") ? (lower.dropLast(), 1024)
                : lower.hasSuffix("m") ? (lower.dropLast(), 1_048_576) : (Substring(lower), 1)
            guard let value = Int64(digits), value > 0 else { return nil }
            return value * scale
        }

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                let http = global.httpConfiguration
                var settings = DownloadSettings()
                settings.concurrency = parallel
                settings.perHost = parallel
                settings.limitRate = limitRate.flatMap(Self.parseRate)
                settings.log = global.logger
                // Ctrl-C or a SIGTERM stops the transfers, puts the title back where it was, then ends with the signal.
                let signals = SignalWatch()
                settings.stopSignal = { signals.ending }
                let service = try FulfilmentService(
                    store: store, home: global.resolvedHome, library: library, configuration: http, settings: settings)
                // Downloading every loan is what cron does: titles that keep failing wait their turn. A title
                // named by hand is tried at once.
                service.honourBackoff = id == nil
                let bar = ProgressBar(enabled: !global.quiet && !output.json && Output.useColor)
                service.progress = { bar.show($0) }
                // Declining the question is the patron's choice, not a failure: it does not change the exit status.
                let declined = Declined()
                if !yes && Prompt.hasTerminal && Output.isTTY {
                    service.confirmLarge = { size in
                        let answer = Prompt.confirm("This download is \(size / 1_048_576) MB. Download it?") ?? false
                        declined.titles += answer ? 0 : 1
                        return answer
                    }
                }
                let queue = DownloadQueue(store: store, library: library)
                let wanted: [EditionRef]
                if let id {
                    let edition = try store.resolveEdition(id, in: library)
                    try queue.enqueue(edition, priority: QueuePriority(rawValue: priority) ?? .normal)
                    wanted = [edition]
                } else {
                    _ = try queue.enqueueAllLoans()
                    wanted = try queue.editions()
                    if wanted.isEmpty && !global.quiet && !output.json { Output.line("Nothing to download.") }
                }
                var reports: [DownloadReport] = []
                var firstFailure: (exit: ShelfExit, message: String)?
                for title in wanted {
                    let declinedBefore = declined.titles
                    if let signal = signals.ending { throw ExitCode(128 + signal) }
                    let outcome = Result { try service.download(title) }
                    bar.finish()
                    if case .failure(DownloadError.interrupted(let signal)) = outcome {
                        // The queue keeps the title as it was, to resume next time.
                        let state = (try? store.summary(of: title).state.label) ?? "where it was"
                        let name = (try? store.summary(of: title).title) ?? title.entryID
                        Output.error("shelf: download interrupted; \(name) is back to \(state), with the parts received so far kept for `shelf download` to resume")
                        throw ExitCode(128 + signal)
                    }
                    // A failed download is what the patron hears about, not a queue that could not note it.
                    if case .failure = outcome {
                        try? queue.settle(title, after: outcome)
                    } else {
                        try queue.settle(title, after: outcome)
                    }
                    // The event log has it too, as already told: the patron is watching.
                    let stamp = Int(Date().timeIntervalSince1970 * 1000)
                    switch outcome {
                    case .success(let report) where report.state == .downloaded:
                        _ = try? store.recordNotice(
                            kind: .downloaded, libraryID: library.id, editionID: title.rowID,
                            key: "downloaded:\(title.entryID):\(stamp)",
                            text: "\(report.title): downloaded (\(FulfilmentService.megabytes(report.bytes)))", told: true)
                    case .success(let report):
                        _ = try? store.recordNotice(
                            kind: .downloadFailed, libraryID: library.id, editionID: title.rowID,
                            key: "failed:\(title.entryID):\(stamp)", text: "\(report.title): \(report.message)", told: true)
                    case .failure(let error):
                        _ = try? store.recordNotice(
                            kind: .downloadFailed, libraryID: library.id, editionID: title.rowID,
                            key: "failed:\(title.entryID):\(stamp)", text: "\((try? store.summary(of: title).title) ?? title.entryID): download failed: "
                                + ((error as? ShelfFailure)?.description ?? "\(error)"),
                            told: true)
                    }
                    switch outcome {
                    case .success(let report):
                        reports.append(report)
                        // A title backing off after failing again and again is not this run's failure.
                        let skipped = report.isBackingOff
                        if report.state != .downloaded && declined.titles == declinedBefore && !skipped {
                            firstFailure = firstFailure ?? (.serverError, report.message)
                        }
                        if !output.json && (!global.quiet || (report.state != .downloaded && !skipped)) {
                            Output.line(report.message)
                        }
                        for failure in report.failures {
                            Output.error("shelf: \(report.title), \(failure); run `shelf download` again to resume")
                        }
                    case .failure(let error):
                        guard let failure = error as? ShelfFailure, wanted.count > 1 else { throw error }
                        Output.error("shelf: \(failure.description)")
                        firstFailure = firstFailure ?? (failure.exitCode, failure.description)
                    }
                }
                if let firstFailure {
                    throw ReportedFailure(message: firstFailure.message, exit: firstFailure.exit, partial: "downloads", reports)
                }
                if output.json { try Output.json(reports) }
            }
        }
    }

    /// `shelf archive ID`: remove the local files, keep the loan.
    struct Archive: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "archive",
            abstract: "Delete a title's downloaded files but keep it on loan.",
            discussion: """
                Also clears the files a download left half-way (interrupted, or killed while Downloading): the \
                title stays where it was. Refused while `shelf listen` plays the title, unless --force.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The title's id, or a unique part of it.") var id: String
        @Flag(help: "Archive it even while `shelf listen` plays it (the player stops and keeps its position).")
        var force = false

        func run() throws {
            try withFailureHandling {
                let (store, library, edition) = try global.openEdition(id)
                let service = try FulfilmentService(
                    store: store, home: global.resolvedHome, library: library, configuration: HTTPConfiguration())
                let message = try service.archive(edition, force: force)
                if !global.quiet { Output.line(message) }
            }
        }
    }
}

/// How many large downloads the patron declined, counted by the confirmation question.
private final class Declined {
    var titles = 0
}
