import Foundation

/// Descriptions as plain text: what catalogs send as HTML (OPDS 1 summaries, OPDS 2 descriptions), stored and shown
/// as the author wrote it.
public enum PlainText {
    /// A description's HTML as plain text, in one pass over its scalars (no regular expressions: ICU's would be most
    /// of `shelf show`'s own time): `<br>` is a line end and `</p>` a blank line (either in any case, with space
    /// before the `>`), every other tag (`<` up to the next `>`) is dropped, every HTML5 named and numeric character
    /// reference is decoded once (`&amp;lt;` is `&lt;`), a run of spaces and tabs is one space, white space holding three or more line ends is
    /// a blank line from its first, and there is no white space at either end.
    public static func fromHTML(_ html: String) -> String {
        let scalars = Array(html.unicodeScalars)
        var text = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", let close = scalars[(index + 1)...].firstIndex(of: ">"), close > index + 1 {
                switch tagName(scalars[(index + 1)..<close]) {
                case .lineBreak: text.append("\n")
                case .paragraphEnd: text.append(contentsOf: "\n\n".unicodeScalars)
                case .other: break
                }
                index = close + 1
                continue
            }
            if scalar == "&",
                let semicolon = scalars[(index + 1)..<min(index + longestReference, scalars.count)].firstIndex(of: ";"),
                let decoded = reference(scalars[(index + 1)..<semicolon])
            {
                text.append(contentsOf: decoded.unicodeScalars)
                index = semicolon + 1
                continue
            }
            text.append(scalar)
            index += 1
        }
        return collapsingWhiteSpace(Array(text)).trimmingCharacters(in: .whitespacesAndNewlines)
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

    /// Each run of white space: its spaces and tabs one space; from its first line end on, a blank line when it
    /// holds three or more.
    private static func collapsingWhiteSpace(_ scalars: [Unicode.Scalar]) -> String {
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard isSpace(scalars[index]) else {
                result.append(scalars[index])
                index += 1
                continue
            }
            var end = index
            while end < scalars.count && isSpace(scalars[end]) { end += 1 }
            let run = scalars[index..<end]
            let kept = run.filter { $0 == "\n" }.count >= 3 ? run[..<run.firstIndex(of: "\n")!] : run
            var inBlank = false
            for scalar in kept {
                let blank = scalar == " " || scalar == "\t"
                if !(blank && inBlank) { result.append(blank ? " " : scalar) }
                inBlank = blank
            }
            if kept.count < run.count { result.append(contentsOf: "\n\n".unicodeScalars) }
            index = end
        }
        return String(result)
    }
}
