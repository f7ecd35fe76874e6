import Foundation
import ShelfCLI
import ShelfCore

extension ListenScreen {
    /// Fits the screens to the window: lines dropped by rank when it is short, cut to its width when it is narrow,
    /// never more lines than rows nor a line wider than columns (counted in terminal columns, glyphs included).
    enum Layout {
        /// A line of the player and how soon it goes when rows are short: the highest rank first.
        struct Line {
            var text: String
            var rank: Int

            init(_ text: String, rank: Int) {
                self.text = text
                self.rank = rank
            }
        }

        /// The ranks of the hint lines: the second goes early (its keys are in the help), the first late.
        static let secondHintRank = 60
        static let firstHintRank = 10
        static let essentialHints = ["? help", "q quit"]

        /// The player's lines and its key hints (up to two lines, ending with `? help · q quit`) in `rows` × `columns`.
        static func fit(_ lines: [Line], hints: [String], rows: Int, columns: Int) -> [String] {
            var body = lines
            var most = 2
            while true {
                let hintLines = hintRows(hints, width: columns - 2, most: most)
                let ranked = hintLines.enumerated().map { Line($0.element, rank: $0.offset == 0 ? firstHintRank : secondHintRank) }
                if body.count + ranked.count <= rows {
                    return (body.map(\.text) + ranked.map { Output.dim("  " + $0.text) }).map { TextWidth.fit($0, to: columns) }
                }
                // The highest rank goes; of equal ones, the lowest on the screen.
                let bodyTop = body.indices.max { (body[$0].rank, $0) < (body[$1].rank, $1) }
                let hintTop = ranked.last?.rank ?? Int.min
                if let bodyTop, body[bodyTop].rank > hintTop {
                    body.remove(at: bodyTop)
                } else if most > 0 {
                    most = hintLines.count - 1
                } else if let bodyTop {
                    body.remove(at: bodyTop)
                } else {
                    return []
                }
            }
        }

        /// The hints packed into at most `most` lines of `width`: as many as fit, in order, then `? help · q quit`.
        static func hintRows(_ items: [String], width: Int, most: Int) -> [String] {
            guard most > 0 else { return [] }
            for count in stride(from: items.count, through: 0, by: -1) {
                let lines = pack(Array(items.prefix(count)) + essentialHints, width: width)
                if lines.count <= most { return lines }
            }
            return [essentialHints.joined(separator: " · ")]
        }

        /// `items` joined by `separator` into lines of at most `width` columns, as many to a line as fit, in order.
        private static func pack(_ items: [String], width: Int, separator: String = " · ") -> [String] {
            var lines: [String] = []
            var current = ""
            for item in items {
                if current.isEmpty {
                    current = item
                } else if TextWidth.of(current) + TextWidth.of(separator) + TextWidth.of(item) <= width {
                    current += separator + item
                } else {
                    lines.append(current)
                    current = item
                }
            }
            if !current.isEmpty { lines.append(current) }
            return lines
        }

        /// The help: one column with spacing when it fits; without blank lines when rows are short; entries wrapped
        /// at the window's width (never cut); and in pages when still too long (`page` counts from 0, and wraps).
        static func help(_ entries: [(keys: String, what: String)], rows: Int, columns: Int, page: Int = 0) -> [String] {
            let keyWidth = (entries.map { TextWidth.of($0.keys) }.max() ?? 0) + 2
            let room = max(8, columns - 2 - keyWidth)
            // Each entry as its lines, so that a page never splits one.
            let blocks: [[String]] = entries.map { item in
                wrap(item.what, width: room).enumerated().map { index, line in
                    let keys = index == 0 ? item.keys : ""
                    return "  " + keys + String(repeating: " ", count: max(0, keyWidth - TextWidth.of(keys))) + line
                }
            }
            let body = blocks.flatMap { $0 }
            let spacious = ["", "  " + Output.bold("Keys"), ""] + body + ["", "  Press any key to go back."]
            let compact = ["  " + Output.bold("Keys") + " (any key goes back)"] + body
            let lines: [String]
            if spacious.count <= rows {
                lines = spacious
            } else if compact.count <= rows {
                lines = compact
            } else {
                // Pages of whole entries under a heading, with how to turn them.
                let per = max(1, rows - 2)
                var pages: [[String]] = [[]]
                for block in blocks {
                    if !pages[pages.count - 1].isEmpty && pages[pages.count - 1].count + block.count > per { pages.append([]) }
                    pages[pages.count - 1] += block
                }
                let shown = ((page % pages.count) + pages.count) % pages.count
                lines = ["  " + Output.bold("Keys") + " \(shown + 1)/\(pages.count)"] + pages[shown]
                    + ["  ↓ ↑ pages · other keys: back"]
            }
            return lines.prefix(rows).map { TextWidth.fit($0, to: columns) }
        }

        /// `text` in lines of at most `width` columns, broken between words (a word longer than the width is cut by
        /// the screen); never no line.
        static func wrap(_ text: String, width: Int) -> [String] {
            let lines = pack(text.split(separator: " ").map(String.init), width: width, separator: " ")
            return lines.isEmpty ? [""] : lines
        }
    }
}
