import Foundation
import ShelfCore
import Testing

/// A patron adds calibre's content server by its root URL and syncs: the crawl reaches every book once.
@Suite(.serialized, .enabled(if: CalibreServer.isInstalled, CalibreServer.skipMessage), .timeLimit(.minutes(5)))
struct CalibreSyncCLITests {
    private struct Listed: Decodable {
        var id: String
        var title: String
    }

    @Test func fromTheRootSyncReachesEveryBookOnceAndStoresNoNavigation() async throws {
        let server = try await CalibreServer.start()
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        do {
            let added = try await shelf.run(["library", "add", "cal", server.url.absoluteString])
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.hasPrefix(#"OPDS 1 navigation feed "calibre Library": 4 sections; search: yes; sign-in: none"#))

            let sync = try await shelf.run(["sync"])
            #expect(sync.status == 0, "\(sync.stderr)")
            // By Newest, By Title and each author's feed list the same books: each is stored once.
            #expect(sync.stdout == "\(CalibreServer.books.count) new, 0 updated, 0 removed\n")
            #expect(sync.stderr.isEmpty)
            let list = try await shelf.run(["list", "--json"])
            let titles = try JSONDecoder().decode([Listed].self, from: Data(list.stdout.utf8))
            // The three books with a file, and the m4b calibre lists without one.
            #expect(Set(titles.map(\.title)) == Set(CalibreServer.books.map(\.title)))
            #expect(Set(titles.map(\.id)).count == titles.count)
            #expect(titles.allSatisfy { $0.id.hasPrefix("urn:uuid:") })

            let again = try await shelf.run(["sync"])
            #expect(again.stdout == "0 new, 0 updated, 0 removed\n")

            // "By Newest" holds every book: one feed is enough, read without a check when the bound leaves none.
            let bounded = try await shelf.run(["sync", "--crawl-feeds", "1", "--json"])
            #expect(bounded.status == 0, "\(bounded.stderr)")
            let summary = try #require(JSONDecoder.iso.decode([SyncSummary].self, from: Data(bounded.stdout.utf8)).first)
            #expect((summary.added, summary.removed, summary.crawledFeeds, summary.crawlLimit) == (0, 0, 1, nil))
            #expect(summary.crawlRoute?.hasPrefix(#""By Newest" (http://127.0.0.1:"#) == true, "\(summary.crawlRoute ?? "")")
            #expect(bounded.stderr.isEmpty)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test(arguments: [CalibreServer.Auth.basic, .digest])
    func addingACalibreThatAsksToSignInSaysHow(auth: CalibreServer.Auth) async throws {
        let server = try await CalibreServer.start(auth: auth)
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        let added = try await shelf.run(["library", "add", "cal", server.url.absoluteString])
        await server.stop()
        #expect(added.status == 0, "\(added.stderr)")
        let scheme = auth == .basic ? "Basic" : "Digest"
        #expect(added.stdout.hasPrefix("the catalog asks to sign in first: HTTP \(scheme), realm \""))
        #expect(added.stdout.contains("(run shelf login cal)\nAdded cal"))
        #expect(added.stdout.hasSuffix("Next: shelf login cal\n"))
    }
}
