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

    /// Columns padded to the widest cell; the last column is never padded.
    static func table(_ header: [String], _ rows: [[String]]) {
        guard !header.isEmpty else { return }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        if isTTY, let columns = terminalWidth(), let titleIndex = header.firstIndex(of: "TITLE") {
            let others = widths.enumerated().filter { $0.offset != titleIndex }.map(\.element).reduce(0, +)
            let spare = columns - others - 2 * (widths.count - 1)
            widths[titleIndex] = max(16, min(widths[titleIndex], spare))
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let width = widths[index]
                let fitted = cell.count > width ? String(cell.prefix(max(1, width - 1))) + "…" : cell
                return index == cells.count - 1 ? fitted : fitted.padding(toLength: width, withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        line(bold(render(header)))
        for row in rows { line(render(row)) }
    }

    static func terminalWidth() -> Int? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// "3 minutes ago", "yesterday", for timestamps.
    static func relative(_ date: Date, now: Date = Date()) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        if seconds < 0 { return "in the future" }
        func unit(_ count: Int, _ name: String) -> String { "\(count) \(name)\(count == 1 ? "" : "s") ago" }
        switch seconds {
        case ..<60: return "just now"
        case ..<3_600: return unit(seconds / 60, "minute")
        case ..<86_400: return unit(seconds / 3_600, "hour")
        default: return unit(seconds / 86_400, "day")
        }
    }

    /// "2026-11-21 14:03" in local time.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
