import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// `shelf list` writes a row that fits its columns straight from the summary (`ListPrinter.appendRow`); every row
/// must be the bytes the general table writer makes of its cells, and a row that does not fit goes that way.
@Suite(.timeLimit(.minutes(5))) struct ListRowTests {
    @Test func aRowWrittenStraightIsTheTablesRow() throws {
        let bare = """
            {"actions": [], "authors": "Ann Author", "circulation": "available, 2 of 3 copies", "entitlement": "none",
             "id": "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002", "inCatalog": true, "isDraft": false,
             "isPaid": false, "medium": "audiobook", "narrators": "", "shortID": "7d3c0002", "state": "new",
             "title": "A Title", "consumption": "in-progress", "percent": 43}
            """
        var summaries: [EditionSummary] = []
        for change in 0..<7 {
            var summary = try SummaryJSONTests.summary(bare)
            switch change {
            case 1: summary.inCatalog = false
            case 2: summary.protection = "Adobe"
            case 3: summary.title = String(repeating: "Long title ", count: 8)
            case 4: summary.authors = "Zoë Ünicode"
            case 5: summary.circulation = "on loan, 14 days left – long phrase that is never cut"
            case 6: summary.consumption = nil
            default: break
            }
            summaries.append(summary)
        }
        var layout = TableLayout(header: ListPrinter.header)
        layout.set(widths: [8, ListPrinter.pipeWidths.title, ListPrinter.pipeWidths.author, ListPrinter.kindWidth,
                            ListPrinter.stateWidth, ListPrinter.progressWidth])
        var straight = 0
        for summary in summaries {
            var general: [UInt8] = []
            layout.render(ListPrinter.cells(summary), into: &general)
            var line: [UInt8] = Array("kept".utf8)
            if ListPrinter.appendRow(summary, widths: layout.widths, into: &line) {
                straight += 1
                #expect(line == Array("kept".utf8) + general, "\(String(decoding: line, as: UTF8.self))")
            } else {
                #expect(line == Array("kept".utf8), "a row that does not fit leaves the line as it was")
            }
        }
        // The title too long for its column, the author with accents and the phrase with a dash go the general way.
        #expect(straight == 4)
    }
}
