import DemoLibrary
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct FaultSwitchTests {
    @Test(arguments: [404, 500])
    func pageFailsWithStatus(_ status: Int) async throws {
        try await withServer { server, url in
            await server.state.setFaults(PageFaults(status: status), page: 2)
            let failing = try await HTTPTestClient.get(url.page(2))
            #expect(failing.status == status)
            #expect(failing.header("Content-Type") == "application/api-problem+json")
            #expect(try await HTTPTestClient.get(url.page(1)).status == 200)
            await server.state.setFaults(PageFaults(), page: 2)
            #expect(try await HTTPTestClient.get(url.page(2)).status == 200)
        }
    }

    @Test func truncateSendsWellFormedHTTPWithBrokenXML() async throws {
        try await withServer { server, url in
            let whole = try await HTTPTestClient.get(url.page(2))
            await server.state.setFaults(PageFaults(truncate: true), page: 2)
            let cut = try await HTTPTestClient.get(url.page(2), headers: ["Accept-Encoding": "gzip"])
            #expect(cut.status == 200)
            #expect(!cut.cutShort)
            #expect(cut.header("Content-Length") == String(cut.body.count))
            #expect(cut.body.count == whole.body.count / 2)
            #expect(cut.body == Array(whole.body.prefix(cut.body.count)))
            // The document stops mid-feed: no closing tag, so any strict XML reader must reject it.
            #expect(cut.text.hasPrefix("<?xml"))
            #expect(!cut.text.contains("</feed>"))
        }
    }

    @Test func dropConnectionClosesShortOfContentLength() async throws {
        try await withServer { server, url in
            await server.state.setFaults(PageFaults(dropConnectionAfterBytes: 1_000), page: 3)
            let dropped = try await HTTPTestClient.get(url.page(3))
            #expect(dropped.status == 200)
            #expect(dropped.cutShort)
            #expect(dropped.body.count == 1_000)
            #expect(Int(dropped.header("Content-Length") ?? "") ?? 0 > 1_000)
            // The server itself is fine afterwards.
            #expect(try await HTTPTestClient.get(url.page(1)).status == 200)
        }
    }

    @Test func htmlInsteadOfAtom() async throws {
        try await withServer { server, url in
            await server.state.setFaults(PageFaults(html: true), page: 1)
            let response = try await HTTPTestClient.get(url.page(1))
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(response.text.contains("<!DOCTYPE html>"))
        }
    }

    @Test func wellFormedXMLThatIsNotAtom() async throws {
        try await withServer { server, url in
            await server.state.setFaults(PageFaults(notAtom: true), page: 1)
            let response = try await HTTPTestClient.get(url.page(1))
            let document = try AtomSummary.parse(response.body)
            #expect(document.rootName == "rss")
            #expect(response.header("Content-Type")?.hasPrefix("application/atom+xml") == true)
        }
    }

    @Test func nextLinkLoopsBack() async throws {
        try await withServer { server, url in
            await server.state.setFaults(PageFaults(nextPage: 3), page: 3)
            await server.state.setFaults(PageFaults(nextPage: 1), page: 4)
            let third = try AtomSummary.parse(try await HTTPTestClient.get(url.page(3)).body)
            #expect(third.link("next") == url.page(3).absoluteString)
            let fourth = try AtomSummary.parse(try await HTTPTestClient.get(url.page(4)).body)
            #expect(fourth.link("next") == url.page(1).absoluteString)
        }
    }

    @Test func hugeEntryIsStreamedWhole() async throws {
        try await withServer { server, url in
            let size = 3 * 1_048_576 + 17
            await server.state.setFaults(PageFaults(hugeEntryBytes: size), page: 2)
            let response = try await HTTPTestClient.get(url.page(2))
            #expect(response.status == 200)
            #expect(!response.cutShort)
            #expect(response.body.count > size)
            let feed = try AtomSummary.parse(response.body)
            #expect(feed.entryIDs.count == 6)
            #expect(feed.link("next") == url.page(3).absoluteString)
        }
    }

    @Test func delaySlowsEveryResponse() async throws {
        try await withServer(.init(delayMilliseconds: 250)) { server, url in
            let clock = ContinuousClock()
            let slow = try await clock.measure { _ = try await HTTPTestClient.get(url.page(1)) }
            #expect(slow >= .milliseconds(250))
            await server.state.setDelay(milliseconds: 0)
            #expect(await server.state.switches.delayMilliseconds == 0)
        }
    }

    @Test func clearingSwitchesRestoresNormalService() async throws {
        try await withServer { server, url in
            await server.state.setSwitches(DemoSwitches(
                delayMilliseconds: 1, emptyLoans: true, pages: [1: PageFaults(status: 500), 2: PageFaults(html: true)]
            ))
            await server.state.clearSwitches()
            #expect(await server.state.switches == DemoSwitches())
            let status = try await HTTPTestClient.get(url.page(1)).status
            #expect(status == 200)
        }
    }
}
