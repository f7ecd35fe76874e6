import DemoLibrary
import Foundation
import Testing

/// A problem document's `type`, or nil when the body is not one.
func problemType(_ response: RawResponse) -> String? {
    guard response.header("Content-Type") == "application/api-problem+json",
          let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    else { return nil }
    return json["type"] as? String
}

func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer " + token] }

/// Asks the token endpoint for a bearer token with Basic credentials.
func token(_ url: URL, _ username: String = "demo", _ password: String = "1234") async throws -> String {
    let response = try await HTTPTestClient.send("POST", url.path("patrons/me/token/"),
                                                 headers: basic(username, password), body: nil)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    return try #require(json["access_token"] as? String)
}

@Suite(.timeLimit(.minutes(5))) struct AuthenticationTests {
    static let saml = "http://librarysimplified.org/authtype/SAML-2.0"

    @Test("the authentication document offers the configured flows", arguments: [
        [DemoAuthFlow.basic, .basicToken], [.basic], [.basicToken], [.other(type: saml)],
    ])
    func documentOffersConfiguredFlows(_ flows: [DemoAuthFlow]) async throws {
        try await withServer(.init(authFlows: flows)) { _, url in
            let response = try await HTTPTestClient.get(url.path("authentication_document"))
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/vnd.opds.authentication.v1.0+json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(json["id"] as? String == url.absoluteString + "authentication_document")
            #expect(json["title"] as? String == "Shelf Demo Library")
            #expect((json["description"] as? String)?.isEmpty == false)
            let links = try #require(json["links"] as? [[String: Any]])
            #expect(links.contains { $0["rel"] as? String == "help" })
            let offered = try #require(json["authentication"] as? [[String: Any]])
            #expect(offered.compactMap { $0["type"] as? String } == flows.map(\.type))
            for flow in offered where flow["type"] as? String != Self.saml {
                let labels = try #require(flow["labels"] as? [String: String])
                #expect(labels == ["login": "Library card", "password": "PIN"])
            }
            let tokenFlow = offered.first { $0["type"] as? String == "http://thepalaceproject.org/authtype/basic-token" }
            let authenticate = (tokenFlow?["links"] as? [[String: Any]])?.first
            #expect(tokenFlow == nil || authenticate?["rel"] as? String == "authenticate")
            #expect(tokenFlow == nil || authenticate?["href"] as? String == url.absoluteString + "patrons/me/token/")
        }
    }

    @Test func malformedDocumentSwitch() async throws {
        try await withServer { server, url in
            await server.state.updateSwitches { $0.malformedAuthDocument = true }
            for response in [try await HTTPTestClient.get(url.path("authentication_document")),
                             try await HTTPTestClient.get(url.path("loans/"))] {
                #expect(response.header("Content-Type") == "application/vnd.opds.authentication.v1.0+json")
                #expect((try? JSONSerialization.jsonObject(with: Data(response.body))) == nil)
            }
        }
    }

    @Test func noCredentialsGetTheDocumentWithAChallenge() async throws {
        try await withServer { _, url in
            for path in ["loans/", "works/urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010/borrow"] {
                let response = try await HTTPTestClient.get(url.path(path))
                #expect(response.status == 401)
                #expect(response.header("WWW-Authenticate") == #"Basic realm="Shelf Demo Library""#)
                #expect(response.header("Content-Type") == "application/vnd.opds.authentication.v1.0+json")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
                #expect(json["authentication"] is [[String: Any]])
            }
        }
    }

    @Test func wrongPINIsInvalidCredentials() async throws {
        try await withServer { _, url in
            let loans = try await HTTPTestClient.get(url.path("loans/"), headers: basic("demo", "0000"))
            #expect(loans.status == 401)
            #expect(problemType(loans) == "http://librarysimplified.org/terms/problem/credentials-invalid")
            let token = try await HTTPTestClient.send("POST", url.path("patrons/me/token/"),
                                                      headers: basic("other", "1234"), body: nil)
            #expect(token.status == 401)
            #expect(problemType(token) == "http://librarysimplified.org/terms/problem/credentials-invalid")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(token.body)) as? [String: Any])
            #expect(json["status"] as? Int == 401)
            #expect(json["title"] is String && json["detail"] is String)
        }
    }

    @Test func tokenIsIssuedAndUsedAndCounted() async throws {
        try await withServer { server, url in
            let response = try await HTTPTestClient.send("POST", url.path("patrons/me/token/"), headers: basic(), body: nil)
            #expect(response.status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["expires_in"] as? Int == 3_600)
            let token = try #require(json["access_token"] as? String)
            #expect(token.count >= 32)

            let loans = try await HTTPTestClient.get(url.path("loans/"), headers: bearer(token))
            #expect(loans.status == 200)
            #expect(try AtomSummary.parse(loans.body).entryIDs.count == 3)
            _ = try await HTTPTestClient.get(url.path("loans/"), headers: basic("other", "5678"))
            let stats = await server.state.stats
            #expect(stats.tokenRequests == 1)
            #expect(stats.tokensIssued == 1)
            #expect(stats.bearerRequests == 1)
            #expect(stats.basicRequests == 1)
        }
    }

    @Test func expiredTokenIsRecoverable() async throws {
        // Three ways for a token to run out: its lifetime passing on the clock, the switch, a zero lifetime.
        try await withServer(.init(tokenLifetime: 60)) { server, url in
            let first = try await token(url)
            #expect(try await HTTPTestClient.get(url.path("loans/"), headers: bearer(first)).status == 200)
            await server.state.advanceClock(by: 61)
            let late = try await HTTPTestClient.get(url.path("loans/"), headers: bearer(first))
            #expect(late.status == 401)
            #expect(problemType(late) == "http://palaceproject.io/terms/problem/auth/recoverable/token/expired")

            let second = try await token(url)
            #expect(try await HTTPTestClient.get(url.path("loans/"), headers: bearer(second)).status == 200)
            let expired = try await HTTPTestClient.post(url.path("_demo/tokens/expire"), json: "{}")
            #expect(expired.status == 204)
            let after = try await HTTPTestClient.get(url.path("loans/"), headers: bearer(second))
            #expect(problemType(after) == "http://palaceproject.io/terms/problem/auth/recoverable/token/expired")
            #expect(await server.state.stats.tokensIssued == 2)
        }
        try await withServer(.init(tokenLifetime: 0)) { _, url in
            let response = try await HTTPTestClient.get(url.path("loans/"), headers: bearer(try await token(url)))
            #expect(problemType(response) == "http://palaceproject.io/terms/problem/auth/recoverable/token/expired")
        }
    }

    @Test func unknownTokenIsUnrecoverable() async throws {
        try await withServer { _, url in
            let response = try await HTTPTestClient.get(url.path("loans/"), headers: bearer("not-a-token"))
            #expect(response.status == 401)
            #expect(problemType(response) == "http://palaceproject.io/terms/problem/auth/unrecoverable/invalid-credentials")
        }
    }

    @Test func basicOnlyLibraryHasNoTokens() async throws {
        try await withServer(.init(authFlows: [.basic])) { _, url in
            let endpoint = try await HTTPTestClient.send("POST", url.path("patrons/me/token/"), headers: basic(), body: nil)
            #expect(endpoint.status == 404)
            let response = try await HTTPTestClient.get(url.path("loans/"), headers: bearer("anything"))
            #expect(problemType(response) == "http://palaceproject.io/terms/problem/auth/unrecoverable/invalid-credentials")
            #expect(try await HTTPTestClient.get(url.path("loans/"), headers: basic()).status == 200)
        }
    }
}
