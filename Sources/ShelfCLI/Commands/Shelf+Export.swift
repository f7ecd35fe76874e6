import ArgumentParser
import Foundation
import ShelfCore

/// What `shelf export` takes. `shelf export` checks them and hands over to `shelf-listen --export`, which writes
/// the file: only that program links FFmpeg, so `shelf` itself never loads it.
package struct ExportArguments: ParsableArguments {
    package init() {}

    @OptionGroup package var global: GlobalOptions
    @Argument(help: "The title's id, or a unique part of it.") package var id: String

    @Option(name: .long, help: ArgumentHelp("The m4b file to write.", valueName: "file"))
    package var m4b: String

    @Flag(name: .long, help: "Replace the file if it exists.")
    package var force = false

    @Flag(name: .customLong("no-cover"), help: "Leave the cover out (and do not fetch it from the library).")
    package var noCover = false

    @Flag(name: .long, help: "Print the result as JSON.")
    package var json = false

    package func validate() throws {
        if m4b.isEmpty { throw ValidationError("--m4b takes the name of the file to write") }
        if m4b.hasSuffix("/") { throw ValidationError("--m4b takes a file name, not a directory") }
    }

    /// The first argument that makes `shelf-listen` export instead of play (no title id starts with `--`).
    package static let programFlag = "--export"

    /// The summary both programs show.
    package static let abstract = "Write a downloaded audiobook as one .m4b file with its chapters."

    /// The help both programs show.
    package static let discussion = """
        Joins the title's downloaded parts into one m4b (MPEG-4 audio) file that other players and devices \
        read: its chapters (as `shelf listen` shows them, at their places across the parts), title, author, \
        narrator (as the composer), album, genre Audiobook, year, and the cover when there is one. When \
        every part is AAC with the same setup, the audio is copied as it is, without re-encoding; otherwise \
        (MP3 parts, mixed formats) it is encoded with FFmpeg's AAC encoder at 64 kb/s per channel.

        The cover is taken from beside the parts if it is there, else fetched once from the library and kept \
        there (a failure to fetch it is reported and the export goes on without it); --no-cover leaves it out.

        The file appears whole or not at all: it is written to FILE.partial in the same directory and renamed \
        when complete; a failure or an interrupt removes the partial file. An existing FILE is not replaced \
        without --force. A title protected by DRM, or not fully downloaded (run `shelf download` first), is \
        refused. Progress is shown on standard error when it is a terminal; --json prints the result (file, \
        bytes, duration, chapters, method: remuxed or encoded, cover). The work is done by the shelf-listen \
        program installed beside shelf.
        """
}

extension Shelf {
    /// `shelf export ID --m4b FILE`: one m4b with the book's chapters and tags.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: ExportArguments.abstract, discussion: ExportArguments.discussion)

        @OptionGroup var arguments: ExportArguments

        func run() throws {
            try withFailureHandling {
                // Everything after `export`, as given: shelf-listen parses the same arguments.
                let all = CommandLine.arguments
                let rest = all.firstIndex(of: "export").map { Array(all[($0 + 1)...]) } ?? Array(all.dropFirst())
                try SiblingProgram.player.exec(arguments: [ExportArguments.programFlag] + rest)
            }
        }
    }
}
