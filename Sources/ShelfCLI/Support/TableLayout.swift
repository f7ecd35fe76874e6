import ShelfCore

/// The column widths of a table printed a row at a time: measured over every row first (`measure`), then fitted to
/// the terminal (`fit`), so each row can be printed as soon as it is read. Widths are terminal columns
/// (`TextWidth`): an East Asian wide character counts two, a combining mark none.
struct TableLayout {
    private(set) var widths: [Int]
    /// The terminal width the rows are cut to, when fitted.
    private(set) var columns: Int?
    private let header: [String]

    /// The narrowest the TITLE and AUTHOR columns are made before rows are cut at the terminal's edge.
    static let narrowestTitle = 16
    static let narrowestAuthor = 12

    init(header: [String]) {
        self.header = header
        widths = header.map(TextWidth.of)
    }

    /// Widens the columns to fit `cells`.
    mutating func measure(_ cells: [String]) {
        for (index, cell) in cells.enumerated() where index < widths.count {
            let width = TextWidth.of(cell)
            if width > widths[index] { widths[index] = width }
        }
    }

    /// Sets the first columns' widths (terminal columns), known before any row (`shelf list`).
    mutating func set(widths cellWidths: [Int]) {
        for (index, width) in cellWidths.enumerated() where index < widths.count { widths[index] = width }
    }

    /// Widens the first columns to these widths (terminal columns), as `measure` does for cells of those widths.
    mutating func measure(widths cellWidths: [Int]) {
        for (index, width) in cellWidths.enumerated() where index < widths.count && width > widths[index] {
            widths[index] = width
        }
    }

    /// Narrows the table to `columns` (nil: leaves it as wide as its widest cells): the TITLE column first, down to
    /// `narrowestTitle`, then AUTHOR, down to `narrowestAuthor`; a row still too wide is cut at the edge with "…".
    mutating func fit(to columns: Int?) {
        guard let columns else { return }
        self.columns = columns
        for (name, narrowest) in [("TITLE", Self.narrowestTitle), ("AUTHOR", Self.narrowestAuthor)] {
            guard let index = header.firstIndex(of: name) else { continue }
            let excess = total - columns
            guard excess > 0 else { return }
            widths[index] = max(min(widths[index], narrowest), widths[index] - excess)
        }
    }

    /// The columns a row takes before the last cell's own width.
    private var total: Int { widths.reduce(0, +) + 2 * (widths.count - 1) }

    /// One line of the table: each cell cut with "…" and padded to its column, the last cell neither padded nor cut
    /// except at the terminal's edge.
    func render(_ cells: [String]) -> String {
        var line = ""
        line.reserveCapacity(widths.reduce(2 * widths.count, +) + (cells.last?.utf8.count ?? 0))
        for (index, cell) in cells.enumerated() {
            if index > 0 { line += "  " }
            guard index < cells.count - 1 else {
                line += cell
                break
            }
            let cellWidth = TextWidth.of(cell)
            let width = index < widths.count ? widths[index] : cellWidth
            if cellWidth > width {
                let cut = TextWidth.truncate(cell, to: width)
                line += cut
                Self.appendSpaces(width - TextWidth.of(cut), to: &line)
            } else {
                line += cell
                Self.appendSpaces(width - cellWidth, to: &line)
            }
        }
        if let columns { return TextWidth.truncate(line, to: columns) }
        return line
    }

    /// Appends the UTF-8 bytes of the line `render(cells)` makes to `line`, without making it: each cell's own
    /// bytes, then spaces to its column. A table fitted to a terminal, or a cell wider than its column, is rendered
    /// as `render` does and its bytes copied.
    func render(_ cells: [String], into line: inout [UInt8]) {
        guard columns == nil else {
            line.append(contentsOf: render(cells).utf8)
            return
        }
        let start = line.count
        for (index, cell) in cells.enumerated() {
            if index > 0 { line.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: " ")]) }
            line.append(contentsOf: cell.utf8)
            guard index < cells.count - 1 else { break }
            let cellWidth = TextWidth.of(cell)
            let width = index < widths.count ? widths[index] : cellWidth
            if cellWidth > width {
                line.removeSubrange(start...)
                line.append(contentsOf: render(cells).utf8)
                return
            }
            if width > cellWidth { line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width - cellWidth)) }
        }
    }

    private static let spaces = String(repeating: " ", count: 256)

    private static func appendSpaces(_ count: Int, to line: inout String) {
        var left = count
        while left > 0 {
            let run = min(left, 256)
            // A UTF-8 offset into a native string is O(1), and appending the slice copies bytes.
            line += spaces[..<spaces.utf8.index(spaces.utf8.startIndex, offsetBy: run)]
            left -= run
        }
    }
}
