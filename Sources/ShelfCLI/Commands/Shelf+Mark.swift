import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf mark ID --played | --new`.
    struct Mark: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mark",
            abstract: "Mark an audiobook as played, or as new.",
            discussion: """
                --played marks it finished (100%); --new forgets this computer's position, so it starts from the \
                beginning. Only the store here changes: nothing is sent to the library.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The title's id, or a unique part of it.") var id: String
        @Flag(name: .long, help: "Mark it finished.") var played = false
        @Flag(name: .long, help: "Mark it new: forget this computer's position.") var new = false

        func validate() throws {
            if played == new { throw ValidationError("give exactly one of --played and --new") }
        }

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                let edition = try global.resolve(id, store: store, library: library)
                let title = try store.summary(of: edition).title
                try store.mark(edition, as: played ? .finished : .new)
                if !global.quiet { Output.line(played ? "Marked \(title) as played." : "Marked \(title) as new.") }
            }
        }
    }
}
