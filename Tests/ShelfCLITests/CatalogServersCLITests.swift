import Foundation
import ShelfCore
import Testing

/// `shelf browse` and `shelf search` against calibre's content server, as a patron meets it: a navigation root,
/// a search template written in the root's link, books as single files.
@Suite(.serialized, .enabled(if: CalibreServer.isInstalled, CalibreServer.skipMessage), .timeLimit(.minutes(5)))
struct CalibreBrowseCLITests {
    @Test func browseTheSectionsGoIntoOneAndSearch() async throws {
        let server = try await CalibreServer.start()
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        do {
            #expect(try await shelf.run(["library", "add", "cal", server.url.absoluteString]).status == 0)
            let root = try await shelf.json(CatalogPage.self, ["browse"])
            #expect(root.navigation.count == 4)
            #expect(root.navigation.prefix(3).map(\.title) == ["By Newest", "By Title", "By Authors"])
            #expect(root.lanes.isEmpty && root.publications.isEmpty && root.facets.isEmpty && root.hasSearch)
            let text = try await shelf.run(["browse"])
            #expect(text.stdout.hasPrefix("calibre Library\n\nSections\n   1  By Newest\n   2  By Title\n   3  By Authors\n"))

            let newest = try await shelf.json(CatalogPage.self, ["browse", "by newest"])
            #expect(newest.path == "1")
            #expect(Set(newest.publications.map(\.title)) == Set(CalibreServer.books.map(\.title)))
            #expect(newest.publications.allSatisfy { $0.foundBy == .browse })
            #expect(try await shelf.json(CatalogPage.self, ["browse", "1"]).publications.map(\.id) == newest.publications.map(\.id))

            let tides = try await shelf.json(SearchResults.self, ["search", "tides"])
            #expect(tides.publications.map(\.title) == ["Tides"])
            #expect(tides.url.contains("/opds/search/tides"))
            let show = try await shelf.run(["show", try #require(tides.publications.first).shortID])
            #expect(show.status == 0, "\(show.stderr)")
            #expect(show.stdout.hasPrefix("Tides\nby Ben Sample\n"))
            let twoWords = try await shelf.json(SearchResults.self, ["search", "ben", "sample"])
            #expect(twoWords.publications.map(\.title) == ["Tides"])

            // calibre answers a search that finds nothing with 404 "No books found": nothing matches, no failure.
            let nothing = try await shelf.run(["search", "nothingmatchesthis"])
            #expect(nothing.status == 0, "\(nothing.stderr)")
            #expect(nothing.stdout == "No titles match \"nothingmatchesthis\".\n")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// Real Palace documents (../shared/fixtures-real) served on loopback with their hosts rewritten: a groups feed
/// with lanes and entry-point facets, and a lane's acquisition feed with sort, availability and collection facets.
@Suite(.serialized, .enabled(if: PalaceFixtures.available, "../shared/fixtures-real is absent; the Palace browse tests are skipped"), .timeLimit(.minutes(5)))
struct PalaceBrowseCLITests {
    @Test func aGroupsFeedShowsItsLanesAndFacetsAndALaneItsBooks() async throws {
        let groups = PalaceFixtures.file("opds/minotaur-20231113.xml")
        let lane = PalaceFixtures.file("opds/acquisition-paginated-0.xml")
        let server = DocumentServer(
            documents: [
                "/minotaur-test-library/groups/": .init(file: groups),
                "/minotaur-test-library/feed/171": .init(file: lane),
            ],
            origins: ["https://minotaur.dev.palaceproject.io", "https://d2txvnljjb5oij.cloudfront.net",
                      "https://circulation.librarysimplified.org"])
        let base = try await server.start()
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        do {
            let root = base.absoluteString + "minotaur-test-library/groups/"
            #expect(try await shelf.run(["library", "add", "palace", root]).status == 0)
            let page = try await shelf.json(CatalogPage.self, ["browse"])
            #expect(page.title == "Minotaur Test Library" && page.hasSearch)
            // The lanes, in the order the document first names them, each with all of its entries.
            let lanes = try PalaceFixtures.lanes(in: groups)
            #expect(page.lanes.map(\.item.title) == lanes.map(\.title))
            #expect(page.lanes.map(\.publications.count) == lanes.map(\.count))
            #expect(page.lanes.map(\.item.number) == Array(1...lanes.count))
            #expect(page.facets.map(\.title) == ["All", "eBooks", "Audiobooks"])
            #expect(page.facets.filter(\.active).map(\.title) == ["Audiobooks"])
            #expect(page.facets.allSatisfy { $0.group == "Formats" })
            let text = try await shelf.run(["browse"])
            #expect(text.stdout.contains("  Formats\n"))
            #expect(text.stdout.contains("  \(lanes.count + 3)  Audiobooks  (current)\n"))

            // A facet followed: the server is asked for the facet's own URL.
            _ = try await shelf.json(CatalogPage.self, ["browse", "ebooks"])
            #expect(server.requests.contains("/minotaur-test-library/groups/?entrypoint=Book"))

            // A lane followed by its title: its books, and the facets of a Palace lane feed.
            let marketplace = try await shelf.json(CatalogPage.self, ["browse", "Palace Marketplace"])
            #expect(server.requests.contains("/minotaur-test-library/feed/171?entrypoint=Audio"))
            #expect(marketplace.path == "\(try #require(lanes.firstIndex { $0.title == "Palace Marketplace" }) + 1)")
            #expect(marketplace.publications.count == (try PalaceFixtures.entryCount(in: lane)))
            #expect(marketplace.facets.map(\.group) == Array(repeating: "Sort by", count: 4)
                + Array(repeating: "Availability", count: 3) + Array(repeating: "Collection", count: 2))
            #expect(marketplace.facets.filter(\.active).map(\.title) == ["Title", "Available now", "Everything"])
            // Its next page was rewritten to this server, like every link: browse never leaves the machine.
            #expect(marketplace.next?.hasPrefix(base.absoluteString) == true)
            let show = try await shelf.run(["show", try #require(marketplace.publications.first).shortID])
            #expect(show.status == 0, "\(show.stderr)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// The shared real documents, and what a test reads from them to know what to expect.
enum PalaceFixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures-real")

    static var available: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("opds").path) }

    static func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The `collection` links of a groups feed: each lane's title and how many entries name it, in first order.
    static func lanes(in file: URL) throws -> [(title: String, count: Int)] {
        let text = try String(contentsOf: file, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"<link [^>]*rel="collection" title="([^"]+)""#)
        var lanes: [(title: String, count: Int)] = []
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let title = String(text[Range(match.range(at: 1), in: text)!])
            if let index = lanes.firstIndex(where: { $0.title == title }) {
                lanes[index].count += 1
            } else {
                lanes.append((title, 1))
            }
        }
        return lanes
    }

    static func entryCount(in file: URL) throws -> Int {
        try String(contentsOf: file, encoding: .utf8).components(separatedBy: "<entry").count - 1
    }
}
