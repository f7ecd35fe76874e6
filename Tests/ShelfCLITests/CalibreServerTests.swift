import Foundation
import ShelfCore
import Testing

/// calibre's content server, read with shelf's own HTTP client and parsers: the shapes the patron tests
/// build on (a navigation root, single-file acquisitions, HTTP sign-in) are what calibre really serves.
@Suite(.serialized, .enabled(if: CalibreServer.isInstalled, CalibreServer.skipMessage), .timeLimit(.minutes(5)))
struct CalibreServerTests {
    private func feed(_ url: URL) throws -> (OPDSFeedInfo, [OPDSEntry]) {
        let response = try HTTPClient().request(url, headers: ["Accept": FeedDocument.accept])
        #expect(response.status == 200)
        var entries: [OPDSEntry] = []
        let info = try FeedDocument(baseURL: url).parse(
            data: response.body, contentType: response.header("content-type")) { entries.append($0) }
        return (info, entries)
    }

    @Test func theRootIsANavigationFeedLeadingToTheBooksAsSingleFiles() async throws {
        let server = try await CalibreServer.start()
        do {
            let (root, rootEntries) = try feed(server.url)
            #expect(rootEntries.isEmpty)
            #expect(root.isNavigation)
            #expect(root.navigation.map(\.title).prefix(3) == ["By Newest", "By Title", "By Authors"])
            #expect(root.search?.href.contains("{searchTerms}") == true)
            let newest = try #require(root.navigation.first { $0.title == "By Newest" })
            let (_, books) = try feed(try #require(URL(string: newest.href)))
            #expect(Set(books.map(\.title)) == Set(CalibreServer.books.map(\.title)))
            // calibre lists the m4b's entry but offers no acquisition for it.
            #expect(books.first { $0.title == "Harbour Lights" }?.acquisitions.isEmpty == true)
            let keeper = try #require(books.first { $0.title == "The Lighthouse Keeper" })
            #expect(keeper.acquisitions.map(\.type) == ["audio/mpeg"])
            #expect(keeper.acquisitions.first?.kind == .generic)
            #expect(keeper.availability == nil)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test(arguments: [CalibreServer.Auth.basic, .digest])
    func withSignInTheRootAnswers401WithItsScheme(auth: CalibreServer.Auth) async throws {
        let server = try await CalibreServer.start(auth: auth)
        do {
            let response = try HTTPClient().request(server.url)
            #expect(response.status == 401)
            let challenge = try #require(response.header("www-authenticate"))
            #expect(challenge.hasPrefix(auth == .basic ? "Basic" : "Digest"))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
