import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// `shelf show` turns a description's HTML into text in one pass (`PlainText.fromHTML`); these check it against the
/// regular expressions it replaced, on hand-made HTML and on every description of the real Palace documents.
@Suite(.timeLimit(.minutes(5))) struct PlainTextTests {
    /// The former implementation, with its entities decoded in a fixed order (`&amp;` last, so that it decodes each
    /// entity once, as the scanner does; its dictionary order used to vary from run to run).
    static func byExpressions(_ html: String) -> String {
        var text = html
        for (pattern, replacement) in [("(?i)<br\\s*/?>", "\n"), ("(?i)</p\\s*>", "\n\n"), ("<[^>]+>", "")] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        let entities = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"),
                        ("&nbsp;", " "), ("&mdash;", "—"), ("&ndash;", "–"), ("&rsquo;", "’"), ("&lsquo;", "‘"),
                        ("&ldquo;", "“"), ("&rdquo;", "”"), ("&hellip;", "…"), ("&amp;", "&")]
        for (entity, character) in entities { text = text.replacingOccurrences(of: entity, with: character) }
        text = text.replacingOccurrences(of: "[ \\t]+", with: " ", options: .regularExpression)
        text = text.replacingOccurrences(of: "\\n\\s*\\n\\s*(\\n\\s*)+", with: "\n\n", options: .regularExpression)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
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
        "",
    ]

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
}
