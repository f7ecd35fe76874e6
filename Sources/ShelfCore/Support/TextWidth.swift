import Foundation

/// How many columns of a terminal text takes: colour escapes none, combining marks none, East Asian wide
/// characters and emoji two, everything else (the ▶ ❚ █ ░ … glyphs the screen uses) one. Used by the player's
/// screen and by the tables of `shelf list` and the other listing commands.
public enum TextWidth {
    /// The columns `text` takes on the screen.
    public static func of(_ text: String) -> Int {
        // Printable ASCII, most of any catalog, is one column a byte (read from a native string's own bytes).
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? bytes.count : nil
        }
        if let width = ascii ?? (text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? text.utf8.count : nil) {
            return width
        }
        var width = 0
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true }
            if inEscape {
                if character.isLetter { inEscape = false }
                continue
            }
            width += of(character)
        }
        return width
    }

    /// The columns the text with these UTF-8 bytes takes, without making a String when it is printable ASCII.
    public static func of(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return bytes.count }
        return of(String(decoding: bytes, as: UTF8.self))
    }

    public static func of(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let value = scalar.value
        if value < 0x20 || value == 0x7F { return 0 }
        if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark {
            return 0
        }
        return isWide(value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
             0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            true
        default:
            false
        }
    }

    /// `line` cut to `columns` columns; its colour escapes are kept (and reset at the end when it has any).
    public static func fit(_ line: String, to columns: Int) -> String {
        var visible = 0
        var result = ""
        var inEscape = false
        var full = false
        for character in line {
            if character == "\u{1B}" { inEscape = true }
            if inEscape {
                result.append(character)
                if character.isLetter { inEscape = false }
                continue
            }
            let width = of(character)
            guard !full, visible + width <= columns else {
                full = true
                continue
            }
            result.append(character)
            visible += width
        }
        return result + (line.contains("\u{1B}") ? "\u{1B}[0m" : "")
    }

    /// The end of `text` that fits in `columns` columns (for a prompt, where the typing is at the end).
    public static func tail(_ text: String, _ columns: Int) -> String {
        guard of(text) > columns else { return text }
        var result = ""
        var width = 0
        for character in text.reversed() {
            let next = of(character)
            guard width + next <= columns else { break }
            result.insert(character, at: result.startIndex)
            width += next
        }
        return result
    }

    /// `text` cut to `columns` columns, its last column an ellipsis when anything was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        let width = of(text)
        guard width > columns else { return text }
        guard columns > 0 else { return "" }
        let kept = fit(text, to: columns - 1)
        return kept + "…" + String(repeating: " ", count: max(0, columns - 1 - of(kept)))
    }

    /// `text` followed by spaces up to `columns` columns (a text that is wider is left as it is).
    public static func pad(_ text: String, to columns: Int) -> String {
        let width = of(text)
        return width >= columns ? text : text + String(repeating: " ", count: columns - width)
    }
}
