import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf queue`: the download queue.
    struct Queue: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "queue",
            abstract: "Show and reorder the download queue.",
            discussion: "`shelf download ID` and `shelf download --all` add to the queue; a title leaves it when it is downloaded.",
            subcommands: [Show.self, Move.self, Remove.self],
            defaultSubcommand: Show.self)
    }
}

extension Shelf.Queue {
    /// `shelf queue show`.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "List the queue in order.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                let entries = try DownloadQueue(store: store, library: try store.library(named: global.library)).entries()
                if output.json { return try Output.json(entries) }
                guard !entries.isEmpty else {
                    if !global.quiet { Output.line("The download queue is empty.") }
                    return
                }
                Output.table(
                    ["#", "ID", "TITLE", "PRIORITY", "STATE", "PARTS", "LAST ERROR"],
                    entries.map { entry in
                        [String(entry.position), entry.shortID, entry.title, entry.priority.rawValue, entry.state.label,
                         entry.parts == 0 ? "-" : "\(entry.partsDone)/\(entry.parts)", entry.lastError ?? ""]
                    })
            }
        }
    }

    /// `shelf queue move ID --top`.
    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "move", abstract: "Move a title in the queue.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The title's id, or a unique part of it.") var id: String
        @Flag(help: "Where to move it.") var place: Place

        enum Place: String, EnumerableFlag {
            case top, bottom, up, down
        }

        func run() throws {
            try withFailureHandling {
                let (store, library, edition) = try global.openEdition(id)
                let queue = DownloadQueue(store: store, library: library)
                try queue.move(edition, QueueMove(rawValue: place.rawValue)!)
                if !global.quiet {
                    let entries = try queue.entries()
                    if let entry = entries.first(where: { $0.id == edition.entryID }) {
                        Output.line("\(entry.title) is now #\(entry.position) of \(entries.count).")
                    }
                }
            }
        }
    }

    /// `shelf queue remove ID`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Take a title out of the queue (its files stay).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The title's id, or a unique part of it.") var id: String

        func run() throws {
            try withFailureHandling {
                let (store, library, edition) = try global.openEdition(id)
                let removed = try DownloadQueue(store: store, library: library).remove(edition)
                if !global.quiet {
                    Output.line(removed ? "Removed from the download queue."
                        : "\(try store.summary(of: edition).title) was not in the download queue.")
                }
            }
        }
    }
}
