import DemoLibrary
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct AdminRouteTests {
    @Test func switchesRoundTripAsJSON() async throws {
        try await withServer { server, url in
            let set = try await HTTPTestClient.post(url.path("_demo/switches"), json: """
                {"delayMilliseconds": 5, "emptyLoans": true,
                 "pages": {"2": {"status": 500}, "3": {"truncate": true}, "4": {"dropConnectionAfterBytes": 10}}}
                """)
            #expect(set.status == 200)
            let switches = await server.state.switches
            #expect(switches.delayMilliseconds == 5)
            #expect(switches.emptyLoans)
            #expect(switches.pages[2]?.status == 500)
            #expect(switches.pages[3]?.truncate == true)
            #expect(switches.pages[4]?.dropConnectionAfterBytes == 10)
            #expect(try await HTTPTestClient.get(url.page(2)).status == 500)

            let read = try await HTTPTestClient.get(url.path("_demo/switches"))
            let decoded = try JSONDecoder().decode(DemoSwitches.self, from: Data(read.body))
            #expect(decoded == switches)

            let one = try await HTTPTestClient.post(url.path("_demo/pages/5/faults"), json: #"{"html": true}"#)
            #expect(one.status == 200)
            #expect(await server.state.switches.pages[5]?.html == true)

            #expect(try await HTTPTestClient.post(url.path("_demo/reset"), json: "{}").status == 200)
            #expect(await server.state.switches == DemoSwitches())
            #expect(await server.state.requestCount("/crawlable") == 0)

            let bad = try await HTTPTestClient.post(url.path("_demo/switches"), json: "{not json")
            #expect(bad.status == 400)
        }
    }

    @Test func mutateAndTitleEditsOverHTTP() async throws {
        try await withServer(.init(pageSize: 10, generatedEntries: 200)) { server, url in
            let mutated = try await HTTPTestClient.post(url.path("_demo/mutate"), json: #"{"fraction": 0.05, "seed": 9}"#)
            #expect(mutated.status == 200)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(mutated.body)) as? [String: Any])
            #expect(body["changedEntries"] as? Int == 10)

            let id = await server.state.catalog[3].id
            let touched = try await HTTPTestClient.post(
                url.path("_demo/titles/\(id)/touch"), json: #"{"updated": "2030-01-02T03:04:05Z"}"#
            )
            #expect(touched.status == 200)
            #expect(await server.state.title(id: id)?.updated == Date(timeIntervalSince1970: 1_893_553_445))

            let moved = try await HTTPTestClient.post(url.path("_demo/titles/\(id)/href"), json: #"{"href": "x/y"}"#)
            #expect(moved.status == 200)
            #expect(await server.state.title(id: id)?.acquisitionHref == "x/y")

            let added = try await HTTPTestClient.post(url.path("_demo/titles"), json: """
                {"title": {"id": "urn:uuid:00000000-0000-4000-8000-00000000a11d", "title": "Added over HTTP",
                           "authors": ["Someone"], "updated": "2024-05-01T00:00:00Z"}, "position": 0}
                """)
            #expect(added.status == 201)
            #expect(await server.state.catalog[0].title == "Added over HTTP")
            let duplicate = try await HTTPTestClient.post(url.path("_demo/titles"), json: """
                {"title": {"id": "urn:uuid:00000000-0000-4000-8000-00000000a11d", "title": "Again",
                           "authors": ["Someone"], "updated": "2024-05-01T00:00:00Z"}}
                """)
            #expect(duplicate.status == 409)

            #expect(try await HTTPTestClient.delete(url.path("_demo/titles/\(id)")).status == 204)
            #expect(await server.state.title(id: id) == nil)
            #expect(try await HTTPTestClient.delete(url.path("_demo/titles/\(id)")).status == 404)
        }
    }

    @Test func statsCountRequestsButNotAdminCalls() async throws {
        try await withServer { _, url in
            _ = try await HTTPTestClient.get(url.page(1))
            _ = try await HTTPTestClient.get(url.page(1))
            let stats = try await HTTPTestClient.get(url.path("_demo/stats"))
            let decoded = try JSONDecoder().decode(DemoRequestStats.self, from: Data(stats.body))
            #expect(decoded.requests["/crawlable?page=1"] == 2)
            #expect(decoded.requests.keys.allSatisfy { !$0.hasPrefix("/_demo") })
        }
    }
}
