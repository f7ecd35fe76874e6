import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf show ID`: everything known about one title.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a title's details, availability, allowed actions and history.",
            discussion: """
                ID is the title's Atom id, its short id as shelf list shows it (or the start of that), the end of \
                the id, or any other unique part of it (an ISBN, the start of a UUID). The id, a short id and an \
                end from one of the id's `:` or `/` are looked up in an index; any other end or part is looked for \
                in every id. An id that is one title's whole id and \
                the end of another's (9781488208676 beside urn:isbn:9781488208676) opens the whole match and says \
                so on standard error.

                A downloaded title's cover (kept with its files) is drawn above its details on a terminal: as an \
                image where the terminal shows them (kitty, sixel), else in coloured characters, by Debian's chafa. \
                Never on a pipe or a dumb terminal, nor with NO_COLOR, --no-cover or SHELF_COVER=off \
                (SHELF_COVER=symbols, kitty or sixel chooses the way).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The title's id, or a unique part of it.") var id: String
        @Flag(name: .customLong("no-cover"), help: "Do not draw the cover.") var noCover = false

        func run() throws {
            try withFailureHandling {
                let (store, library, edition) = try global.openEdition(id)
                var detail = try store.edition(edition)
                detail.summary = try store.withHoldWaits([detail.summary], library: library)[0]
                if output.json { return try Output.json(detail) }
                // The table of contents of a downloaded book: the library's, or the one read from its files.
                let book = detail.parts.isEmpty ? nil : try? store.audiobook(edition, home: global.resolvedHome)
                let heard = try? store.sampleHeard(edition)
                if !noCover, !global.quiet,
                    let file = Cover.file(in: global.resolvedHome.files(library: edition.libraryID, edition: edition.rowID)),
                    let art = CoverArt.render(file, columns: 24, rows: 12, mode: CoverArt.mode())
                {
                    FileHandle.standardOutput.write(Data(art.utf8))
                    Output.line(art.hasSuffix("\n") ? "" : "\n")
                }
                DetailPrinter(detail: detail, book: book?.hasTableOfContents == true ? book : nil, sampleHeard: heard ?? nil).print()
            }
        }
    }
}

/// Lays out `shelf show` the way a library app's book page does: title, people, facts, then the story.
struct DetailPrinter {
    let detail: EditionDetail
    /// The downloaded book, when it has a table of contents to list.
    var book: Audiobook?
    /// When the title's sample was last heard.
    var sampleHeard: Date?

    func print() {
        let summary = detail.summary
        Output.line(Output.bold(summary.title))
        if let subtitle = detail.subtitle { Output.line(subtitle) }
        var people: [String] = []
        if !summary.authors.isEmpty { people.append("by \(summary.authors)") }
        if !summary.narrators.isEmpty { people.append("read by \(summary.narrators)") }
        if !people.isEmpty { Output.line(people.joined(separator: " · ")) }
        Output.line()

        var facts: [(String, String)] = []
        facts.append(("Format", summary.medium.capitalized + (summary.isDraft ? " (draft)" : "") + (summary.isPaid ? " (paid)" : "")
            + (summary.protection.map { ", protected by \($0) DRM: shelf cannot play it" } ?? "")))
        if let publisher = detail.publisher { facts.append(("Publisher", publisher)) }
        if let issued = detail.issued { facts.append(("Published", issued)) }
        if let language = detail.language { facts.append(("Language", language)) }
        if let duration = summary.duration { facts.append(("Duration", OPDSDuration.clockString(duration))) }
        if let series = summary.series {
            facts.append(("Series", series.name + (series.position.map { ", book \($0)" } ?? "")))
        }
        if let distributor = detail.distributor { facts.append(("Distributor", distributor)) }
        let genres = detail.categories.map { $0.label ?? $0.term }
        if !genres.isEmpty { facts.append(("Categories", genres.joined(separator: ", "))) }
        let others = detail.contributors.filter { !$0.roles.contains("aut") && !$0.roles.contains("nrt") }
        if !others.isEmpty { facts.append(("Contributors", Self.people(others))) }
        facts.append(("State", summary.state.label + (detail.stateReason.map { " — \($0)" } ?? "")))
        if !summary.circulation.isEmpty { facts.append(("Availability", summary.circulation)) }
        if let wait = summary.holdWait { facts.append(("Wait", "\(wait.text) (\(wait.basis))")) }
        if let copies = summary.copiesTotal {
            facts.append(("Copies", "\(summary.copiesAvailable ?? 0) of \(copies) available, \(summary.holdsTotal ?? 0) on hold"))
        }
        // A sample or preview to hear before borrowing (or joining a long hold).
        if let sample = detail.acquisitions.first(where: { $0.kind == "sample" || $0.kind == "preview" }) {
            let playable = SampleLink(href: sample.href, type: sample.type).content
            let how: String = switch playable {
            case .audio, .manifest: "shelf listen \(summary.shortID) --sample"
            case .protected(let scheme): "protected by \(scheme) DRM: shelf cannot play it"
            case .other: "not audio (\(sample.type ?? "no type")): \(sample.href)"
            }
            facts.append(("Sample", how + (sampleHeard.map { " (heard \(Output.relative($0)))" } ?? "")))
        }
        facts.append(("Actions", summary.actions.isEmpty ? "none" : summary.actions.map(\.rawValue).joined(separator: ", ")))
        if !summary.inCatalog, let removed = detail.removedAt {
            facts.append(("Removed", "no longer in the catalog since \(Output.timestamp(removed))"))
        }
        if let finder = summary.foundBy {
            facts.append(("Found", "by shelf \(finder.rawValue); no sync has seen it in the catalog yet"))
        }
        if let updated = detail.updated { facts.append(("Updated", updated)) }
        facts.append(("Id", summary.id))
        let width = facts.map(\.0.count).max() ?? 0
        for (name, value) in facts {
            Output.line(Output.dim(TextWidth.pad(name, to: width)) + "  " + value)
        }

        if let description = detail.description, !description.isEmpty {
            Output.line()
            for line in PlainText.wrap(description, width: min(Output.terminalWidth() ?? 80, 100)) { Output.line(line) }
        }

        if !detail.acquisitions.isEmpty {
            Output.line()
            Output.line(Output.bold("Acquisition"))
            for acquisition in detail.acquisitions {
                Output.line("  \(acquisition.kind)\(acquisition.price.map { " (\($0))" } ?? "")  \(acquisition.href)")
                for path in acquisition.paths where !path.isEmpty {
                    Output.line("    " + path.joined(separator: " → "))
                }
            }
        }
        if !detail.parts.isEmpty {
            Output.line()
            Output.line(Output.bold("Parts"))
            for part in detail.parts {
                var status = part.status.rawValue
                if let reason = part.reason, part.status != .downloaded { status += ": \(reason)" }
                if let bytes = part.bytes, part.status == .downloaded { status += " (\(bytes / 1024) KB)" }
                Output.line("  \(String(format: "%3d", part.index + 1))  \(part.title ?? "Part \(part.index + 1)")  \(status)")
            }
        }
        if let book {
            Output.line()
            Output.line(Output.bold("Chapters"))
            var starts: [Double?] = [0]
            for part in book.parts { starts.append(starts.last!.flatMap { start in part.duration.map { start + $0 } }) }
            for (index, chapter) in book.chapters.enumerated() {
                let at = starts[chapter.part].map { Clock.format($0 + chapter.offset) }
                    ?? "part \(chapter.part + 1), \(Clock.format(chapter.offset))"
                Output.line("  \(String(format: "%3d", index + 1))  \(at)  \(chapter.title)")
            }
        }
        Output.line()
        Output.line(Output.bold("History"))
        Output.line("  \(Output.timestamp(detail.firstSeenAt))  first seen")
        for event in detail.history {
            Output.line("  \(Output.timestamp(event.at))  \(event.kind): \(event.detail)")
        }
    }
}

extension DetailPrinter {
    /// "Ann Smith (ill), Bob": each contributor with their roles; one the feed gives no role is shown by name
    /// alone, not with an empty "()".
    static func people(_ contributors: [Contributor]) -> String {
        contributors.map { $0.roles.isEmpty ? $0.name : "\($0.name) (\($0.roles.joined(separator: ", ")))" }
            .joined(separator: ", ")
    }
}

/// Feed summaries are HTML; a terminal wants plain, wrapped text.
extension PlainText {
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.components(separatedBy: "\n") {
            var current = ""
            for word in paragraph.split(separator: " ") {
                if current.isEmpty {
                    current = String(word)
                } else if current.count + 1 + word.count > width {
                    lines.append(current)
                    current = String(word)
                } else {
                    current += " " + word
                }
            }
            lines.append(current)
        }
        return lines
    }
}
