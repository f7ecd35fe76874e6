import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf sync`: fetch every page of the catalog, diff, store.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Fetch the library's catalog and bring the local store up to date.",
            discussion: """
                Follows the catalog's pages (rel="next"), asking only for pages that changed (ETag, \
                Last-Modified). The whole sync is one transaction: if a page fails, nothing changes and the \
                error names the page. Safe under cron: two syncs never run at once; the second waits \
                --wait seconds, then exits with status 75. With --quiet nothing is printed on success; \
                otherwise one summary line per library ("12 new, 3 updated, 1 removed").

                When the catalog's root is a navigation feed (calibre, COPS, Kavita, Komga), sync crawls it breadth \
                first: it follows the navigation links on the root's own host to every feed of titles, each with \
                its pages, and stores each title once however many feeds list it. It never follows facets, \
                search, groups' lanes or links back (up, start, self, a feed already read). The crawl is bounded: \
                \(CrawlBounds.standard.depth) links deep and \(CrawlBounds.standard.feeds) feeds by default; set \
                them per library with `shelf library set NAME --crawl-depth N --crawl-feeds N`, or for one run \
                here. When a bound stops the crawl, a warning says which; the titles read are stored, and no \
                title is removed that sync. A root that leads to no title at all fails with exit status 90.

                A page answering 429 or 5xx, or cut short, is asked for again with backoff (honouring Retry-After) \
                up to 5 times within 2 minutes. A library whose server keeps failing (5xx, no answer, a reset) is \
                backed off across runs: after its second failure in a row it is not tried again for 30 minutes, \
                doubling up to a day, and a sync meanwhile skips it with one line and exit status 0 (with --json, \
                its summary says "skipped": true and "nextTryAt"). A sign-in wanted, a refusal, a full disk or \
                another local failure never backs a library off, and `shelf login` or `shelf library set` ends a \
                back-off at once. --now tries at once. Under --quiet only the first failure and the first success \
                after failures are printed.

                DOWNLOADS. At the end of every sync, each library's download policy is applied (`shelf library \
                set NAME --auto-download none|loans|all`, `loans` by default): audiobooks on loan and updates of \
                titles downloaded before are downloaded, in the download queue's order; `all` adds the free titles \
                of followed authors and series. An updated title's old files stay playable until the new ones are \
                complete. `--keep N` archives the oldest finished titles beyond N (never one in progress), and \
                `--max-size` leaves out a title that would go past the budget. --no-download skips all of this.

                EVENTS. What happened (a hold ready, a new loan, a loan due within 3 days, a loan expired, a \
                download done or failed, a title updated, a new title by a followed author or in a followed \
                series, a library announcement) is kept in an event log (`shelf events`) and printed once, one \
                line each, the first time a sync sees it: never again by a later sync. With --quiet those lines \
                are all a sync prints, so cron mails exactly the new events and nothing when nothing happened. \
                More than \(EventTeller.stormThreshold) new events at once are summed up, one line per kind. \
                With --notify (or `shelf library set NAME --notify on`) and a desktop session bus \
                (DBUS_SESSION_BUS_ADDRESS), each new event is also sent once as a desktop notification, through \
                notify-send or gdbus; when no notification daemon answers, one line says so and the events stay \
                in the log.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        @Flag(name: .long, help: "Sync every library (the default when --library is not given).")
        var all = false

        @Option(name: .long, help: ArgumentHelp("Seconds to wait for another sync to finish.", valueName: "seconds"))
        var wait: Double = 10

        @Flag(name: .long, help: "Accept a loans feed that comes back empty although loans are stored (normally they are kept).")
        var acceptEmptyLoans = false

        @Flag(name: .long, help: "Try a library now even while it is backed off after failing again and again.")
        var now = false

        @OptionGroup var crawl: CrawlBoundOptions

        @Flag(name: .customLong("no-download"), help: "Download nothing, whatever the libraries' download policy.")
        var noDownload = false

        @Flag(name: .long, help: "Send each new event as a desktop notification (freedesktop, on the session bus).")
        var notify = false

        func validate() throws {
            if all && global.library != nil { throw ValidationError("give --all or --library, not both") }
            if wait < 0 { throw ValidationError("--wait must not be negative") }
            try crawl.validate()
        }

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                let libraries = try global.library.map { [try store.library(named: $0)] } ?? store.libraries()
                guard !libraries.isEmpty else { throw StoreError.noLibrary }
                var options = SyncOptions()
                options.lockTimeout = wait
                options.acceptEmptyLoans = acceptEmptyLoans
                options.honourBackoff = !now
                options.crawlDepth = crawl.crawlDepth
                options.crawlFeeds = crawl.crawlFeeds
                options.log = global.logger
                options.http.log = global.logger
                let engine = SyncEngine(store: store, home: global.resolvedHome, options: options)
                var summaries: [SyncSummary] = []
                var firstFailure: (any ShelfFailure)?
                for library in libraries {
                    do {
                        var summary = try engine.sync(library)
                        let prefix = libraries.count > 1 ? "\(library.name): " : ""
                        let talk = !global.quiet && !output.json
                        if talk {
                            for warning in summary.warnings { Output.error("shelf: warning: \(library.name): \(warning)") }
                            Output.line(prefix + summary.line)
                            if summary.positionsPushed > 0 {
                                let count = summary.positionsPushed
                                Output.line("\(prefix)Pushed \(count) listening position\(count == 1 ? "" : "s")")
                            }
                        }
                        // The end of a failure streak is an event: told once (cron mailed its start), in the log.
                        if case .recovered(let failures, let since)? = summary.transition {
                            try store.recordNotice(
                                kind: .libraryRecovered, libraryID: library.id, key: "recovered-\(Int(since.timeIntervalSince1970))",
                                text: Self.line(failures: failures, since: since, library.name),
                                // At a terminal the summary line says it works; one failure is not worth more.
                                told: !global.quiet && failures < 2)
                        }
                        let synced = try store.library(named: library.name)
                        Announcements.check(synced, store: store, configuration: global.httpConfiguration)
                        if !noDownload {
                            summary.downloads = try autoDownload(store, synced, talk: talk)
                        }
                        // Each new event once, however the sync was run; under --json they are in the summary.
                        let events = try store.takeUnprinted(libraryID: library.id)
                        summary.events = events
                        if !output.json {
                            for line in EventTeller.lines(events, prefix: prefix) { Output.line(line) }
                        }
                        if notify || library.notify {
                            let recent = try store.unnotified(libraryIDs: [library.id])
                                .filter { $0.at > Date().addingTimeInterval(-3 * 86_400) }
                            EventTeller.notify(recent, store: store, home: global.resolvedHome)
                        }
                        summaries.append(summary)
                    } catch SyncError.backingOff(let name, let until, let failures, let reason) {
                        // Not a failure of this run: cron every 30 minutes stays quiet until the library is due.
                        let skipped = SyncError.backingOff(library: name, until: until, failures: failures, reason: reason)
                        if !global.quiet && !output.json { Output.line("Skipped: \(skipped.description)") }
                        var summary = SyncSummary(library: library.name)
                        summary.skipped = true
                        summary.nextTryAt = until
                        summaries.append(summary)
                    } catch let failure as ShelfFailure {
                        let prefix = libraries.count > 1 ? "\(library.name): " : ""
                        // Under --quiet a library already known to be failing says nothing more until it recovers.
                        let news = engine.lastTransition?.isNews ?? true
                        if !global.quiet || news { Output.error("shelf: \(prefix)\(failure.description)") }
                        // The start of a streak is an event too, already told on standard error.
                        if case .startedFailing? = engine.lastTransition,
                            let streak = try? store.failureStreak(libraryID: library.id)
                        {
                            _ = try? store.recordNotice(
                                kind: .libraryFailing, libraryID: library.id,
                                key: "failing-\(Int(streak.firstFailedAt.timeIntervalSince1970))",
                                text: "\(library.name): \(failure.description)", told: true)
                        }
                        firstFailure = firstFailure ?? failure
                        if case SyncError.busy = failure { break }
                    }
                }
                if let firstFailure {
                    throw ReportedFailure(
                        message: firstFailure.description, exit: firstFailure.exitCode, partial: "synced", summaries)
                }
                if output.json && !global.quiet { try Output.json(summaries) }
            }
        }

        /// The line for a failure streak's end.
        static func line(failures: Int, since: Date, _ library: String) -> String {
            "\(library): syncing works again, after \(failures) failed sync\(failures == 1 ? "" : "s") since "
                + SyncError.localTime(since)
        }

        /// Applies the library's download policy; prints what was downloaded unless quiet (the events say it).
        private func autoDownload(_ store: Store, _ library: Library, talk: Bool) throws -> AutoDownloadReport? {
            guard library.autoDownload != .none else { return nil }
            var settings = DownloadSettings()
            settings.log = global.logger
            // Ctrl-C or a SIGTERM stops the transfers and puts the title back where it was.
            let signals = SignalWatch()
            settings.stopSignal = { signals.ending }
            let downloader = try AutoDownloader(
                store: store, home: global.resolvedHome, library: library, configuration: global.httpConfiguration,
                settings: settings)
            let bar = ProgressBar(enabled: talk && Output.useColor)
            if talk { downloader.progress = { bar.show($0) } }
            let report: AutoDownloadReport
            do {
                report = try downloader.run()
            } catch DownloadError.interrupted(let signal) {
                bar.finish()
                Output.error("shelf: download interrupted; the title is back where it was, with the parts received so far kept for the next sync to resume")
                throw ExitCode(128 + signal)
            }
            bar.finish()
            // A signal caught after the last download ended still ends the command, as it would have uncaught.
            if let signal = signals.ending { throw ExitCode(128 + signal) }
            if talk {
                for title in report.archived { Output.line("Archived \(title) (finished; keeping \(library.keepFinished ?? 0)).") }
            }
            return report
        }
    }
}
