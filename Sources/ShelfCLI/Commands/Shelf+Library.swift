import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf library add|list|remove|default`.
    struct LibraryCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "library",
            abstract: "Add, list and remove libraries.",
            subcommands: [Add.self, ListLibraries.self, Remove.self, Default.self],
            defaultSubcommand: ListLibraries.self
        )
    }
}

extension Shelf.LibraryCommand {
    /// `shelf library add NAME URL`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a library by the URL of its OPDS catalog.",
            discussion: "The first library added becomes the default. Run `shelf sync` afterwards.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "A short name for the library (letters, digits, - and _).") var name: String
        @Argument(help: "The URL of the library's OPDS catalog (http or https).") var url: String
        @Flag(name: .customLong("default"), help: "Make it the default library.") var makeDefault = false

        func validate() throws {
            guard name.range(of: "^[A-Za-z0-9_-]{1,40}$", options: .regularExpression) != nil else {
                throw ValidationError("library names are 1-40 letters, digits, '-' or '_': '\(name)'")
            }
            guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
                scheme == "http" || scheme == "https", parsed.host != nil
            else {
                throw ValidationError("not an http(s) URL: '\(url)'")
            }
        }

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                let library = try store.addLibrary(name: name, url: URL(string: url)!, makeDefault: makeDefault)
                if !global.quiet {
                    Output.line("Added \(library.name) (\(library.url))\(library.isDefault ? ", the default library" : ""). Next: shelf sync")
                }
            }
        }
    }

    /// `shelf library list`.
    struct ListLibraries: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the libraries.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try withFailureHandling {
                let libraries = try global.openStore().libraries()
                if output.json { return try Output.json(libraries) }
                if libraries.isEmpty {
                    Output.line("No libraries yet: shelf library add NAME URL (or try: shelf demo)")
                    return
                }
                Output.table(
                    ["NAME", "DEFAULT", "LAST SYNC", "URL"],
                    libraries.map { library in
                        [library.name, library.isDefault ? "*" : "",
                         library.lastSyncAt.map { Output.timestamp($0) + " " + (library.lastSyncStatus ?? "") } ?? "never",
                         library.url]
                    })
            }
        }
    }

    /// `shelf library remove NAME`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a library and everything shelf stored for it.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The library's name.") var name: String

        func run() throws {
            try withFailureHandling {
                try global.openStore().removeLibrary(name: name)
                if !global.quiet { Output.line("Removed \(name).") }
            }
        }
    }

    /// `shelf library default NAME`.
    struct Default: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default", abstract: "Make a library the default for commands without --library.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The library's name.") var name: String

        func run() throws {
            try withFailureHandling {
                try global.openStore().setDefaultLibrary(name: name)
                if !global.quiet { Output.line("\(name) is now the default library.") }
            }
        }
    }
}
