import DemoLibrary
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct LoansTests {
    @Test func loansNeedBasicCredentials() async throws {
        try await withServer { _, url in
            let anonymous = try await HTTPTestClient.get(url.path("loans/"))
            #expect(anonymous.status == 401)
            #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Basic realm=") == true)
            #expect(anonymous.header("Content-Type") == "application/vnd.opds.authentication.v1.0+json")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(anonymous.body)) as? [String: Any])
            #expect(document["authentication"] is [[String: Any]])

            let wrong = try await HTTPTestClient.get(url.path("loans/"), headers: basic("demo", "9999"))
            #expect(wrong.status == 401)

            let signedIn = try await HTTPTestClient.get(url.path("loans/"), headers: basic())
            #expect(signedIn.status == 200)
        }
    }

    @Test func patronStartsWithTwoLoansAndAHold() async throws {
        try await withServer { server, url in
            let response = try await HTTPTestClient.get(url.path("loans/"), headers: basic())
            let feed = try AtomSummary.parse(response.body)
            #expect(feed.entryIDs.count == 3)
            #expect(feed.acquisitionRels.filter { $0 == "http://opds-spec.org/acquisition" }.count == 2)
            #expect(feed.availabilityStatuses.sorted() == ["available", "available", "reserved"])
            #expect(feed.holdPositions == ["2"])
            #expect(feed.revokeLinks == 3)
            #expect(response.text.contains("<opds:availability status=\"available\" since=\""))
            #expect(response.text.contains("until=\""))
            let titles = await server.state.catalog.titles
            let media = feed.entryIDs.compactMap { id in titles.first { $0.id == id }?.medium }
            #expect(media.contains(.audiobook) && media.contains(.ebook))
        }
    }

    @Test func emptyLoansSwitch() async throws {
        try await withServer { server, url in
            await server.state.setEmptyLoans(true)
            let feed = try AtomSummary.parse(try await HTTPTestClient.get(url.path("loans/"), headers: basic()).body)
            #expect(feed.entryIDs.isEmpty)
            #expect(feed.link("self") != nil)
        }
    }

    @Test func customCredentials() async throws {
        try await withServer(.init(username: "23333000000001", password: "0000")) { _, url in
            #expect(try await HTTPTestClient.get(url.path("loans/"), headers: basic()).status == 401)
            let ok = try await HTTPTestClient.get(url.path("loans/"), headers: basic("23333000000001", "0000"))
            #expect(ok.status == 200)
        }
    }
}
