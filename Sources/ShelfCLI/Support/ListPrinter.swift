import Foundation
import ShelfCore

/// Prints `shelf list` a row at a time, in one pass over the store: each row as soon as the cursor reads it. The
/// columns' widths are known before the first row, not measured over every row: the ID column's from the store
/// (`Store.shortIDWidth`), TYPE, STATE and PROGRESS from the values they can hold, and TITLE and AUTHOR fixed on a
/// pipe (`pipeWidths`) or sharing what a terminal leaves. A cell wider than its column is cut with "…"; `--tsv`
/// writes every cell whole, separated by tabs.
struct ListPrinter {
    static let header = ["ID", "TITLE", "AUTHOR", "TYPE", "STATE", "PROGRESS", "AVAILABILITY"]

    /// TITLE and AUTHOR on a pipe or in a file (the man page states them).
    static let pipeWidths = (title: 40, author: 28)
    /// AUTHOR on a terminal; TITLE takes what is left once AVAILABILITY has `availabilityShare` columns.
    static let terminalAuthor = 24
    static let availabilityShare = 24
    /// The widest TYPE ("audiobook DRM"), STATE ("Authorising") and PROGRESS ("in progress") cells.
    static let kindWidth = 13
    static let stateWidth = LifecycleState.allCases.map { TextWidth.of($0.label) }.max() ?? 11
    static let progressWidth = 11

    /// Tab-separated values rather than a table (`--tsv`).
    var tabSeparated = false

    let store: Store
    let library: Library
    let filter: EditionFilter
    var quiet = false
    /// The terminal width to fit the table to (nil: as wide as its cells).
    var width: Int? = Output.tableWidth()
    /// Where the text goes, a line (with its line end) or a JSON element at a time (nil: standard output, in
    /// blocks of 64 KB).
    var write: ((UnsafeRawBufferPointer) -> Void)?
    /// Runs once the store's cursor has read the last row (a seam for tests of streaming).
    var cursorEnded: () -> Void = {}

    /// The cells of one row.
    static func cells(_ edition: EditionSummary) -> [String] {
        [edition.shortID, edition.listTitle, edition.authors, listKind(edition), edition.state.label, edition.progress,
         edition.circulation]
    }

    /// Appends the bytes `TableLayout.render(cells(edition), into:)` appends for a table not fitted to a terminal,
    /// without making the cells: each one's bytes and the spaces to its column. False (and nothing appended) when a
    /// cell is not printable ASCII or is wider than its column, which the general way cuts with "…".
    static func appendRow(_ edition: EditionSummary, widths: [Int], into line: inout [UInt8]) -> Bool {
        let start = line.count
        var column = 0
        // Appends one piece of a cell; false when it is not printable ASCII.
        func piece(_ text: String, _ used: inout Int) -> Bool {
            var text = text
            return text.withUTF8 { bytes in
                guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
                line.append(contentsOf: bytes)
                used += bytes.count
                return true
            }
        }
        // Ends a cell of `used` columns: spaces to its column's width and the two between columns.
        func end(_ used: Int) -> Bool {
            guard column < widths.count, used <= widths[column] else { return false }
            line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: widths[column] - used + 2))
            column += 1
            return true
        }
        // Leaves the line as it was, for the general way.
        func undo() -> Bool {
            line.removeSubrange(start...)
            return false
        }
        var used = 0
        guard piece(edition.shortID, &used), end(used) else { return undo() }
        used = 0
        let removed = !(edition.inCatalog || edition.foundBy != nil)
        guard piece(edition.title, &used), !removed || piece(" (removed)", &used), end(used) else { return undo() }
        used = 0
        guard piece(edition.authors, &used), end(used) else { return undo() }
        used = 0
        guard piece(edition.medium, &used), edition.protection == nil || piece(" DRM", &used), end(used) else { return undo() }
        used = 0
        guard piece(edition.state.label, &used), end(used) else { return undo() }
        used = 0
        guard piece(edition.progress, &used), end(used) else { return undo() }
        // The last cell is neither padded nor cut.
        guard piece(edition.circulation, &used) else { return undo() }
        return true
    }

    /// "audiobook", "ebook", "audiobook DRM" (which scheme, `shelf show` says).
    static func listKind(_ edition: EditionSummary) -> String {
        edition.protection == nil ? edition.medium : edition.medium + " DRM"
    }

    /// The columns' widths before any row is read: the ID column's from the store, the others' from what their
    /// cells can hold, TITLE and AUTHOR fixed on a pipe, fitted to the terminal on one.
    func layout(idWidth: Int) -> TableLayout {
        var layout = TableLayout(header: Self.header)
        var author = Self.pipeWidths.author
        var title = Self.pipeWidths.title
        if let width {
            author = Self.terminalAuthor
            let fixed = idWidth + author + Self.kindWidth + Self.stateWidth + Self.progressWidth + 2 * 6
            title = max(TableLayout.narrowestTitle, width - fixed - Self.availabilityShare)
        }
        layout.set(widths: [idWidth, title, author, Self.kindWidth, Self.stateWidth, Self.progressWidth])
        layout.fit(to: width)
        return layout
    }

    /// Where a printer's bytes go.
    private struct Sink {
        let write: (UnsafeRawBufferPointer) -> Void

        func text(_ text: String) {
            var text = text
            text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Runs `body` with `write`, or with standard output in blocks (flushed once `body` returns or throws).
    private func withSink(_ body: (Sink) throws -> Void) rethrows {
        let output = BlockOutput()
        defer { output.flush() }
        try body(Sink(write: write ?? output.write))
    }

    func printTable() throws {
        try withSink { sink in try printTable(to: sink) }
    }

    private func printTable(to sink: Sink) throws {
        let layout = layout(idWidth: try store.shortIDWidth(of: library))
        // Each row's bytes, made in the same buffer every time.
        var line: [UInt8] = []
        var rows = 0
        try store.forEachEdition(of: library, filter: filter, cursorEnded: cursorEnded, forTable: true) { edition in
            if rows == 0 {
                sink.text(tabSeparated ? Self.header.joined(separator: "\t") + "\n" : Output.bold(layout.render(Self.header)) + "\n")
            }
            rows += 1
            line.removeAll(keepingCapacity: true)
            if tabSeparated {
                // A tab or line end inside a cell would break the row: each is a space.
                let cells = Self.cells(edition).map { cell in
                    cell.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" })
                        ? String(cell.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 }) : cell
                }
                line.append(contentsOf: cells.joined(separator: "\t").utf8)
            } else if layout.columns != nil || !Self.appendRow(edition, widths: layout.widths, into: &line) {
                layout.render(Self.cells(edition), into: &line)
            }
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes(sink.write)
        }
        if rows == 0 && !quiet {
            sink.text((library.lastSyncOKAt == nil ? "Nothing yet: run `shelf sync`." : "No titles match.") + "\n")
        }
    }

    /// `list --json`: a JSON array written an element at a time. Each title is one line of its lean element
    /// (`SummaryJSON.leanElement`); with `full`, every field, pretty-printed: the same bytes `Output.json` writes for
    /// the whole array.
    func printJSON(full: Bool = false) throws {
        guard full else {
            try withSink { sink in
                var line: [UInt8] = []
                var count = 0
                try store.forEachEdition(of: library, filter: filter, cursorEnded: cursorEnded) { edition in
                    line.removeAll(keepingCapacity: true)
                    line.append(contentsOf: count == 0 ? [UInt8(ascii: "["), UInt8(ascii: "\n")] : [UInt8(ascii: ","), UInt8(ascii: "\n")])
                    SummaryJSON.leanElement(edition, into: &line)
                    count += 1
                    line.withUnsafeBytes(sink.write)
                }
                sink.text(count == 0 ? "[]\n" : "\n]\n")
            }
            return
        }
        try withSink { sink in
            var array = JSONArrayWriter(write: sink.text)
            try store.forEachEdition(of: library, filter: filter, cursorEnded: cursorEnded) { edition in
                array.append(element: "  " + SummaryJSON.element(edition))
            }
            array.finish()
        }
    }
}

/// Standard output in blocks: what is written is gathered up to 64 KB and printed at once (a `print` for each line
/// of a long list was a twentieth of its time).
final class BlockOutput {
    private var bytes: [UInt8] = []

    func write(_ chunk: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: chunk)
        if bytes.count >= 1 << 16 { flush() }
    }

    /// Prints what is gathered.
    func flush() {
        guard !bytes.isEmpty else { return }
        Output.raw(String(decoding: bytes, as: UTF8.self))
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes a pretty-printed JSON array one element at a time, byte for byte as `Output.json` writes the whole array.
struct JSONArrayWriter {
    /// Where the text goes.
    let write: (String) -> Void
    private let encoder = Output.encoder
    private var count = 0

    init(write: @escaping (String) -> Void) {
        self.write = write
    }

    mutating func append<T: Encodable>(_ value: T) throws {
        let element = String(decoding: try encoder.encode(value), as: UTF8.self)
        // Each line of the element one level deeper; an empty line (inside an empty array or object) stays empty.
        // JSON strings hold no raw line ends, so every "\n" is between lines.
        var text = count == 0 ? "[\n" : ",\n"
        text.reserveCapacity(element.utf8.count * 5 / 4)
        var first = true
        for line in element.split(separator: "\n", omittingEmptySubsequences: false) {
            if !first { text += "\n" }
            first = false
            if !line.isEmpty { text += "  " }
            text += line
        }
        count += 1
        write(text)
    }

    /// Adds an element already written, its lines indented for inside the array.
    mutating func append(element text: String) {
        write((count == 0 ? "[\n" : ",\n") + text)
        count += 1
    }

    /// Closes the array (an empty one is `[`, an empty line, `]`, as `JSONEncoder` writes it).
    func finish() {
        write(count == 0 ? "[\n\n]\n" : "\n]\n")
    }
}
