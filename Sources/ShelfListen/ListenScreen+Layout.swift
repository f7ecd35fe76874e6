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

        private static func pack(_ items: [String], width: Int) -> [String] {
            var lines: [String] = []
            var current = ""
            for item in items {
                if current.isEmpty {
                    current = item
                } else if TextWidth.of(current) + 3 + TextWidth.of(item) <= width {
                    current += " · " + item
                } else {
                    lines.append(current)
                    current = item
                }
            }
            if !current.isEmpty { lines.append(current) }
            return lines
        }

        /// The help: one column with spacing when it fits; without blank lines when rows are short; in two columns
        /// when still too short and wide enough; else as many keys as fit, and where to see the rest.
        static func help(_ entries: [(keys: String, what: String)], rows: Int, columns: Int) -> [String] {
            let keyWidth = (entries.map { TextWidth.of($0.keys) }.max() ?? 0) + 2
            let entry = { (item: (keys: String, what: String)) in
                item.keys + String(repeating: " ", count: max(0, keyWidth - TextWidth.of(item.keys))) + item.what
            }
            let lines: [String]
            let spacious = ["", "  " + Output.bold("Keys"), ""] + entries.map { "  " + entry($0) } + ["", "  Press any key to go back."]
            let compact = ["  " + Output.bold("Keys") + " (any key goes back)"] + entries.map { "  " + entry($0) }
            if spacious.count <= rows {
                lines = spacious
            } else if compact.count <= rows {
                lines = compact
            } else if 1 + (entries.count + 1) / 2 <= rows && columns >= 60 {
                let half = (entries.count + 1) / 2
                let width = columns / 2
                lines = [compact[0]] + (0..<half).map { row in
                    let left = TextWidth.fit(" " + entry(entries[row]), to: width - 1)
                    let padding = String(repeating: " ", count: max(0, width - TextWidth.of(left)))
                    let right = row + half < entries.count ? entry(entries[row + half]) : ""
                    return left + padding + right
                }
            } else {
                let room = max(0, rows - 1)
                let shown = compact.prefix(room)
                lines = Array(shown) + (room < compact.count ? ["  … more in a taller window"] : [])
            }
            return lines.prefix(rows).map { TextWidth.fit($0, to: columns) }
        }
    }
}
