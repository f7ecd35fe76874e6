import Foundation
import ShelfCore
import Testing
@testable import ShelfCLI

/// `shelf list` streams its rows, writes valid JSON as it goes, and fits its table to the terminal measuring wide
/// and combining characters.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ListCLITests {
    /// "Shōgun" with its ō as o + a combining macron (7 scalars, 6 columns) and a title of wide characters.
    static let rows = [
        ["04377e87", "Sho\u{304}gun", "James Clavell", "audiobook", "New", "new", "available, 1 of 2 copies"],
        ["7d3c0002", "七人の侍の物語と長い副題", "黒澤 明", "audiobook", "New", "new", "free"],
        ["9781488208676", "The Adventures of Sherlock Holmes and a Rather Longer Title Than Fits", "Arthur Conan Doyle",
         "ebook", "New", "", "all copies out, 3 waiting"],
    ]

    /// Where each column starts on the screen, from the header's column positions.
    static func columnStarts(_ line: String, widths: [Int]) -> [Int] {
        var starts: [Int] = []
        var at = 0
        for width in widths.dropLast() {
            starts.append(at)
            at += width + 2
        }
        return starts + [at]
    }

    @Test(arguments: [80, 60]) func tablesFitTheTerminalAndWideCharactersKeepTheColumns(columns: Int) {
        var layout = TableLayout(header: ListPrinter.header)
        for row in Self.rows { layout.measure(row) }
        #expect(layout.widths[1] == TextWidth.of(Self.rows[2][1]))
        layout.fit(to: columns)
        let lines = [layout.render(ListPrinter.header)] + Self.rows.map(layout.render)
        for line in lines { #expect(TextWidth.of(line) <= columns, "\(line)") }
        // Every cell but the last starts where the header's column does: the text before it takes exactly the
        // columns of the cells before it and their gaps.
        for (row, line) in zip(Self.rows, lines.dropFirst()) {
            var prefix = ""
            for (index, cell) in row.enumerated().dropLast() {
                let width = layout.widths[index]
                prefix += TextWidth.pad(TextWidth.truncate(cell, to: width), to: width) + "  "
                #expect(TextWidth.of(prefix) == Self.columnStarts(line, widths: layout.widths)[index + 1] || TextWidth.of(prefix) > columns)
            }
            #expect(line.hasPrefix(String(TextWidth.fit(prefix, to: columns - 1))))
        }
        // The title shrank with an ellipsis; "Shōgun" kept whole.
        #expect(lines[3].contains("…"))
        #expect(lines[1].contains("Sho\u{304}gun"))
        let shogun = lines[1]
        let author = shogun.range(of: "James")!
        #expect(TextWidth.of(String(shogun[..<author.lowerBound])) == TextWidth.of(String(lines[0][..<lines[0].range(of: "AUTHOR")!.lowerBound])))
    }

    /// The bytes a row is written as are those of its rendered line: unfitted (through a pipe), fitted to a terminal,
    /// and with a column measured narrower than a cell (which is then cut as `render` cuts it).
    @Test func aRowRenderedIntoBytesIsTheRenderedLine() {
        var layout = TableLayout(header: ListPrinter.header)
        for row in Self.rows { layout.measure(row) }
        var narrow = TableLayout(header: ListPrinter.header)
        narrow.measure(Self.rows[0])
        var fitted = layout
        fitted.fit(to: 60)
        for table in [layout, narrow, fitted] {
            for row in Self.rows + [ListPrinter.header] {
                var bytes: [UInt8] = Array("before".utf8)
                table.render(row, into: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == "before" + table.render(row))
            }
        }
        #expect(narrow.render(Self.rows[2]).contains("…"))
        #expect(!layout.render(Self.rows[2]).contains("…"))
    }

    @Test func withoutATerminalOrCOLUMNSTheTableKeepsItsWidth() {
        #expect(Output.tableWidth(environment: [:]) == nil)
        #expect(Output.tableWidth(environment: ["COLUMNS": "60"]) == 60)
        var layout = TableLayout(header: ListPrinter.header)
        for row in Self.rows { layout.measure(row) }
        layout.fit(to: nil)
        #expect(!Self.rows.map(layout.render).contains { $0.contains("…") })
    }

    @Test func listStreamsRowsAndWritesValidJSON() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let library = try store.library(named: "demo")
        let editions = try store.editions(of: library)
        #expect(editions.count > 20)

        // The table: the header and the first row are written before the cursor has read the last row.
        var events: [String] = []
        var printer = ListPrinter(store: store, library: library, filter: EditionFilter())
        printer.width = nil
        printer.write = { events.append(String(decoding: $0, as: UTF8.self)) }
        printer.cursorEnded = { events.append("<cursor ended>") }
        try printer.printTable()
        #expect(events.count == editions.count + 2)
        #expect(events.last == "<cursor ended>")
        #expect(events[1].hasPrefix(editions[0].shortID))

        // JSON: each element written as it is read, one line each; the whole a valid array of every title. With
        // --full, byte for byte what encoding the gathered array writes.
        events = []
        try printer.printJSON()
        #expect(events.firstIndex(of: "<cursor ended>") == editions.count)
        let lean = events.filter { $0 != "<cursor ended>" }.joined()
        #expect(lean.split(separator: "\n").count == editions.count + 2)
        let leanParsed = try JSONSerialization.jsonObject(with: Data(lean.utf8)) as? [[String: Any]]
        #expect(leanParsed?.map { $0["id"] as? String } == editions.map(\.id))
        #expect(leanParsed?.map { $0["shortID"] as? String } == editions.map(\.shortID))
        events = []
        try printer.printJSON(full: true)
        #expect(events.firstIndex(of: "<cursor ended>") == editions.count)
        let json = events.filter { $0 != "<cursor ended>" }.joined()
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        #expect(parsed?.map { $0["id"] as? String } == editions.map(\.id))
        #expect(json == String(decoding: try Output.encoder.encode(editions), as: UTF8.self) + "\n")

        // Nothing matching: an empty array.
        events = []
        printer = ListPrinter(store: store, library: library, filter: EditionFilter(state: .downloaded))
        printer.write = { events.append(String(decoding: $0, as: UTF8.self)) }
        try printer.printJSON()
        #expect(events.joined() == "[]\n")
        events = []
        try printer.printJSON(full: true)
        #expect(events.joined() == "[\n\n]\n")

        // The command itself, told a width by COLUMNS through a pipe, fits every line to it.
        let narrow = try await fixture.shelf.run(["list"], environment: ["COLUMNS": "60"])
        #expect(narrow.status == 0)
        let lines = narrow.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == editions.count + 1)
        #expect(lines.allSatisfy { TextWidth.of($0) <= 60 }, "\(lines.filter { TextWidth.of($0) > 60 })")
        await fixture.finish()
    }
}
