import Foundation
import ShelfCore

/// Prints `shelf list` a row at a time: one pass over the store measures the columns (reading only what the
/// widths need, unless the table is fitted to a terminal), a second prints each row as the cursor reads it, so
/// nothing is gathered and the first row appears before the second pass reads the last.
struct ListPrinter {
    static let header = ["ID", "TITLE", "AUTHOR", "TYPE", "STATE", "PROGRESS", "AVAILABILITY"]

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
        [edition.shortID, edition.listTitle, edition.authors, edition.kind, edition.state.label, edition.progress,
         edition.circulation]
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
        var layout = TableLayout(header: Self.header)
        // Each row's bytes, made in the same buffer every time.
        var line: [UInt8] = []
        var measured = ListCellWidths()
        var rows = 0
        var fitted = false
        // Fitted to a terminal, the last column's width counts too, and only a summary gives it.
        let firstPass: ListFirstPass = width == nil
            ? .widths { measured.widen(to: $0); rows += 1 }
            : .summaries { layout.measure(Self.cells($0)); rows += 1 }
        try store.forEachEdition(of: library, filter: filter, firstPass: firstPass, cursorEnded: cursorEnded) { edition in
            if !fitted {
                layout.measure(widths: [
                    measured.id, measured.title, measured.authors, measured.kind, measured.state, measured.progress,
                ])
                layout.fit(to: width)
                sink.text(Output.bold(layout.render(Self.header)) + "\n")
                fitted = true
            }
            line.removeAll(keepingCapacity: true)
            layout.render(Self.cells(edition), into: &line)
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes(sink.write)
        }
        if rows == 0 && !quiet {
            sink.text((library.lastSyncOKAt == nil ? "Nothing yet: run `shelf sync`." : "No titles match.") + "\n")
        }
    }

    /// `list --json`: a JSON array written an element at a time, the same bytes `Output.json` writes for the whole
    /// array.
    func printJSON() throws {
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
