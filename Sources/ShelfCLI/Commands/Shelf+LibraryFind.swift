import ArgumentParser
import Foundation
import ShelfCore

/// The libraries the last `shelf library find` listed, numbered as it listed them.
struct FoundLibraries: Codable {
    var registry: String
    var libraries: [RegistryLibrary]

    static func load(_ home: Home) -> FoundLibraries? {
        guard let data = try? Data(contentsOf: home.foundLibraries) else { return nil }
        return try? JSONDecoder().decode(FoundLibraries.self, from: data)
    }

    func save(_ home: Home) throws {
        try home.prepare()
        try JSONEncoder().encode(self).write(to: home.foundLibraries, options: .atomic)
    }
}

extension GlobalOptions {
    /// The registry `library find` asks: `--registry`, else the one `shelf library registry URL` kept, else Palace's.
    func registry(_ given: String?) throws -> LibraryRegistry {
        let kept = try? openStore().setting(LibraryRegistry.setting)
        let address = given ?? kept ?? LibraryRegistry.defaultURL.absoluteString
        guard let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("not an http(s) URL: '\(address)'")
        }
        return LibraryRegistry(url: url, http: HTTPClient(configuration: httpConfiguration))
    }
}

extension Shelf.LibraryCommand {
    /// `shelf library find [NAME] [--near PLACE]`.
    struct Find: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "find",
            abstract: "Find your library in a library registry, with its catalog and how it signs you in.",
            discussion: """
                Asks the Palace library registry (https://registry.palaceproject.io/libraries, the one the Palace \
                apps use; another with --registry URL or `shelf library registry URL`). NAME is searched for as \
                the registry searches: names, places, postcodes and descriptions. --near LAT,LON lists the \
                libraries near that point (the registry's own nearby list, at most five within 150 km); --near \
                PLACE searches for the place's name. With neither, every library the registry lists.

                Each library is shown with its catalog's URL and the sign-in methods its Authentication document \
                lists (read for the first 25 found), and whether shelf can use one. Add one with \
                `shelf library add NAME --from-registry N`, N being its number here (or its registry id).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "Part of the library's name (or its town, or postcode).") var name: String?
        @Option(name: .long, help: ArgumentHelp("Libraries near a place: LAT,LON or a place name.", valueName: "place"))
        var near: String?
        @Option(name: .long, help: ArgumentHelp("The registry's list of libraries.", valueName: "url"))
        var registry: String?

        func run() throws {
            try withFailureHandling {
                let registry = try global.registry(registry)
                let found = registry.describeSignIn(try registry.find(name: name, near: near))
                try FoundLibraries(registry: registry.url.absoluteString, libraries: found).save(global.resolvedHome)
                if output.json { return try Output.json(found) }
                guard !global.quiet else { return }
                if found.isEmpty {
                    let asked = [name, near].compactMap { $0 }.joined(separator: " near ")
                    Output.line("No library found\(asked.isEmpty ? "" : " for \"\(asked)\"") in \(Redaction.url(registry.url.absoluteString)).")
                    return
                }
                Output.line("\(found.count) librar\(found.count == 1 ? "y" : "ies") in \(Redaction.url(registry.url.absoluteString)):")
                let width = String(found.count).count
                for (index, library) in found.enumerated() {
                    let number = String(repeating: " ", count: width - String(index + 1).count) + "\(index + 1)"
                    let place = [library.areaServed, library.distance].compactMap { $0 }.joined(separator: ", ")
                    Output.line("")
                    Output.line("\(number)  \(Output.bold(library.name))" + (place.isEmpty ? "" : "  (\(place))"))
                    let indent = String(repeating: " ", count: width + 2)
                    Output.line(indent + "catalog  " + (library.catalogURL ?? "none listed: it cannot be added"))
                    Output.line(indent + "sign-in  " + Self.signIn(library))
                    Output.line(indent + "id       " + library.id)
                }
                Output.line("")
                let first = found.firstIndex { $0.catalogURL != nil && $0.signInUsable == true }.map { $0 + 1 } ?? 1
                Output.line("Add one: shelf library add NAME --from-registry \(first)")
            }
        }

        static func signIn(_ library: RegistryLibrary) -> String {
            if let problem = library.signInProblem { return "not known: \(problem)" }
            guard let methods = library.signIn else { return "not read (only the first 25 are): find it by name" }
            if methods.isEmpty { return "none needed" }
            // Basic and basic-token read the same to a patron: a card and PIN.
            var unique: [String] = []
            for method in methods where !unique.contains(method) { unique.append(method) }
            return unique.joined(separator: "; ") + (library.signInUsable == false ? " (none of which shelf can use)" : "")
        }
    }

    /// `shelf library registry [URL | --reset]`.
    struct Registry: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "registry",
            abstract: "Show or set the library registry `shelf library find` asks.",
            discussion: "Kept for this home. --reset goes back to the Palace registry the apps use.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The registry's list of libraries (…/libraries).") var url: String?
        @Flag(name: .long, help: "Go back to the Palace library registry.") var reset = false

        func validate() throws {
            if reset && url != nil { throw ValidationError("give a URL or --reset, not both") }
            if let url {
                guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                      parsed.host != nil
                else { throw ValidationError("not an http(s) URL: '\(url)'") }
            }
        }

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                if reset { try store.setSetting(LibraryRegistry.setting, to: LibraryRegistry.defaultURL.absoluteString) }
                if let url { try store.setSetting(LibraryRegistry.setting, to: url) }
                let current = try store.setting(LibraryRegistry.setting) ?? LibraryRegistry.defaultURL.absoluteString
                guard !global.quiet else { return }
                Output.line("Library registry: \(Redaction.url(current))"
                    + (current == LibraryRegistry.defaultURL.absoluteString ? " (the Palace registry)" : ""))
            }
        }
    }
}
