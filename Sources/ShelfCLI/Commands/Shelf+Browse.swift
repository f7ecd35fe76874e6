import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf browse [PATH]`: one page of the library's own catalog.
    struct Browse: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browse",
            abstract: "Browse the library's catalog: its sections, lanes, facets and books.",
            discussion: """
                Without PATH, shows the catalog's start page. Everything that leads on (a section, a lane of a \
                groups page, a facet) is numbered, in the order the library lists it: sections, then lanes, then \
                facets. PATH follows those numbers from the start, one level per '/': `shelf browse 2` opens item \
                2, `shelf browse 2/1` item 1 of that page. A level may also be an item's title or the start of it, \
                ignoring case (`shelf browse "By Authors"/a`). A path stays good as long as the library lists \
                things in the same order. PATH may also be a URL of the library's own catalog (on the library's \
                host: your sign-in goes only there).

                The books a page shows are stored at once, so `shelf show`, `borrow`, `reserve` and `download` take \
                their ids without a sync. `shelf list` shows such a title once a sync finds it in the catalog or \
                once you borrow, reserve or download it; a sync forgets the others 30 days after a browse or \
                search last showed them.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        @Argument(help: ArgumentHelp(
            "Item numbers or title starts separated by '/', or a URL of the library's catalog.", valueName: "path"))
        var path: String?

        @Option(name: .long, help: ArgumentHelp("Show this page of a feed of several pages.", valueName: "n"))
        var page = 1

        func validate() throws {
            if page < 1 { throw ValidationError("--page counts from 1") }
        }

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                let browser = try CatalogBrowser(
                    store: store, home: global.resolvedHome, library: library, configuration: global.httpConfiguration)
                let result = try browser.browse(CatalogLocation(path), page: page)
                if output.json { return try Output.json(result) }
                CatalogPrinter(page: result).print()
            }
        }
    }
}

/// Lays out a catalog page: title, sections, lanes with a few of their books, the books, facets by group, and
/// how to go on.
struct CatalogPrinter {
    let page: CatalogPage
    /// Books shown under each lane; the lane's own page has them all.
    static let perLane = 3

    func print() {
        Output.line(Output.bold(page.title) + (page.page > 1 ? " (page \(page.page))" : ""))
        if !page.navigation.isEmpty {
            section("Sections")
            for item in page.navigation { Output.line(Self.numbered(item)) }
        }
        if !page.lanes.isEmpty {
            section("Lanes")
            for lane in page.lanes {
                Output.line(Self.numbered(lane.item))
                for edition in lane.publications.prefix(Self.perLane) {
                    let author = edition.authors.isEmpty ? "" : " — \(edition.authors)"
                    let availability = edition.circulation.isEmpty ? "" : " (\(edition.circulation))"
                    Output.line("        \(edition.shortID)  \(edition.title)\(author)\(availability)")
                }
                if lane.publications.count > Self.perLane {
                    Output.line(Output.dim("        and \(lane.publications.count - Self.perLane) more"))
                }
            }
        }
        if !page.publications.isEmpty {
            section("Books")
            PublicationTable.print(page.publications)
        }
        if !page.facets.isEmpty {
            section("Facets")
            var group: String??
            for facet in page.facets {
                if group != .some(facet.group) {
                    group = .some(facet.group)
                    Output.line("  " + (facet.group ?? "Other"))
                }
                Output.line("  " + Self.numbered(facet) + (facet.active ? "  (current)" : ""))
            }
        }
        if page.items.isEmpty && page.publications.isEmpty {
            Output.line()
            Output.line("Nothing here.")
        }
        let command = page.path.isEmpty ? "shelf browse" : "shelf browse \(Self.quoted(page.path))"
        var hints: [String] = []
        if page.next != nil { hints.append("More: \(command) --page \(page.page + 1)") }
        if !page.items.isEmpty && !page.path.contains("://") {
            hints.append("Go on: shelf browse \(page.path.isEmpty ? "" : page.path + "/")N")
        }
        if !hints.isEmpty {
            Output.line()
            for hint in hints { Output.line(Output.dim(hint)) }
        }
    }

    private func section(_ name: String) {
        Output.line()
        Output.line(Output.bold(name))
    }

    /// `   3  Fiction (120)`.
    static func numbered(_ item: CatalogItem) -> String {
        let number = String(item.number)
        return String(repeating: " ", count: max(0, 4 - number.count)) + number + "  " + item.title
            + (item.count.map { " (\($0))" } ?? "")
    }

    /// A URL path is quoted for the shell when it holds `&` or `?`.
    static func quoted(_ path: String) -> String {
        path.contains(where: { "&?;' ".contains($0) }) ? "'\(path.replacingOccurrences(of: "'", with: "'\\''"))'" : path
    }
}

/// The books of a browse page or a search, as `shelf list` shows titles.
enum PublicationTable {
    static func print(_ editions: [EditionSummary]) {
        Output.table(
            ["ID", "TITLE", "AUTHOR", "TYPE", "AVAILABILITY"],
            editions.map { [$0.shortID, $0.title, $0.authors, $0.kind, $0.circulation] })
    }
}
