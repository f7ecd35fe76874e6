import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf sync`: fetch every page of the catalog, diff, store.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Fetch the library's catalog and bring the local store up to date.",
            discussion: Help.sync)

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

        @Option(name: .customLong("max-pages"), help: ArgumentHelp(
            "The most pages sync reads of one feed (default \(SyncOptions.defaultMaxPages)).", valueName: "n"))
        var maxPages = SyncOptions.defaultMaxPages

        @OptionGroup var bounds: PartBoundOptions

        @Flag(name: .customLong("no-download"), help: "Download nothing, whatever the libraries' download policy.")
        var noDownload = false

        @Flag(name: .long, help: "Send each new event as a desktop notification (freedesktop, on the session bus).")
        var notify = false

        func validate() throws {
            if all && global.library != nil { throw ValidationError("give --all or --library, not both") }
            if wait < 0 { throw ValidationError("--wait must not be negative") }
            try crawl.validate()
            if !(1...1_000_000).contains(maxPages) { throw ValidationError("--max-pages must be 1 to 1000000") }
            try bounds.validate()
        }

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                let libraries = try global.library.map { [try store.library(named: $0)] } ?? store.libraries()
                guard !libraries.isEmpty else { throw StoreError.noLibrary }
                var settings = RefreshSettings()
                (settings.sync.lockTimeout, settings.sync.acceptEmptyLoans, settings.sync.honourBackoff) = (wait, acceptEmptyLoans, !now)
                (settings.sync.crawlDepth, settings.sync.crawlFeeds) = (crawl.crawlDepth, crawl.crawlFeeds)
                settings.sync.maxPages = maxPages
                bounds.apply(to: &settings.download)
                (settings.sync.log, settings.sync.http.log, settings.download.log) = (global.logger, global.logger, global.logger)
                (settings.noDownload, settings.notify, settings.watchSignals) = (noDownload, notify, true)
                settings.attended = !global.quiet && !output.json
                let refresh = LibraryRefresh(store: store, home: global.resolvedHome, settings: settings)
                let talk = !global.quiet && !output.json
                let bar = ProgressBar(enabled: talk && Output.useColor)
                if talk { refresh.progress = { bar.show($0) } }
                refresh.notifier = { EventTeller.notify($0, store: store, home: global.resolvedHome) }
                let summaries = try RefreshPrinter(talk: talk, json: output.json)
                    .run(libraries, refresh, bar: bar, quiet: global.quiet)
                if output.json && !global.quiet { try Output.json(summaries) }
            }
        }
    }
}
