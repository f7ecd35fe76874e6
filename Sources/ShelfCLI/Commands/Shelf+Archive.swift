import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf archive ID`: remove the local files, keep the loan.
    struct Archive: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "archive",
            abstract: "Delete a title's downloaded files but keep it on loan.",
            discussion: """
                Also clears the files a download left half-way (interrupted, or killed while Downloading): the \
                title stays where it was. Refused while `shelf listen` plays the title, unless --force.

                The title stays archived: neither the downloads at the end of a sync (whatever the library's \
                --auto-download, --keep or --max-size) nor `shelf download --all` fetch it again, and an update \
                of it by the publisher is an event, not a download. `shelf download ID` takes it back, and the \
                loan ending (returned, expired) ends the mark.
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
