import Foundation

/// Descriptions as plain text: what catalogs send as HTML (OPDS 1 summaries, OPDS 2 descriptions), stored and shown
/// as the author wrote it.
public enum PlainText {
    /// A description's HTML as plain text, in one pass over its UTF-8 (no regular expressions: ICU's would be most
    /// of `shelf show`'s own time): `<br>` is a line end and `</p>` a blank line (either in any case, with space
    /// before the `>`), every other tag (`<` up to the next `>`) is dropped, every HTML5 named and numeric character
    /// reference is decoded once (`&amp;lt;` is `&lt;`), a run of spaces and tabs is one space, white space holding three or more line ends is
    /// a blank line from its first, and there is no white space at either end.
    public static func fromHTML(_ html: String) -> String {
        // Most descriptions in a catalog are the same few shapes; one with nothing to change is returned as it is.
        if isPlain(html) { return html }
        var html = html
        return html.withUTF8 { bytes in
            var text: [UInt8] = []
            text.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "<"), let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: ">")),
                    close > index + 1
                {
                    switch tagName(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<close])) {
                    case .lineBreak: text.append(UInt8(ascii: "\n"))
                    case .paragraphEnd: text.append(contentsOf: [UInt8(ascii: "\n"), UInt8(ascii: "\n")])
                    case .other: break
                    }
                    index = close + 1
                    continue
                }
                // A reference is ASCII: a `;` within the longest reference's bytes is within its scalars too, and
                // one found past other scalars would name no reference.
                if byte == UInt8(ascii: "&"),
                    let semicolon = bytes[(index + 1)..<min(index + longestReference, bytes.count)]
                        .firstIndex(of: UInt8(ascii: ";")),
                    let decoded = reference(bytes[(index + 1)..<semicolon])
                {
                    text.append(contentsOf: decoded.utf8)
                    index = semicolon + 1
                    continue
                }
                text.append(byte)
                index += 1
            }
            return trimmed(collapsingWhiteSpace(text))
        }
    }

    /// True when `fromHTML` would return `html` as it is: printable ASCII with no tag, reference, run of spaces, or
    /// space at either end.
    package static func isPlain(_ html: String) -> Bool {
        var previous = UInt8(ascii: " ")
        for byte in html.utf8 {
            guard byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "<") && byte != UInt8(ascii: "&")
                || byte == 0x20 && previous != 0x20
            else { return false }
            previous = byte
        }
        return previous != 0x20
    }

    /// `reference(_:)` of a reference's bytes, between `&` and `;`.
    private static func reference(_ inside: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        reference(Array(String(decoding: UnsafeBufferPointer(rebasing: inside), as: UTF8.self).unicodeScalars)[...])
    }

    /// Every HTML5 named reference (`HTMLEntities`, generated from the WHATWG table), by name without `&` and `;`.
    private static let entities: [String: String] = {
        var map: [String: String] = [:]
        for line in HTMLEntities.table.split(separator: "\n") {
            guard let tab = line.firstIndex(of: "\t") else { continue }
            map[String(line[..<tab])] = String(line[line.index(after: tab)...])
        }
        return map
    }()

    /// The most scalars from `&` to `;` a reference can span: `&CounterClockwiseContourIntegral;` is 33.
    private static let longestReference = 34

    /// What `&inside;` stands for: a named reference, or a numeric one (`#8212`, `#x2019`), where a number that is
    /// no character (zero, a surrogate, past U+10FFFF) is U+FFFD as HTML5 has it; nil when it is no reference (the
    /// text stays as written).
    public static func reference(_ inside: ArraySlice<Unicode.Scalar>) -> String? {
        guard let first = inside.first else { return nil }
        guard first == "#" else { return entities[String(String.UnicodeScalarView(inside))] }
        var digits = inside.dropFirst()
        var radix: UInt32 = 10
        if let mark = digits.first, mark == "x" || mark == "X" {
            radix = 16
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 8 else { return nil }
        var value: UInt32 = 0
        for digit in digits {
            guard let number = Int(String(digit), radix: Int(radix)) else { return nil }
            value = value * radix + UInt32(number)
        }
        guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
        return String(Character(scalar))
    }

    private enum Tag { case lineBreak, paragraphEnd, other }

    /// `br`, `br/` or `br /` is a line break, `/p` a paragraph's end (any case; white space may end either, and
    /// come before the slash of `br /`).
    private static func tagName(_ inside: ArraySlice<Unicode.Scalar>) -> Tag {
        func trimmed(_ name: Substring) -> Substring {
            var name = name
            while let last = name.unicodeScalars.last, isSpace(last) { name = name.dropLast() }
            return name
        }
        let name = Substring(String(String.UnicodeScalarView(inside)).lowercased())
        if trimmed(name) == "/p" { return .paragraphEnd }
        return trimmed(name.hasSuffix("/") ? name.dropLast() : name) == "br" ? .lineBreak : .other
    }

    /// White space as regular expressions have it (`\s`): tab, line feed, form feed, carriage return and the
    /// Unicode separators.
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\t", "\n", "\u{0C}", "\r": true
        default:
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }
    }

    /// `tagName(_:)` of a tag's bytes, between `<` and `>`: ASCII compared as it is; a tag holding other scalars
    /// (a Unicode space before the `>`) by its scalars.
    private static func tagName(_ inside: UnsafeBufferPointer<UInt8>) -> Tag {
        guard inside.allSatisfy({ $0 < 0x80 }) else {
            return tagName(Array(String(decoding: inside, as: UTF8.self).unicodeScalars)[...])
        }
        var end = inside.count
        func trimEnd() { while end > 0, isASCIISpace(inside[end - 1]) { end -= 1 } }
        func isName(_ name: String) -> Bool {
            end == name.utf8.count && zip(inside[0..<end], name.utf8).allSatisfy { $0 | 0x20 == $1 || $0 == $1 }
        }
        trimEnd()
        if isName("/p") { return .paragraphEnd }
        end = inside.count
        if end > 0, inside[end - 1] == UInt8(ascii: "/") { end -= 1 }
        trimEnd()
        return isName("br") ? .lineBreak : .other
    }

    private static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    /// The bytes of the white space scalar (`isSpace`) starting at `index`, or 0 when none starts there.
    private static func spaceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let byte = bytes[index]
        if byte < 0x80 { return isASCIISpace(byte) ? 1 : 0 }
        guard byte >= 0xC0, let (scalar, length) = scalar(bytes, at: index) else { return 0 }
        return isSpace(scalar) ? length : 0
    }

    /// The scalar whose UTF-8 starts at `index`, and its bytes.
    private static func scalar(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        guard index + length <= bytes.count else { return nil }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return Unicode.Scalar(value).map { ($0, length) }
    }

    /// Each run of white space: its spaces and tabs one space; from its first line end on, a blank line when it
    /// holds three or more.
    private static func collapsingWhiteSpace(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard spaceLength(bytes, at: index) > 0 else {
                // A scalar's other bytes never start white space: they are copied one by one as well.
                result.append(bytes[index])
                index += 1
                continue
            }
            var (end, lineEnds) = (index, 0)
            while end < bytes.count, case let length = spaceLength(bytes, at: end), length > 0 {
                if bytes[end] == 0x0A { lineEnds += 1 }
                end += length
            }
            var kept = end
            if lineEnds >= 3 { kept = bytes[index..<end].firstIndex(of: 0x0A)! }
            var inBlank = false
            var at = index
            while at < kept {
                let length = spaceLength(bytes, at: at)
                let blank = bytes[at] == 0x20 || bytes[at] == 0x09
                if !(blank && inBlank) {
                    if blank { result.append(0x20) } else { result.append(contentsOf: bytes[at..<at + length]) }
                }
                inBlank = blank
                at += length
            }
            if kept < end { result.append(contentsOf: [0x0A, 0x0A]) }
            index = end
        }
        return result
    }

    /// The text without white space or line ends at either end, as `trimmingCharacters(in:
    /// .whitespacesAndNewlines)` has them: tab to carriage return, U+0085 and the Unicode separators.
    private static func trimmed(_ bytes: [UInt8]) -> String {
        func trimmable(_ scalar: Unicode.Scalar) -> Bool {
            (0x09...0x0D).contains(scalar.value) || scalar.value == 0x85 || isSpace(scalar)
        }
        var start = 0
        while start < bytes.count, let (scalar, length) = bytes[start] < 0x80
            ? (Unicode.Scalar(bytes[start]), 1) : scalar(bytes, at: start), trimmable(scalar)
        {
            start += length
        }
        var end = bytes.count
        while end > start {
            var lead = end - 1
            while lead > start, bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
            guard let (scalar, _) = bytes[lead] < 0x80 ? (Unicode.Scalar(bytes[lead]), 1) : scalar(bytes, at: lead),
                trimmable(scalar)
            else { break }
            end = lead
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
