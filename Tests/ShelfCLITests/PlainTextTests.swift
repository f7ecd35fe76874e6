import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// `shelf show` turns a description's HTML into text in one pass (`PlainText.fromHTML`); these check it against the
/// regular expressions it replaced, on hand-made HTML and on every description of the real Palace documents.
@Suite(.timeLimit(.minutes(5))) struct PlainTextTests {
    /// The former implementation by regular expressions, its references now decoded in one left-to-right pass of
    /// a regular expression (each once, as the scanner does), by the same table.
    static func byExpressions(_ html: String) -> String {
        var text = html
        for (pattern, replacement) in [("(?i)<br\\s*/?>", "\n"), ("(?i)</p\\s*>", "\n\n"), ("<[^>]+>", "")] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        text = decodingReferences(text)
        text = text.replacingOccurrences(of: "[ \\t]+", with: " ", options: .regularExpression)
        text = text.replacingOccurrences(of: "\\n\\s*\\n\\s*(\\n\\s*)+", with: "\n\n", options: .regularExpression)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `&…;` replaced by what it stands for, left to right, each once.
    static func decodingReferences(_ text: String) -> String {
        let expression = try! NSRegularExpression(pattern: "&([^;&]{1,32});")
        let source = text as NSString
        var result = ""
        var last = 0
        for match in expression.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            result += source.substring(with: NSRange(location: last, length: match.range.location - last))
            let inside = source.substring(with: match.range(at: 1))
            result += PlainText.reference(Array(inside.unicodeScalars)[...]) ?? source.substring(with: match.range)
            last = match.range.location + match.range.length
        }
        return result + source.substring(from: last)
    }

    // MARK: The former scalar-by-scalar implementation, the byte-by-byte one's reference

    static func byScalars(_ html: String) -> String {
        let scalars = Array(html.unicodeScalars)
        var text = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", let close = scalars[(index + 1)...].firstIndex(of: ">"), close > index + 1 {
                switch scalarTagName(scalars[(index + 1)..<close]) {
                case .lineBreak: text.append("\n")
                case .paragraphEnd: text.append(contentsOf: "\n\n".unicodeScalars)
                case .other: break
                }
                index = close + 1
                continue
            }
            if scalar == "&",
                let semicolon = scalars[(index + 1)..<min(index + 34, scalars.count)].firstIndex(of: ";"),
                let decoded = PlainText.reference(scalars[(index + 1)..<semicolon])
            {
                text.append(contentsOf: decoded.unicodeScalars)
                index = semicolon + 1
                continue
            }
            text.append(scalar)
            index += 1
        }
        return scalarCollapsingWhiteSpace(Array(text)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    enum ScalarTag { case lineBreak, paragraphEnd, other }

    /// `br`, `br/` or `br /` is a line break, `/p` a paragraph's end (any case; white space may end either, and
    /// come before the slash of `br /`).
    static func scalarTagName(_ inside: ArraySlice<Unicode.Scalar>) -> ScalarTag {
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
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
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
    static func scalarCollapsingWhiteSpace(_ scalars: [Unicode.Scalar]) -> String {
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

    /// Random descriptions from pieces where the two ways could part: tags (of any case, with ASCII and Unicode
    /// space before `>`), references (named, numeric, broken, unended), runs of every kind of white space, and
    /// letters of one to four bytes.
    static func randomHTML(_ generator: inout some RandomNumberGenerator) -> String {
        let pieces = [
            "<p>", "</p>", "</P >", "<br>", "<BR/>", "<br />", "<br/ >", "<br\u{3000}>", "<br\u{00A0}/>", "</p\u{2003}>",
            "<em>", "<", ">", "<>", "<a href=\"x\">", "&amp;", "&lt;", "&#8212;", "&#x2019;", "&#0;", "&#xD800;", "&nbsp;",
            "&eacute;", "&CounterClockwiseContourIntegral;", "&unknown;", "&", ";", "&#12a;", "&amp", "&é;",
            " ", "  ", "\t", "\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2003}", "\u{2028}",
            "\u{2029}", "\u{202F}", "\u{3000}", "a", "Z", "word", "é", "€", "日本", "𝄞", "\u{301}", "x",
        ]
        return (0..<Int.random(in: 0...24, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    static let handMade = [
        "<p>One.</p><p>Two &amp; three.</p>",
        "A<br>b<BR/>c<br />d<br/ >e<br class=\"x\">f",
        "<P>Upper</P >\n\n\n\n<p>after   four\t\tline ends</p>",
        "keep <> and a < b, 3 > 2, an open <tag never closed",
        "&lt;b&gt;not a tag&lt;/b&gt; &hellip; &rsquo;quoted&lsquo; &ldquo;twice&rdquo; &mdash; &ndash; &#39;&apos;&quot;",
        "&amp;lt; stays an entity's text; &unknown; and & alone and &amp without its end",
        "  \t leading and trailing \n \t ",
        "two\n \nline ends stay; three\r\n\r\n\r\nbecome a blank line",
        "spaces\u{00A0}\u{00A0}non-breaking\u{2003}em \n\u{2028}\n\n after a line separator",
        "<a href=\"x\">link <em>text</em></a><br><br><br><br>end",
        "&nbsp;&nbsp;entity spaces collapse&nbsp; &nbsp;too",
        "&#8212; he&#x2019;d &bull; &eacute;t&eacute; &CounterClockwiseContourIntegral; &NotNestedGreaterGreater; &#0; &#x110000;",
        "",
    ]

    /// Every HTML5 reference, named or numeric, as the WHATWG table and the HTML5 parser have them.
    @Test func everyHTML5ReferenceIsDecoded() {
        #expect(PlainText.fromHTML("he&#x2019;d &#8212; caf&eacute; &bull; 5&#xA0;km") == "he’d — café • 5\u{A0}km")
        #expect(PlainText.fromHTML("&CounterClockwiseContourIntegral;&NotNestedGreaterGreater;&fjlig;")
                == "\u{2233}\u{2AA2}\u{338}fj")
        // No character: zero, a surrogate, past U+10FFFF.
        #expect(PlainText.fromHTML("a&#0;b&#xD800;c&#x110000;d") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d")
        // Not references: left as written.
        #expect(PlainText.fromHTML("&notanentity; &#; &#x; &#12a; & ;") == "&notanentity; &#; &#x; &#12a; & ;")
        // Decoded once: `&amp;eacute;` is the text `&eacute;`.
        #expect(PlainText.fromHTML("&amp;eacute;") == "&eacute;")
    }

    @Test func randomDescriptionsReadAsTheScalarByScalarWayReadThem() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let html = Self.randomHTML(&generator)
            #expect(PlainText.fromHTML(html) == Self.byScalars(html), "\(html.debugDescription)")
        }
        for html in Self.handMade {
            #expect(PlainText.fromHTML(html) == Self.byScalars(html), "\(html.debugDescription)")
        }
        // Plain text is returned as it is; anything with a tag, a reference or extra white space is not plain.
        #expect(PlainText.isPlain("A plain sentence, with punctuation."))
        for html in ["", " a", "a ", "a  b", "a\tb", "a<b", "a&b", "café", "a\nb"] {
            #expect(!PlainText.isPlain(html) || html.isEmpty, "\(html.debugDescription)")
        }
    }

    @Test func handMadeHTMLReadsAsTheExpressionsRead() {
        for html in Self.handMade {
            #expect(PlainText.fromHTML(html) == Self.byExpressions(html), "\(html.debugDescription)")
        }
        #expect(PlainText.fromHTML("<p>One.</p><p>Two &amp; three.</p>") == "One.\n\nTwo & three.")
        #expect(PlainText.fromHTML("A<br>b<br/ >c") == "A\nbc")
        // Where they differ: the expressions ran one after another, so what `</p>` left ("<\n\n>") was then a tag;
        // the scanner reads a tag from its `<` to the first `>`, once.
        #expect(Self.byExpressions("<</p>>") == "")
        #expect(PlainText.fromHTML("<</p>>") == ">")
    }

    @Test(.enabled(if: PalaceFixtures.available, "../shared/fixtures-real is absent; real descriptions skipped"))
    func everyRealDescriptionReadsAsTheExpressionsReadIt() throws {
        var descriptions = 0
        for folder in ["opds", "entries"] {
            let directory = PalaceFixtures.file(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
                let file = directory.appendingPathComponent(name)
                // Documents that are not feeds (the malformed ones) have nothing to compare.
                try? FeedDocument(baseURL: nil).parse(file: file, contentType: nil) { entry in
                    for html in [entry.summary, entry.content].compactMap({ $0 }) {
                        descriptions += 1
                        #expect(PlainText.fromHTML(html) == Self.byExpressions(html), "\(name): \(html.debugDescription)")
                    }
                }
            }
        }
        #expect(descriptions > 100, "only \(descriptions) descriptions found")
    }

    /// No entity is left in any real description of the Palace feeds as `shelf show` prints it (38 hold one after
    /// the XML itself is read; most were printed raw when only fourteen names were known).
    @Test(.enabled(if: PalaceFixtures.available, "../shared/fixtures-real is absent; real descriptions skipped"))
    func noReferenceIsLeftInAnyRealDescription() throws {
        let reference = try NSRegularExpression(pattern: "&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
        var withReferences = 0
        for folder in ["opds", "entries"] {
            let directory = PalaceFixtures.file(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
                try? FeedDocument(baseURL: nil).parse(file: directory.appendingPathComponent(name), contentType: nil) { entry in
                    for html in [entry.summary, entry.content].compactMap({ $0 }) {
                        if reference.firstMatch(in: html, range: NSRange(html.startIndex..., in: html)) != nil { withReferences += 1 }
                        let text = PlainText.fromHTML(html)
                        let left = reference.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
                            Range(match.range, in: text).map { String(text[$0]) }
                        }
                        // What the description itself wrote as text (`&amp;name;`) is text, not a reference.
                        let written = left.filter { !html.contains("&amp;" + $0.dropFirst()) }
                        #expect(written.isEmpty, "\(name): \(written) left in \(text.prefix(200).debugDescription)")
                    }
                }
            }
        }
        #expect(withReferences > 30, "only \(withReferences) descriptions hold a reference")
    }
}
