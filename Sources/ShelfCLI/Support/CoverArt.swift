import Foundation
import ShelfCore

/// A title's cover drawn in the terminal by Debian's `chafa`: as an image where the terminal shows images (kitty's
/// graphics protocol, sixel), else as coloured character cells, which any colour terminal shows. Never on a pipe,
/// a dumb terminal, with NO_COLOR, or when turned off (`--no-cover`, `SHELF_COVER=off`).
package enum CoverArt {
    package enum Mode: String, Sendable {
        case off, symbols, kitty, sixel
    }

    /// Terminals known to show sixel images (by `TERM` or `TERM_PROGRAM`).
    static let sixelTerminals: Set<String> = ["foot", "foot-extra", "mlterm", "yaft-256color", "contour", "wezterm", "WezTerm"]

    /// How to draw covers here: `SHELF_COVER` (off, auto, symbols, kitty, sixel) when set, else what the terminal
    /// says it is. Only ever something other than off on a terminal.
    package static func mode(environment: [String: String] = ProcessInfo.processInfo.environment,
                             isTerminal: Bool = isatty(STDOUT_FILENO) == 1) -> Mode {
        guard isTerminal, let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return .off }
        let asked = environment["SHELF_COVER"]?.lowercased() ?? "auto"
        if asked != "auto" { return Mode(rawValue: asked) ?? .off }
        if environment["NO_COLOR"].map({ !$0.isEmpty }) ?? false { return .off }
        if term == "xterm-kitty" || environment["KITTY_WINDOW_ID"] != nil { return .kitty }
        if sixelTerminals.contains(term) || environment["TERM_PROGRAM"].map(sixelTerminals.contains) == true { return .sixel }
        return .symbols
    }

    /// The cover at `file` as `mode` draws it in at most `columns` × `rows` cells: lines of text (character cells,
    /// each line ending with its colours reset) or one image escape. Nil when chafa is not installed, the file is
    /// not an image it reads, or it takes more than 5 s: the screen goes on as text.
    package static func render(_ file: URL, columns: Int, rows: Int, mode: Mode) -> String? {
        guard mode != .off, columns >= 4, rows >= 2 else { return nil }
        let format = switch mode {
        case .kitty: "kitty"
        case .sixel: "sixels"
        default: "symbols"
        }
        let outcome = ExternalProgram.run(
            "chafa", ["--format=\(format)", "--size=\(columns)x\(rows)", "--animate=off", "--polite=on",
                      "--colors=\(mode == .symbols ? "256" : "full")", file.path],
            timeout: 5)
        guard outcome.status == 0, !outcome.stdout.isEmpty else { return nil }
        return outcome.stdout
    }

    /// The character-cell lines of the cover, for a screen that lays text out around it (the player).
    package static func lines(_ file: URL, columns: Int, rows: Int) -> [String]? {
        render(file, columns: columns, rows: rows, mode: .symbols).map { text in
            text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                // chafa hides and shows the cursor around its output; the screen keeps its own.
                String(line).replacingOccurrences(of: "\u{1B}[?25l", with: "").replacingOccurrences(of: "\u{1B}[?25h", with: "")
            }.filter { !$0.isEmpty }
        }
    }
}
