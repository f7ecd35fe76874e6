import Foundation
import ShelfCore
#if canImport(Glibc)
import Glibc
#endif

/// Terminal-aware printing: colour and layout only on a TTY without NO_COLOR; JSON on request.
package enum Output {
    package static var isTTY: Bool { isatty(STDOUT_FILENO) == 1 }

    package static var useColor: Bool {
        isTTY && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    package static func line(_ text: String = "") {
        print(text)
    }

    /// Writes `text` as it is, with no line end added.
    package static func raw(_ text: String) {
        print(text, terminator: "")
    }

    package static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    package static func bold(_ text: String) -> String { useColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    package static func dim(_ text: String) -> String { useColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    /// Pretty, key-sorted JSON with ISO 8601 dates.
    package static func json<T: Encodable>(_ value: T) throws {
        let data = try encoder.encode(value)
        print(String(decoding: data, as: UTF8.self))
    }

    /// The encoder `json(_:)` prints with.
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Columns padded to the widest cell; the last column is never padded. See `TableLayout` for the width.
    static func table(_ header: [String], _ rows: [[String]]) {
        guard !header.isEmpty else { return }
        var layout = TableLayout(header: header)
        for row in rows { layout.measure(row) }
        layout.fit(to: tableWidth())
        line(bold(layout.render(header)))
        for row in rows { line(layout.render(row)) }
    }

    /// The width tables are fitted to: the terminal's, or `COLUMNS` when it is set and stdout is not a terminal
    /// (or the terminal does not say); nil (no fitting) for a pipe or file without `COLUMNS`.
    static func tableWidth(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        if isTTY, let width = terminalWidth() { return width }
        return environment["COLUMNS"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 > 0 ? $0 : nil }
    }

    static func terminalWidth() -> Int? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// "3 minutes ago", "2 days ago", for timestamps.
    static func relative(_ date: Date, now: Date = Date()) -> String { Clock.relative(date, now: now) }

    /// "2026-11-21 14:03" in local time.
    static func timestamp(_ date: Date) -> String { LocalTime.timestamp(date) }
}
