import ArgumentParser
import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// `shelf-listen --export`: the exporter behind `shelf export`, in this program so that only it loads FFmpeg.
public struct ExportCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelf export",
        abstract: ExportArguments.abstract,
        discussion: ExportArguments.discussion,
        version: ShelfVersion.current)

    @OptionGroup var arguments: ExportArguments

    public init() {}

    /// Checks the title, fetches its cover when needed, writes the m4b and says what it wrote.
    public func run() throws {
        let arguments = self.arguments
        let signals = SignalWatch()
        try withFailureHandling {
            let (store, library, edition) = try arguments.global.openEdition(arguments.id)
            let export = try BookExport(
                store: store, library: library, home: arguments.global.resolvedHome, edition: edition,
                target: URL(fileURLWithPath: arguments.m4b), force: arguments.force)
            let talk = !arguments.global.quiet && !arguments.json
            // The library's own settings: a cover on a server that asks for a plain HTTP login gets it.
            let http = try LibrarySession(
                library: library, credentialStore: CredentialStore(home: arguments.global.resolvedHome),
                configuration: arguments.global.httpConfiguration).configuration
            let cover = arguments.noCover ? (file: nil, note: nil) : export.cover(configuration: http)
            if talk, let note = cover.note { Output.error("shelf: \(note)") }
            let progress = ExportProgress(title: export.source.title, enabled: talk)
            let result: M4BExport
            do {
                result = try export.run(cover: cover.file, progress: progress.show, stopSignal: { signals.ending })
                progress.finish()
            } catch let interrupted as BookExport.Interrupted {
                progress.finish()
                Output.error("shelf: export interrupted; \(export.target.path) was not written")
                throw ExitCode(128 + interrupted.signal)
            } catch {
                progress.finish()
                throw error
            }
            if arguments.json {
                try Output.json(result)
            } else if !arguments.global.quiet {
                Output.line(BookExport.summary(result, title: export.source.title))
            }
        }
    }
}
