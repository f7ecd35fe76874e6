import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf sync`: fetch every page of the catalog, diff, store.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
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
                up to 5 times within 2 minutes. A library that keeps failing is backed off across runs: after its \
                second failure in a row it is not tried again for 30 minutes, doubling up to a day, and a sync \
                meanwhile skips it with one line and exit status 0. --now tries at once. Under --quiet only the \
                first failure and the first success after failures are printed.
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
                        let summary = try engine.sync(library)
                        summaries.append(summary)
                        if !global.quiet && !output.json {
                            for warning in summary.warnings { Output.error("shelf: warning: \(library.name): \(warning)") }
                            let prefix = libraries.count > 1 ? "\(library.name): " : ""
                            Output.line(prefix + summary.line)
                            if summary.positionsPushed > 0 {
                                let count = summary.positionsPushed
                                Output.line("\(prefix)Pushed \(count) listening position\(count == 1 ? "" : "s")")
                            }
                            for notice in summary.notices {
                                Output.line("\(prefix)\(notice.title): \(notice.message)")
                            }
                        }
                        // Cron (--quiet) mailed the first failure, so it hears of the recovery too; at a terminal the
                        // summary line says it worked, and a recovery is worth a line only after a run of failures.
                        if let transition = summary.transition, !output.json, let line = Self.line(transition, library.name),
                            global.quiet || transition.failuresBefore >= 2
                        {
                            Output.line(line)
                        }
                    } catch SyncError.backingOff(let name, let until, let failures, let reason) {
                        // Not a failure of this run: cron every 30 minutes stays quiet until the library is due.
                        let skipped = SyncError.backingOff(library: name, until: until, failures: failures, reason: reason)
                        if !global.quiet && !output.json { Output.line("Skipped: \(skipped.description)") }
                    } catch let failure as ShelfFailure {
                        let prefix = libraries.count > 1 ? "\(library.name): " : ""
                        // Under --quiet a library already known to be failing says nothing more until it recovers.
                        let news = engine.lastTransition?.isNews ?? true
                        if !global.quiet || news { Output.error("shelf: \(prefix)\(failure.description)") }
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
        static func line(_ transition: FailureTransition, _ library: String) -> String? {
            guard case .recovered(let failures, let since) = transition else { return nil }
            return "\(library): syncing works again, after \(failures) failed sync\(failures == 1 ? "" : "s") since "
                + SyncError.localTime(since)
        }
    }
}
