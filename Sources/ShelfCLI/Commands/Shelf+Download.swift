import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf download ID`: fetch a borrowed or open-access audiobook's parts.
    struct Download: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download a borrowed or open-access audiobook.",
            discussion: Help.download)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The title's id, or a unique part of it.") var id: String?

        @Flag(name: .long, help: "Download every loan not downloaded yet, in queue order.")
        var all = false

        @Option(name: .long, help: ArgumentHelp("high puts the title at the top of the queue.", valueName: "priority"))
        var priority = "normal"

        @Option(name: .long, help: ArgumentHelp("Connections at once: parts, or byte ranges of a large part.", valueName: "n"))
        var parallel = 4

        @Option(name: .customLong("limit-rate"), help: ArgumentHelp(
            "Total download speed cap, in bytes per second (k and m suffixes allowed).", valueName: "rate"))
        var limitRate: String?

        @Flag(name: .shortAndLong, help: "Do not ask before a large download (over 500 MB).")
        var yes = false

        @OptionGroup var bounds: PartBoundOptions

        func validate() throws {
            guard (id == nil) != !all else { throw ValidationError("give a title's id, or --all") }
            guard ["high", "normal"].contains(priority) else { throw ValidationError("--priority is high or normal") }
            guard (1...16).contains(parallel) else { throw ValidationError("--parallel must be 1 to 16") }
            if let limitRate, ByteCount.rate(limitRate) == nil {
                throw ValidationError("--limit-rate takes a number of bytes per second, like 500k or 2m")
            }
            try bounds.validate()
        }

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                var settings = DownloadSettings()
                (settings.concurrency, settings.perHost, settings.log) = (parallel, parallel, global.logger)
                settings.limitRate = limitRate.flatMap(ByteCount.rate)
                bounds.apply(to: &settings)
                // Ctrl-C or a SIGTERM stops the transfers, puts the title back where it was, then ends with the signal.
                let signals = SignalWatch()
                settings.stopSignal = { signals.ending }
                let run = try DownloadRun(
                    store: store, home: global.resolvedHome, library: library, configuration: global.httpConfiguration,
                    settings: settings, attended: true)
                let bar = ProgressBar(enabled: !global.quiet && !output.json && Output.useColor)
                run.progress = { bar.show($0) }
                if !yes && Prompt.hasTerminal && Output.isTTY {
                    run.confirmLarge = { Prompt.confirm("This download is \($0 / 1_048_576) MB. Download it?") ?? false }
                }
                let named = try id.map { try global.resolve($0, store: store, library: library) }
                let reports = try DownloadPrinter(talk: !global.quiet && !output.json, json: output.json).run(
                    run, named: named, priority: QueuePriority(rawValue: priority) ?? .normal, bar: bar, store: store)
                if output.json { try Output.json(reports) }
            }
        }
    }
}
