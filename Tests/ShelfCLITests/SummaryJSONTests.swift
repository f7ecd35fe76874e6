import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// `shelf list --json` writes each summary by hand (`SummaryJSON`); these hold it to the bytes `Output.json` (the
/// JSONEncoder every other `--json` uses) writes for the same array.
@Suite(.timeLimit(.minutes(5))) struct SummaryJSONTests {
    /// What `Output.json` prints for the array, and what `list --json` writes for it.
    static func both(_ summaries: [EditionSummary]) throws -> (encoder: String, byHand: String) {
        let encoder = String(decoding: try Output.encoder.encode(summaries), as: UTF8.self) + "\n"
        var written = ""
        var array = JSONArrayWriter { written += $0 }
        for summary in summaries { array.append(element: "  " + SummaryJSON.element(summary)) }
        array.finish()
        return (encoder, written)
    }

    static func summary(_ json: String) throws -> EditionSummary {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(EditionSummary.self, from: Data(json.utf8))
    }

    /// Every field of `EditionSummary` set: a field the hand writer does not know is missing from its bytes.
    static let everyField = """
        {"actions": ["borrow", "download", "return"], "authors": "Ann \\"Nan\\" O'Hara \\\\ Co / 北京 ñ 🎧",
         "availability": "available", "availableSince": "2024-02-04T17:20:00Z",
         "availableUntil": "2031-12-31T23:59:59Z", "circulation": "14 days left", "consumption": "in-progress",
         "copiesAvailable": 2, "copiesTotal": 5, "duration": 36000.5, "entitlement": "loan", "foundBy": "search",
         "holdWait": {"copies": 5, "days": 31.5, "loanDays": 21, "loanDaysMeasured": true, "position": 3, "text": "about 5 weeks"},
         "holdsPosition": 3, "holdsTotal": 12, "id": "https://example.test/works/?urn=urn%3Aisbn%2F44977",
         "inCatalog": false, "isDraft": true, "isPaid": true, "medium": "audiobook",
         "narrators": "tab\\there, line\\nend, cr\\r, bell\\u0007, escape\\u001b, nul-free\\u001f, del\\u007f",
         "percent": 33.333333333333336, "protection": "Adobe", "revokeURL": "https://example.test/revoke/1",
         "series": {"href": "https://example.test/series/7", "name": "The \\"Books\\"", "position": "2.5"},
         "shortID": "44977abc", "state": "downloaded", "title": "A\\bB\\fC"}
        """

    @Test func everyFieldIsWrittenAsTheEncoderWritesIt() throws {
        let summary = try Self.summary(Self.everyField)
        // Every stored property is set (the encoder writes each back), so one the hand writer lacks shows below.
        let reencoded = String(decoding: try Output.encoder.encode(summary), as: UTF8.self)
        let properties = Mirror(reflecting: summary).children.compactMap(\.label)
        #expect(properties.count >= 27)
        for property in properties {
            #expect(reencoded.contains("\"\(property)\" :"), "everyField leaves \(property) unset")
        }
        let (encoder, byHand) = try Self.both([summary, summary])
        #expect(byHand == encoder)
    }

    @Test func aSummaryWithNothingOptionalIsWrittenAsTheEncoderWritesIt() throws {
        let bare = try Self.summary("""
            {"actions": [], "authors": "", "circulation": "", "entitlement": "none", "id": "x", "inCatalog": true,
             "isDraft": false, "isPaid": false, "medium": "", "narrators": "", "shortID": "x", "state": "new",
             "title": ""}
            """)
        let (encoder, byHand) = try Self.both([bare])
        #expect(byHand == encoder)
    }

    @Test func numbersAreWrittenAsTheEncoderWritesThem() throws {
        var summaries: [EditionSummary] = []
        for value in [0, 6, 11100, 0.5, 1e-7, 1.5e300, 123456789.25, 2.0 / 3, 1e16, -0.0] {
            var summary = try Self.summary(Self.everyField)
            summary.duration = value
            summary.percent = value
            summaries.append(summary)
        }
        let (encoder, byHand) = try Self.both(summaries)
        #expect(byHand == encoder)
    }

    @Test func anEmptyListIsTheEncodersEmptyArray() throws {
        let (encoder, byHand) = try Self.both([])
        #expect(byHand == encoder)
    }

    /// The lean element (`list --json` without `--full`): one line, every value it keeps the same as the full
    /// element's, and only what is empty, none, true-by-default or not for lists left out.
    @Test func theLeanElementIsOneLineOfTheFullOnesValues() throws {
        let full = try Self.summary(Self.everyField)
        let bare = try Self.summary("""
            {"actions": [], "authors": "", "circulation": "", "entitlement": "none", "id": "x", "inCatalog": true,
             "isDraft": false, "isPaid": false, "medium": "", "narrators": "", "shortID": "x", "state": "new",
             "title": ""}
            """)
        let kept: [String: Set<String>] = [
            "every field": [
                "id", "shortID", "title", "authors", "medium", "protection", "state", "entitlement", "availableUntil",
                "circulation", "consumption", "percent", "series", "inCatalog", "foundBy", "actions",
            ],
            "nothing optional": ["id", "shortID", "title", "medium", "state"],
        ]
        for (name, summary) in [("every field", full), ("nothing optional", bare)] {
            var bytes: [UInt8] = []
            SummaryJSON.leanElement(summary, into: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("\n") && !text.contains(": "), "\(text)")
            let lean = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            let whole = try #require(
                try JSONSerialization.jsonObject(with: Data(SummaryJSON.element(summary).utf8)) as? [String: Any])
            #expect(Set(lean.keys) == kept[name], "\(name): \(lean.keys.sorted())")
            for (key, value) in lean where key != "series" {
                #expect("\(value)" == "\(whole[key] ?? "missing")", "\(name): \(key)")
            }
        }
        var series: [UInt8] = []
        SummaryJSON.leanElement(full, into: &series)
        #expect(String(decoding: series, as: UTF8.self).contains(#""series":{"name":"The \"Books\"","position":"2.5"}"#))
    }
}
