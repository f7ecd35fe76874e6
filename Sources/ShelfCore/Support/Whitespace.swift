/// Trimming white space without Foundation. With Foundation imported, `trimmingCharacters(in:)` goes through
/// NSString, which copies the text to UTF-16 and back: on the author names, series and running times of every entry,
/// that was a twelfth of a sync's CPU.
///
/// White space here is Unicode's `White_Space` property: tab, the line ends (U+000A–U+000D, U+0085, U+2028, U+2029)
/// and the space separators (U+0020, U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F, U+3000), the same characters
/// as Foundation's `.whitespacesAndNewlines`, which on Linux also holds the zero-width space (U+200B).
/// `.whitespaces` is the same less the line ends.
extension String {
    /// The text without leading or trailing white space (`trimmingCharacters(in: .whitespacesAndNewlines)`); text with
    /// none to trim, most of a catalog's, is returned as it is.
    func trimmingWhitespace() -> String { Whitespace.trim(self[...], \.isWhitespaceOrLineEnd) ?? self }

    /// The text without leading or trailing spaces and tabs (`trimmingCharacters(in: .whitespaces)`): line ends stay.
    func trimmingSpaces() -> String { Whitespace.trim(self[...], \.isSpaceOrTab) ?? self }

    /// Whether the text is empty or white space only.
    var isBlank: Bool { unicodeScalars.allSatisfy(\.isWhitespaceOrLineEnd) }
}

extension Substring {
    /// The text without leading or trailing white space, as `String.trimmingWhitespace()`.
    func trimmingWhitespace() -> String { Whitespace.trim(self, \.isWhitespaceOrLineEnd) ?? String(self) }

    /// The text without leading or trailing spaces and tabs, as `String.trimmingSpaces()`.
    func trimmingSpaces() -> String { Whitespace.trim(self, \.isSpaceOrTab) ?? String(self) }
}

private enum Whitespace {
    /// The text trimmed scalar by scalar (a space before a combining mark goes, the mark stays, as in Foundation);
    /// nil when there is nothing to trim.
    static func trim(_ text: Substring, _ isSpace: (Unicode.Scalar) -> Bool) -> String? {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last, isSpace(first) || isSpace(last) else { return nil }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }),
            let end = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[start...end])
    }
}

extension Unicode.Scalar {
    /// In Unicode's `White_Space` or the zero-width space (Foundation's `.whitespacesAndNewlines`).
    var isWhitespaceOrLineEnd: Bool {
        value == 0x20 || (value < 0x80 ? (0x09...0x0D).contains(value) : properties.isWhitespace || value == 0x200B)
    }

    /// A space separator, a tab or the zero-width space (Foundation's `.whitespaces`).
    var isSpaceOrTab: Bool {
        value == 0x20 || value == 0x09
            || (value >= 0x80 && (properties.generalCategory == .spaceSeparator || value == 0x200B))
    }
}
