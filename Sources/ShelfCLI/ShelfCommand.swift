import ArgumentParser
import Foundation
import ShelfCore

/// The root `shelf` command: lists the subcommands, git-style.
public struct Shelf: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelf",
        abstract: "Sync and play public-library audiobooks from OPDS catalogs.",
        discussion: """
            shelf keeps a patron's library catalog, loans and holds in a local SQLite store, from the \
            library's OPDS 1.2 feeds. Add a library once, then run `shelf sync` by hand or from cron.

            JSON OUTPUT
            Commands that take --json print one JSON document on standard output. When such a command fails \
            (its command line included), that document is an object {"error": "<the message>", "exit": <the exit \
            status>} instead, and the message is also printed on standard error as usual. When some of the work \
            was done before the failure (`shelf sync` of several libraries, `shelf download` of several titles), \
            the object also holds those results, under "synced" or "downloads".

            EXIT STATUS
            \(ExitStatusTable.text)

            LIMITS
            shelf bounds the work one document from a server may ask of it. A document past one of these limits \
            is refused with a line that names the limit, and nothing from it is stored: a catalog page, manifest, \
            fulfilment token or sign-in document exits 65, an annotation list is ignored with a warning, and an \
            error's problem document is not quoted.
            \(InputLimit.manualText)

            Time is bounded too. A request other than an audiobook part's is cut off when it moves less than 512 \
            bytes a second for 30 seconds, or after 10 minutes in all; a catalog page, manifest or token is tried \
            at most 5 times within 2 minutes, the attempts' own time included. A redirect to anything but http or https is never \
            followed. A part's bounds of size, rate and time are options of `shelf download` (shelf-download(1)).
            """,
        version: ShelfVersion.current,
        subcommands: [
            LibraryCommand.self,
            Demo.self,
            Sync.self,
            Browse.self,
            Search.self,
            List.self,
            Show.self,
            Status.self,
            Login.self,
            Logout.self,
            Borrow.self,
            Reserve.self,
            Return.self,
            Loans.self,
            Holds.self,
            Download.self,
            Queue.self,
            Archive.self,
            Listen.self,
            Export.self,
            Position.self,
            Stats.self,
            Bookmarks.self,
            Mark.self,
            Schedule.self,
            Doctor.self,
            Events.self,
            FollowCommand.self,
            Unfollow.self,
            Following.self,
            News.self,
        ]
    )

    public init() {}
}

/// The entry point `Sources/shelf/main.swift` calls.
public enum ShelfProgram {
    /// Parses the command line and runs the command; exits the process.
    public static func main() async {
        ProcessSetUp.apply()
        // As `Shelf.main()`, but an error under --json is a JSON object too (shelf(1), JSON OUTPUT).
        do {
            var command = try await Shelf.asyncParseAsRoot(nil)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if let help = RootHelp.reordered(Shelf.fullMessage(for: error)), Shelf.exitCode(for: error) == .success {
                print(help)
                Foundation.exit(0)
            }
            FailureReport.exit(Shelf.self, withError: error)
        }
    }
}

/// `shelf --help` with the subcommands where a reader looks for them: after the overview's first paragraph, the
/// usage and the options, and before the long reference sections (JSON output, exit status, limits) that the man
/// page also holds.
enum RootHelp {
    /// The root help reordered, or nil for any other message.
    static func reordered(_ help: String) -> String? {
        guard help.hasPrefix("OVERVIEW: \(Shelf.configuration.abstract)"),
            let reference = help.range(of: "\n\nJSON OUTPUT\n"), let usage = help.range(of: "\nUSAGE: "),
            reference.lowerBound < usage.lowerBound
        else { return nil }
        let overview = help[..<reference.lowerBound]
        let long = help[reference.lowerBound..<usage.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        let rest = help[usage.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines)
        return overview + "\n\n" + rest + "\n\n" + long
    }
}
