import Foundation
import Testing

@testable import ShelfCore

/// Hostile documents, built here in memory, that pass one of shelf's input limits; each is refused with the limit
/// it passed, before libxml2 (or Foundation's JSON parser) does the work it asks for.
@Suite("Input limits", .timeLimit(.minutes(5)))
struct OPDSInputLimitTests {
    /// A feed with one ordinary entry, then `element` inside a second entry.
    private func feed(around element: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom">
        <id>urn:feed:hostile</id>
        <entry><id>urn:book:first</id><title>First</title></entry>
        <entry><id>urn:book:second</id>
        \(element)
        </entry>
        </feed>
        """
    }

    /// `<link>` with `count` distinct attributes (about 12 bytes each: 200,000 of them make a 2.3 MB page).
    private func link(attributes count: Int) -> String {
        var text = #"<link href="a""#
        text.reserveCapacity(count * 12 + 32)
        for index in 0..<count { text += " a\(index)=\"v\"" }
        return text + "/>"
    }

    /// The error parsing `xml` from memory threw, and the same from a file (streamed through the scanner).
    private func errors(_ xml: String, parser: OPDSParser = OPDSParser()) throws -> (memory: OPDSParseError?, file: OPDSParseError?) {
        let memory = parseError { _ = try parser.parse(data: Data(xml.utf8)) { _ in } }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-limit-\(UUID().uuidString).xml")
        try Data(xml.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = parseError { _ = try parser.parse(file: url) { _ in } }
        return (memory, file)
    }

    @Test("a 2.3 MB page with 200,000 attributes on one element is refused, naming the limit and the line")
    func twoHundredThousandAttributes() async throws {
        let xml = feed(around: link(attributes: 200_000))
        #expect(xml.utf8.count > 2_250_000)
        let (memory, file) = try errors(xml)
        #expect(memory == .overLimit(.attributesPerElement, line: 6))
        #expect(file == .overLimit(.attributesPerElement, line: 6))
        let message = try #require(file).localizedDescription
        #expect(message.contains("an element at line 6 has more than 1000 attributes"))
        #expect(message.contains("attributes per XML element"))
        #expect(!message.contains("\n"))
    }

    @Test("an element with exactly the limit of attributes parses; one more is refused")
    func attributeBoundary() throws {
        let limit = InputLimit.attributesPerElement.value
        // `link` adds `href` to the count.
        let (atLimit, _) = try errors(feed(around: link(attributes: limit - 1)))
        #expect(atLimit == nil)
        let (memory, file) = try errors(feed(around: link(attributes: limit)))
        #expect(memory == .overLimit(.attributesPerElement, line: 6))
        #expect(file == memory)
    }

    @Test("elements nested past the depth limit are refused; at the limit they parse")
    func depth() throws {
        let limit = InputLimit.elementDepth.value
        // The feed and the entry are two levels; `content` a third.
        func nested(_ levels: Int) -> String {
            #"<content type="xhtml">"# + String(repeating: "<div>", count: levels) + "x"
                + String(repeating: "</div>", count: levels) + "</content>"
        }
        let (atLimit, atLimitFile) = try errors(feed(around: nested(limit - 3)))
        #expect(atLimit == nil && atLimitFile == nil)
        let (memory, file) = try errors(feed(around: nested(limit - 2)))
        #expect(memory == .overLimit(.elementDepth, line: 6))
        #expect(file == memory)
        // Far deeper than libxml2's own limit (256): still shelf's error, not libxml2's.
        let (deep, _) = try errors(feed(around: nested(100_000)))
        #expect(deep == .overLimit(.elementDepth, line: 6))
    }

    @Test("an element name and an attribute name over the length limit are refused")
    func nameLength() throws {
        let long = String(repeating: "n", count: InputLimit.nameBytes.value + 1)
        let (element, elementFile) = try errors(feed(around: "<\(long)/>"))
        #expect(element == .overLimit(.nameBytes, line: 6) && elementFile == element)
        let (attribute, attributeFile) = try errors(feed(around: #"<link \#(long)="x"/>"#))
        #expect(attribute == .overLimit(.nameBytes, line: 6) && attributeFile == attribute)
        let fits = String(repeating: "n", count: InputLimit.nameBytes.value)
        #expect(try errors(feed(around: #"<link href="x" \#(fits)="x"/>"#)).memory == nil)
    }

    @Test("an attribute value over the length limit is refused, in memory and streamed across chunks")
    func valueLength() throws {
        let limit = InputLimit.attributeValueBytes.value
        let (memory, file) = try errors(feed(around: #"<link href="\#(String(repeating: "v", count: limit + 1))"/>"#))
        #expect(memory == .overLimit(.attributeValueBytes, line: 6))
        #expect(file == memory)
        // A long but allowed value, with '>' and '=' in it, parses.
        let (fits, fitsFile) = try errors(feed(around: #"<link href="x>y=z\#(String(repeating: "v", count: 100_000))"/>"#))
        #expect(fits == nil && fitsFile == nil)
    }

    @Test("markup inside comments, CDATA, processing instructions and a DOCTYPE is not counted")
    func skippedMarkup() throws {
        let many = (0..<3_000).map { " a\($0)='1'" }.joined()
        let xml = feed(around: """
            <!-- <x\(many)> -->
            <summary><![CDATA[<x\(many)>]]></summary>
            <?pi <x\(many)> ?>
            <title type="html">&lt;x\(many)&gt;</title>
            """)
        let (memory, file) = try errors(xml)
        #expect(memory == nil && file == nil)
        let doctype = "<!DOCTYPE feed [ <!ENTITY e \"<x\(many)>\"> ]>\n"
        let withDoctype = feed(around: "").replacingOccurrences(of: "<feed ", with: doctype + "<feed ")
        #expect(try errors(withDoctype).memory == nil)
    }

    @Test("a page with more entries than the limit is refused; the default limit is the named one")
    func entriesPerPage() throws {
        #expect(OPDSParser().maxEntries == InputLimit.entriesPerPage.value)
        var parser = OPDSParser()
        parser.maxEntries = 1
        let (memory, file) = try errors(feed(around: ""), parser: parser)
        #expect(memory == .overLimit(.entriesPerPage, line: 5))
        #expect(file == memory)
        parser.maxEntries = 2
        #expect(try errors(feed(around: ""), parser: parser).memory == nil)
    }

    @Test("an OPDS 2 page with more publications than the limit is refused")
    func opds2EntriesPerPage() throws {
        #expect(OPDS2Parser().maxEntries == InputLimit.entriesPerPage.value)
        let json = Data(#"""
            {"metadata": {"title": "Page"}, "links": [], "publications": [
              {"metadata": {"identifier": "urn:a", "title": "A"}, "links": []},
              {"metadata": {"identifier": "urn:b", "title": "B"}, "links": []}]}
            """#.utf8)
        var parser = OPDS2Parser()
        parser.maxEntries = 1
        var ids: [String] = []
        #expect(parseError { _ = try parser.parse(data: json) { ids.append($0.id) } } == .overLimit(.entriesPerPage, line: nil))
        #expect(ids == ["urn:a"])
        parser.maxEntries = 2
        ids = []
        #expect(parseError { _ = try parser.parse(data: json) { ids.append($0.id) } } == nil)
        #expect(ids == ["urn:a", "urn:b"])
        #expect(OPDSParseError.overLimit(.entriesPerPage, line: nil).localizedDescription
            == "the catalog document is refused: the page has more than 1000000 entries (shelf's limit on entries per "
            + "catalog page); the document looks broken or hostile and was not used: report it to the library")
    }

    @Test("every limit is named, with its amount, in one line of the man page's LIMITS text")
    func manualText() {
        let lines = InputLimit.manualText.split(separator: "\n")
        #expect(lines.count == InputLimit.allCases.count)
        #expect(lines.contains("  attributes per XML element: 1000"))
        #expect(lines.contains("  XML attribute value length: 1 MB"))
        #expect(lines.contains("  JSON depth: 64 levels"))
    }

    @Test("JSON over the depth or size limit is refused before it is parsed")
    func json() throws {
        let deep = Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        #expect(InputLimit.jsonViolation(in: deep) == .jsonDepth)
        var large = Data(count: InputLimit.jsonBytes.value + 1)
        large[0] = UInt8(ascii: "\"")
        // A document other than a catalog page has the lower limit.
        #expect(InputLimit.jsonViolation(in: large) == .documentBytes)
        var document = Data(count: InputLimit.documentBytes.value + 1)
        document[0] = UInt8(ascii: "\"")
        #expect(InputLimit.jsonViolation(in: document) == .documentBytes)
        #expect(InputLimit.jsonViolation(in: document.prefix(InputLimit.documentBytes.value)) == nil)
        #expect(InputLimit.jsonViolation(in: Data(#"{"a": [[{"b": 1}]]}"#.utf8)) == nil)
        // The OPDS 2 parser's own bounds are these limits.
        #expect(parseError { _ = try OPDS2Parser().parse(data: deep) { _ in } } == .tooDeep(limit: 64))
        #expect(parseError { _ = try OPDS2Parser().parse(data: large) { _ in } } == .tooLarge(limit: 32 << 20))
    }

    @Test("an audiobook manifest nested too deep or with too many parts is refused, naming the limit")
    func manifest() throws {
        let url = URL(string: "https://library.example/manifest.json")!
        let deep = Data((#"{"readingOrder": "# + String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000) + "}").utf8)
        #expect(throws: FulfilmentError.malformedManifest(
            url: url.absoluteString, reason: "the document nests deeper than 64 levels, over shelf's limit on JSON depth")
        ) { try AudiobookManifest.parse(deep, url: url) }
        let part = #"{"href": "p.mp3", "type": "audio/mpeg", "duration": 1}"#
        let many = Data((#"{"metadata": {"title": "T"}, "readingOrder": ["#
            + Array(repeating: part, count: InputLimit.manifestParts.value + 1).joined(separator: ",") + "]}").utf8)
        #expect(throws: FulfilmentError.malformedManifest(
            url: url.absoluteString,
            reason: "the manifest lists more than 10000 parts, over shelf's limit on parts per audiobook manifest")
        ) { try AudiobookManifest.parse(many, url: url) }
    }

    @Test("a manifest of 400,000 parts is refused by its part count, in one pass, before any tree is built")
    func manifestOfManyParts() throws {
        let url = URL(string: "https://library.example/manifest.json")!
        // 400,000 short parts fit under the size limit; the count refuses them.
        let part = #"{"href":"p"}"#
        let many = Data((#"{"metadata": {"title": "T"}, "readingOrder": ["#
            + Array(repeating: part, count: 400_000).joined(separator: ",") + "]}").utf8)
        #expect(many.count < InputLimit.documentBytes.value)
        #expect(throws: FulfilmentError.malformedManifest(
            url: url.absoluteString,
            reason: "the manifest lists more than 10000 parts, over shelf's limit on parts per audiobook manifest")
        ) { try AudiobookManifest.parse(many, url: url) }
        // So are 10,001 chapters, named as what they are; and so are 21 lists of 10,000, by the values together.
        let chapters = Data((#"{"readingOrder": [{"href": "p.mp3"}], "toc": ["#
            + Array(repeating: #"{"href":"p.mp3"}"#, count: 10_001).joined(separator: ",") + "]}").utf8)
        #expect(InputLimit.jsonViolation(in: chapters, lists: ["readingOrder": .manifestParts]) == .jsonItems)
        let list = "[" + Array(repeating: "1", count: 10_000).joined(separator: ",") + "]"
        let lists = Data(("[" + Array(repeating: list, count: 21).joined(separator: ",") + "]").utf8)
        #expect(InputLimit.jsonViolation(in: lists) == .jsonValues)
        let fewer = Data(("[" + Array(repeating: list, count: 19).joined(separator: ",") + "]").utf8)
        #expect(InputLimit.jsonViolation(in: fewer) == nil)
        // In UTF-16 or UTF-32 (which Foundation reads) the parts are counted as in UTF-8: the zero bytes and the
        // halves of characters like U+2200 (bytes 22 00, a quote) hide nothing.
        let wide = #"{"readingOrder": ["# + Array(repeating: #"{"href": "\#u{2200}"}"#, count: 10_001).joined(separator: ",") + "]}"
        for encoding in [String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian, .utf32BigEndian, .utf32] {
            let data = try #require(wide.data(using: encoding))
            #expect(InputLimit.jsonViolation(in: data, lists: ["readingOrder": .manifestParts]) == .manifestParts, "\(encoding)")
        }
    }

    @Test("the shape pass counts items and names the member a list belongs to, whatever the strings hold")
    func shape() throws {
        let bounds = JSONShape.Bounds(depth: 64, items: 1_000, perContainer: 3)
        func measure(_ text: String) -> JSONShape {
            Data(text.utf8).withUnsafeBytes { JSONShape.measure($0, stoppingAbove: bounds) }
        }
        let plain = measure(#"{"a": [1, 2, 3], "b": {"c": "x,y]}", "d": []}, "e": [ ]}"#)
        #expect(plain.depth == 3)
        #expect(plain.largest == 3)
        #expect(plain.items == 3 + 3 + 2)
        #expect(plain.largestKey == nil)
        // Brackets, commas, colons and escaped quotes inside strings are text.
        let over = measure(#"{"x": "[,:\"]", "k\"ey": [1, "a,b", {"z": 1}, [2]]}"#)
        #expect(over.largest == 4)
        #expect(over.largestKey == #"k\"ey"#)
        let top = measure("[1, 2, 3, 4]")
        #expect(top.largest == 4 && top.largestKey == nil)
        #expect(measure("[]").items == 0 && measure("{}").largest == 0)
    }

    @Test("an Authentication document nested too deep is refused, naming the limit")
    func authenticationDocument() throws {
        let url = URL(string: "https://library.example/auth")!
        let deep = Data((#"{"authentication": "# + String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000) + "}").utf8)
        #expect(throws: CirculationError.malformedAuthDocument(
            url: url.absoluteString, reason: "the document nests deeper than 64 levels, over shelf's limit on JSON depth")
        ) { try AuthenticationDocument.parse(deep, url: url) }
    }

    @Test("a fulfilment token nested too deep is refused and a problem document too deep is not quoted")
    func tokenAndProblem() throws {
        let url = URL(string: "https://library.example/fulfil")!
        let nested = String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000)
        let token = Data((#"{"access_token": "t", "location": "https://library.example/m", "x": "# + nested + "}").utf8)
        #expect(throws: FulfilmentError.malformedToken(
            url: url.absoluteString, reason: "the document nests deeper than 64 levels, over shelf's limit on JSON depth")
        ) { try BearerToken.parse(token, url: url) }
        let shallow = #"{"access_token": "t", "location": "https://library.example/m", "x": [[1]]}"#
        #expect(try BearerToken.parse(Data(shallow.utf8), url: url).accessToken == "t")
        let problem = #"{"title": "Hold limit reached", "detail": "d", "x": "#
        #expect(ProblemDocument.parse(Data((problem + "[[1]]}").utf8))?.title == "Hold limit reached")
        #expect(ProblemDocument.parse(Data((problem + nested + "}").utf8)) == nil)
    }

    @Test("an annotation list with more annotations than the limit is refused as a whole")
    func annotationCount() throws {
        let item = #"{"motivation": "bookmarking"}"#
        let count = InputLimit.annotationsPerResponse.value
        let over = Data(("[" + Array(repeating: item, count: count + 1).joined(separator: ",") + "]").utf8)
        let message = "the response holds more than 10000 annotations, over shelf's limit on annotations per response"
        let collection = Data((#"{"first": {"items": ["# + Array(repeating: item, count: count + 1).joined(separator: ",") + "]}}").utf8)
        for document in [over, collection] {
            guard case .failure(let rejection) = RemoteAnnotation.items(in: document) else {
                Issue.record("a list over the limit was accepted")
                continue
            }
            #expect(rejection == AnnotationRejection(message))
        }
        let atLimit = Data(("[" + Array(repeating: item, count: count).joined(separator: ",") + "]").utf8)
        guard case .success(let items) = RemoteAnnotation.items(in: atLimit) else {
            Issue.record("a list at the limit was refused")
            return
        }
        #expect(items.count == count)
    }
}
