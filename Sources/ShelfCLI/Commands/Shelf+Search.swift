import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf search TERMS…`: the library's own search.
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search the library's catalog.",
            discussion: """
                Uses the search the catalog's start page links: an OpenSearch description, a template with \
                {searchTerms} in the link itself (calibre), or an OPDS 2 templated link. Shows the results as \
                `shelf list` does, reading at most \(CatalogBrowser.maxSearchPages) pages of them. The results are \
                stored at once, so `shelf show`, `borrow`, `reserve` and `download` take their ids without a sync \
                (see `shelf browse --help` for how long they are kept). A library whose catalog offers no search \
                says so, with exit status \(ShelfExit.noSearch.rawValue).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        @Argument(help: ArgumentHelp("What to look for: words of a title, an author, a subject.", valueName: "terms"))
        var terms: [String] = []

        @Flag(name: .long, help: "Only titles that can be had now: free, open access, or with a copy to borrow.")
        var available = false

        func validate() throws {
            if query.isEmpty { throw ValidationError("say what to search for: shelf search TERMS…") }
        }

        private var query: String {
            terms.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                let browser = try CatalogBrowser(
                    store: store, home: global.resolvedHome, library: library, configuration: global.httpConfiguration)
                let results = try browser.search(query, availableOnly: available)
                if output.json { return try Output.json(results) }
                if results.publications.isEmpty {
                    if !global.quiet {
                        Output.line("No titles match \"\(results.terms)\"\(available && results.unavailable > 0 ? " that can be had now" : "").")
                    }
                    return
                }
                PublicationTable.print(results.publications)
                guard !global.quiet else { return }
                var notes: [String] = []
                if results.unavailable > 0 { notes.append("\(results.unavailable) not available now left out") }
                if results.more { notes.append("more results than shelf reads: narrow the search") }
                if !notes.isEmpty { Output.line(Output.dim(notes.joined(separator: "; "))) }
            }
        }
    }
}
