import Foundation
import ShelfCore
import Testing

/// A 2,000-book calibre library, its root a navigation feed: the sync reads the feed of every title ("By Newest")
/// and a few pages of the sections to check it, not the hundreds of author, series and tag feeds, and a book the
/// librarian deletes is removed.
@Suite(.serialized, .enabled(if: CalibreServer.isInstalled, CalibreServer.skipMessage), .timeLimit(.minutes(10)))
struct CalibreCrawlCLITests {
    private func summary(_ result: ShelfRunner.Result) throws -> SyncSummary {
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(JSONDecoder.iso.decode([SyncSummary].self, from: Data(result.stdout.utf8)).first)
    }

    @Test func twoThousandBooksAreReadThroughTheFeedOfEveryTitleAndADeletedOneIsRemoved() async throws {
        let generated = 2_000
        let server = try await CalibreServer.start(generated: generated)
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        do {
            let books = generated + CalibreServer.books.count
            // calibre's OPDS pages hold 30 entries (its max_opds_items): the feed's pages, the root and the check.
            let bound = books / 30 + 10
            #expect(try await shelf.run(["library", "add", "cal", server.url.absoluteString]).status == 0)
            let first = try summary(try await shelf.run(["sync", "--json"]))
            #expect(first.added == books && first.removed == 0, "\(first)")
            #expect(first.crawlRoute?.hasPrefix(#""By Newest" ("#) == true, "\(first.crawlRoute ?? "")")
            #expect(first.pages <= bound && first.crawlLimit == nil && first.warnings.isEmpty, "\(first)")

            let again = try summary(try await shelf.run(["sync", "--json"]))
            #expect((again.added, again.changed, again.removed) == (0, 0, 0), "\(again)")
            #expect(again.pages <= bound && again.crawlRoute != nil, "\(again)")

            // calibre numbers its books from 1: the template's four, then the generated ones.
            try await server.remove(bookID: 100)
            let removed = try summary(try await shelf.run(["sync", "--json"]))
            #expect((removed.added, removed.removed) == (0, 1), "\(removed)")
            #expect(removed.pages <= bound, "\(removed)")
            let list = try await shelf.run(["list", "--tsv"])
            #expect(list.stdout.split(separator: "\n").count == books, "one header line and the books left")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
