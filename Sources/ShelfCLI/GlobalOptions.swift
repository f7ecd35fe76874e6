import ArgumentParser
import Foundation
import ShelfCore

/// Options every command shares.
package struct GlobalOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: ArgumentHelp("Directory for shelf's data (default: $SHELF_HOME, else $XDG_DATA_HOME/shelf).", valueName: "dir"))
    package var home: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("The library to use (default: the default library).", valueName: "name"))
    package var library: String?

    @Flag(name: .shortAndLong, help: "Print nothing on success.")
    package var quiet = false

    @Flag(name: .shortAndLong, help: "Print what shelf is doing (never credentials) on standard error.")
    package var verbose = false

    package var resolvedHome: Home { Home.resolve(explicit: home) }

    /// Opens the store, turning failures into a message and an exit status.
    /// Every command first ends the loans whose time is up and clears their files, offline too (one cheap query
    /// when none has); a failure there never stops the command.
    package func openStore() throws -> Store {
        let store = try Store(home: resolvedHome)
        if store.restoredLibraries > 0 && !quiet {
            let count = store.restoredLibraries
            FileHandle.standardError.write(Data((
                "shelf: note: the catalog database \(resolvedHome.database.path) was missing; \(count) "
                + "librar\(count == 1 ? "y" : "ies") and their settings came back from \(resolvedHome.libraryMirror.lastPathComponent): "
                + "`shelf sync` fetches their catalogs\n").utf8))
        }
        _ = try? store.expireLoans(home: resolvedHome)
        return store
    }

    /// The store and the library the command acts on (`--library`, else the default one).
    package func openLibrary() throws -> (Store, Library) {
        let store = try openStore()
        return (store, try store.library(named: library))
    }

    /// Opens the store and resolves the title the patron named, once, at the command's edge.
    package func openEdition(_ query: String) throws -> (Store, Library, EditionRef) {
        let (store, library) = try openLibrary()
        return (store, library, try resolve(query, store: store, library: library))
    }

    /// Finds a title by the id given, saying so on standard error (unless --quiet) when the id also names another.
    package func resolve(_ query: String, store: Store, library: Library) throws -> EditionRef {
        let (edition, note) = try store.resolveEditionNoting(query, in: library)
        if let note, !quiet { FileHandle.standardError.write(Data("shelf: note: \(note)\n".utf8)) }
        return edition
    }

    /// HTTP settings for this command: `-v` logs requests (never credentials).
    package var httpConfiguration: HTTPConfiguration {
        var configuration = HTTPConfiguration()
        configuration.log = logger
        return configuration
    }

    /// A logger for `-v`, or nil.
    package var logger: (@Sendable (String) -> Void)? {
        guard verbose else { return nil }
        return { line in Output.error("shelf: \(line)") }
    }
}

/// `--json` for listings.
struct JSONOption: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false
}
