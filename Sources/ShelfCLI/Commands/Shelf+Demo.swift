import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf demo`: start the demo library on loopback, add it, sync it, show what arrived.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Try shelf against the embedded demo library.",
            discussion: """
                Starts the demo OPDS library on 127.0.0.1, adds it as a library (or points the existing one \
                at it), runs a sync and lists the titles with their states. With --serve the library keeps \
                running until Ctrl-C, so other shelf commands can be tried against it from another terminal. \
                The library stays in the store when the demo ends: list and show still work, and the next \
                demo points it at wherever the library then listens. The demo library is the \
                shelf-demo-library program installed beside shelf.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(name: .long, help: ArgumentHelp("The name to add the demo library under.", valueName: "name"))
        var name = "demo"

        /// How long each part (a chapter) of the demo's audiobooks plays: long enough to try `shelf listen` on
        /// (books of 5 to 10 minutes), short enough that the library makes its audio in a few seconds.
        static let partSeconds = 150

        /// A fixed port keeps the demo's links the same from run to run, so a second run shows no changes.
        static let defaultPort = 8469

        @Option(name: .long, help: ArgumentHelp(
            "Port on 127.0.0.1 (0 picks a free one; when the default \(Self.defaultPort) is taken, a free one is used).",
            valueName: "port"))
        var port = Self.defaultPort

        @Flag(name: .long, help: "Keep the demo library running after the sync, until Ctrl-C.")
        var serve = false

        func validate() throws {
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
            if global.library != nil { throw ValidationError("use --name to name the demo library") }
        }

        func run() throws {
            try withFailureHandling {
                // The library is a program of its own, so shelf itself never links an HTTP server.
                let library = try DemoLibraryProcess.start(
                    port: port, orFreePort: port == Self.defaultPort, partSeconds: Self.partSeconds)
                if !serve {
                    defer { library.stop() }
                    try showcase(library.url)
                    return
                }
                // Its first sync runs once the library accepts connections, then it serves until Ctrl-C.
                let signals = library.catchStopSignals()
                do {
                    try showcase(library.url)
                    Output.line()
                    Output.line("The demo library is at \(library.url) — press Ctrl-C to stop it.")
                    Output.line("Try: shelf show 7d3c0001 · shelf list --available · shelf sync")
                    Output.line("Its library registry, as a patron finds a library: "
                        + "shelf library find --registry \(library.url.absoluteString)registry/libraries")
                } catch {
                    report(error)
                }
                // Standard output may be a pipe, which holds what was printed until it is flushed.
                fflush(nil)
                try library.serveUntilInterrupted(signals)
            }
        }

        /// Adds (or re-points) the library, syncs, and prints the titles and the status.
        private func showcase(_ url: URL) throws {
            let home = global.resolvedHome
            let store = try global.openStore()
            if (try? store.library(named: name)) != nil {
                try store.setLibraryURL(name: name, url: url)
            } else {
                try store.addLibrary(name: name, url: url)
            }
            let library = try store.library(named: name)
            var options = SyncOptions()
            options.log = global.logger
            options.http.log = global.logger
            let summary = try SyncEngine(store: store, home: home, options: options).sync(library)
            if global.quiet { return }
            Output.line("Demo library \(name) at \(url): synced \(summary.pages) pages — \(summary.line).")
            Output.line()
            let editions = try store.editions(of: library)
            Output.table(
                ["ID", "TITLE", "AUTHOR", "TYPE", "STATE", "AVAILABILITY"],
                editions.map { [$0.shortID, $0.title, $0.authors, $0.kind, $0.state.label, $0.circulation] })
            Output.line()
            let report = try store.status(of: library)
            Output.line("States: " + LifecycleState.allCases.map { "\($0.label) \(report.states[$0.rawValue] ?? 0)" }
                .joined(separator: " · "))
            Output.line("Data in \(home.directory.path). Next: shelf show \(editions.first?.shortID ?? "ID") · shelf status")
        }

        private func report(_ error: any Error) {
            if let failure = error as? ShelfFailure {
                Output.error("shelf: \(failure.description)")
            } else {
                Output.error("shelf: \(error)")
            }
        }
    }
}
