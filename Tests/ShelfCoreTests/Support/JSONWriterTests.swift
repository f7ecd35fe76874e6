import Foundation
import Testing
@testable import ShelfCore

@Suite(.timeLimit(.minutes(5))) struct JSONWriterTests {
    @Test func writesWhatFoundationReadsBack() throws {
        var json = JSONWriter()
        json.beginObject()
        json.field("plain", "Pride and Prejudice")
        json.field("escaped", "quote \" backslash \\ newline \n tab \t bell \u{07} é ✓")
        json.field("number", 42)
        json.field("absent", nil as String?)
        json.key("list")
        json.beginArray()
        json.value("a")
        json.value(nil as String?)
        json.value(true)
        json.beginObject()
        json.endObject()
        json.endArray()
        json.endObject()
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["plain"] as? String == "Pride and Prejudice")
        #expect(object["escaped"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{07} é ✓")
        #expect(object["number"] as? Int == 42)
        #expect(object["absent"] == nil)
        #expect((object["list"] as? [Any])?.count == 4)
        #expect(json.output.contains(#"\u0007"#))
    }

    @Test func entryDetailsRoundTripThroughTheStoreFormat() throws {
        let entry = OPDSEntry(
            id: "x", title: "T",
            authors: [Contributor(name: "A \"quoted\"", roles: [], sortName: "A", uri: "http://x/a")],
            contributors: [Contributor(name: "N", roles: ["nrt"])],
            categories: [Category(scheme: "s", term: "t", label: "L")],
            links: [OPDSLink(href: "http://x/", rel: "alternate", type: "text/html", title: nil)])
        let decoded = try JSONDecoder().decode(EditionDetailJSON.self, from: Data(EntryRecord.detailJSON(entry).utf8))
        #expect(decoded.authors == entry.authors)
        #expect(decoded.contributors == entry.contributors)
        #expect(decoded.categories == entry.categories)
        #expect(decoded.links == entry.links)
        let tree = [IndirectAcquisition(type: "a", children: [IndirectAcquisition(type: "b"), IndirectAcquisition(type: "c")])]
        #expect(try JSONDecoder().decode([IndirectAcquisition].self, from: Data(EntryRecord.indirectJSON(tree).utf8)) == tree)
    }
}
