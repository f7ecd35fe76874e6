import DemoLibrary
import Foundation
import Testing

/// The response faults of `PageFaults` (reset, understated Content-Length, slow drip, redirect loop, wrong media type,
/// expired token) on crawlable pages, and every fault on the loans feed, the manifests and the parts.
@Suite(.timeLimit(.minutes(5))) struct ResponseFaultTests {
    @Test func resetClosesTheConnectionWithoutAnAnswer() async throws {
        try await withServer { server, url in
            await server.state.setFaults(PageFaults(reset: true), page: 2)
            await #expect(throws: HTTPTestClient.Failure.self) { try await HTTPTestClient.get(url.page(2)) }
            // The server itself is fine afterwards.
            let after = try await HTTPTestClient.get(url.page(1))
            #expect(after.status == 200)
        }
    }

    @Test func understatedContentLengthPromisesLessThanIsSent() async throws {
        try await withServer { server, url in
            let whole = try await HTTPTestClient.get(url.page(2))
            await server.state.setFaults(PageFaults(understateContentLength: 200), page: 2)
            let short = try await HTTPTestClient.get(url.page(2))
            #expect(short.status == 200)
            #expect(short.header("Content-Length") == String(whole.body.count - 200))
            #expect(short.body == Array(whole.body.prefix(whole.body.count - 200)))
        }
    }

    @Test func slowDripSendsTheWholePageSlowly() async throws {
        try await withServer { server, url in
            let whole = try await HTTPTestClient.get(url.page(2))
            await server.state.setFaults(PageFaults(bytesPerSecond: whole.body.count * 2), page: 2)
            let clock = ContinuousClock()
            var dripped: RawResponse?
            let took = try await clock.measure { dripped = try await HTTPTestClient.get(url.page(2)) }
            #expect(took >= .milliseconds(400))
            #expect(dripped?.body == whole.body)
            #expect(dripped?.cutShort == false)
        }
    }

    @Test func redirectLoopPointsBackAtItself() async throws {
        try await withServer { server, url in
            await server.state.setFaults(PageFaults(redirectLoop: true), page: 2)
            let response = try await HTTPTestClient.get(url.page(2))
            #expect(response.status == 302)
            #expect(response.header("Location") == "/crawlable?page=2")
        }
    }

    @Test func wrongMediaTypeKeepsTheDocument() async throws {
        try await withServer { server, url in
            let whole = try await HTTPTestClient.get(url.page(2))
            await server.state.setFaults(PageFaults(contentType: "image/png"), page: 2)
            let response = try await HTTPTestClient.get(url.page(2))
            #expect(response.header("Content-Type") == "image/png")
            #expect(response.body == whole.body)
        }
    }

    @Test func loansFeedFaultsFireAndClear() async throws {
        try await withServer { server, url in
            let loans = url.path("loans")
            await server.state.updateSwitches { $0.loans = PageFaults(status: 503, statusTimes: 1, retryAfter: "2") }
            let failing = try await HTTPTestClient.get(loans, headers: basic())
            #expect(failing.status == 503)
            #expect(failing.header("Retry-After") == "2")
            #expect(try await HTTPTestClient.get(loans, headers: basic()).status == 200)
            #expect(await server.state.switches.loans.isEmpty)

            await server.state.updateSwitches { $0.loans = PageFaults(statusTimes: 1, expiredToken: true) }
            let expired = try await HTTPTestClient.get(loans, headers: basic())
            #expect(expired.status == 401)
            #expect(expired.text.contains("token/expired"))
            #expect(try await HTTPTestClient.get(loans, headers: basic()).status == 200)

            await server.state.updateSwitches { $0.loans = PageFaults(html: true) }
            let html = try await HTTPTestClient.get(loans, headers: basic())
            #expect(html.header("Content-Type")?.hasPrefix("text/html") == true)
            // Faults never open the feed to a stranger.
            #expect(try await HTTPTestClient.get(loans).status == 401)
        }
    }

    @Test func manifestFaultsApplyToTheManifestBehindTheToken() async throws {
        try await withServer { server, url in
            let token = try await fulfil(url, Works.onLoan)
            let bearer = ["Authorization": "Bearer \(token.access_token)"]
            let whole = try await HTTPTestClient.get(URL(string: token.location)!, headers: bearer)
            await server.state.updateSwitches { $0.manifests = PageFaults(truncate: true) }
            let cut = try await HTTPTestClient.get(URL(string: token.location)!, headers: bearer)
            // Each manifest signs its part links anew, so only the sizes compare: half, and well-formed HTTP.
            #expect(cut.status == 200)
            #expect(!cut.cutShort)
            #expect(abs(cut.body.count - whole.body.count / 2) <= 1)
            #expect(cut.text.hasPrefix("{"))
            #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(cut.body)) }

            await server.state.updateSwitches { $0.manifests = PageFaults(statusTimes: 1, expiredToken: true) }
            let expired = try await HTTPTestClient.get(URL(string: token.location)!, headers: bearer)
            #expect(expired.status == 401)
            #expect(expired.text.contains("token/expired"))
            #expect(try await HTTPTestClient.get(URL(string: token.location)!, headers: bearer).status == 200)
        }
    }

    @Test func manifestsStatePartLengthsWhenSwitched() async throws {
        try await withServer { server, url in
            try await server.state.prepareAudio()
            let plain = try await fulfilledManifest(url)
            let token = try await fulfil(url, Works.onLoan)
            let bearer = ["Authorization": "Bearer \(token.access_token)"]
            #expect(try await HTTPTestClient.get(URL(string: token.location)!, headers: bearer).text.contains("\"length\"") == false)
            await server.state.updateSwitches { $0.manifestPartLengths = true }
            let response = try await HTTPTestClient.get(URL(string: token.location)!, headers: bearer)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            let order = try #require(document["readingOrder"] as? [[String: Any]])
            #expect(order.count == plain.readingOrder.count)
            for (index, link) in order.enumerated() {
                let part = try await HTTPTestClient.get(partURL(plain, index + 1))
                #expect((link["length"] as? Int) == part.body.count)
            }
        }
    }

    @Test func partResponseFaultsApplyToTheListedParts() async throws {
        try await withServer { server, url in
            try await server.state.prepareAudio()
            let manifest = try await fulfilledManifest(url)
            let faults = AudioFaults(parts: [1], response: PageFaults(status: 500, statusTimes: 1))
            await server.state.setAudioFaults(faults, for: Works.onLoan)
            #expect(try await HTTPTestClient.get(partURL(manifest, 2)).status == 200)
            #expect(try await HTTPTestClient.get(partURL(manifest, 1)).status == 500)
            #expect(try await HTTPTestClient.get(partURL(manifest, 1)).status == 200)

            let expiring = AudioFaults(parts: [1], response: PageFaults(statusTimes: 1, expiredToken: true))
            await server.state.setAudioFaults(expiring, for: Works.onLoan)
            #expect(try await HTTPTestClient.get(partURL(manifest, 1)).status == 410)
            #expect(try await HTTPTestClient.get(partURL(manifest, 1)).status == 200)

            await server.state.setAudioFaults(AudioFaults(parts: [1], response: PageFaults(html: true)), for: Works.onLoan)
            let html = try await HTTPTestClient.get(partURL(manifest, 1))
            #expect(html.header("Content-Type")?.hasPrefix("text/html") == true)
        }
    }
}
