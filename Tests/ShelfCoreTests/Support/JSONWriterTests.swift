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
}
