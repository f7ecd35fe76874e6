import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

/// One session shared by several threads at once, against the demo library.
@Suite(.timeLimit(.minutes(5))) struct LibrarySessionTests {
    private struct Fixture: Sendable {
        let server: DemoLibraryServer
        let url: URL
        let library: Library
        let credentials: CredentialStore
        let test: TestHome

        var loans: URL { URL(string: "loans/", relativeTo: url)!.absoluteURL }

        /// Stores the demo patron's card (with `password`) for the basic-token flow, or for Basic.
        func signIn(password: String = "1234", token: Bool = true, configuration: HTTPConfiguration = HTTPConfiguration())
            throws -> LibrarySession
        {
            let stored = Credentials(
                authType: token ? AuthenticationDocument.basicTokenType : AuthenticationDocument.basicType,
                username: "demo", password: password,
                authenticateURL: token ? URL(string: "patrons/me/token/", relativeTo: url)!.absoluteString : nil)
            try credentials.save(stored, for: library.name)
            return try LibrarySession(library: library, credentialStore: credentials, configuration: configuration)
        }
    }

    private func withLibrary(_ body: (Fixture) async throws -> Void) async throws {
        try await withDemoLibrary { server, url in
            let test = TestHome()
            let library = try test.store().addLibrary(name: "demo", url: url)
            try await body(
                Fixture(server: server, url: url, library: library, credentials: CredentialStore(home: test.home), test: test))
        }
    }

    /// Sends `count` requests for the loans feed at once, each from a thread of its own. They are waited for off
    /// the shared pool: the demo library's state is an actor that needs a thread of it to answer them, and a test
    /// elsewhere may be holding the rest of the pool (ServerLifecycleTests blocks all of it on purpose).
    private func sendAtOnce(_ count: Int, _ session: LibrarySession, _ url: URL) async throws -> [Result<Int, any Error>] {
        try await offloaded {
            let senders = (0..<count).map { _ in Background { try session.send(url).status } }
            return senders.map { sender in Result { try sender.value() } }
        }
    }

    @Test func sendersAtOnceShareOneTokenRequest() async throws {
        try await withLibrary { fixture in
            let session = try fixture.signIn()
            let before = await fixture.server.state.stats.tokenRequests
            let results = try await sendAtOnce(8, session, fixture.loans)
            #expect(results.map { try? $0.get() } == Array(repeating: 200, count: 8))
            #expect(await fixture.server.state.stats.tokenRequests == before + 1)
            #expect(try fixture.credentials.load("demo")?.token != nil)
        }
    }

    @Test func aTokenTheLibraryExpiredIsRenewedOnceForEverySender() async throws {
        try await withLibrary { fixture in
            let session = try fixture.signIn()
            #expect(try await sendAtOnce(1, session, fixture.loans).map { try? $0.get() } == [200])
            let issued = await fixture.server.state.stats.tokensIssued
            await fixture.server.state.expireAllTokens()
            let results = try await sendAtOnce(8, session, fixture.loans)
            #expect(results.map { try? $0.get() } == Array(repeating: 200, count: 8))
            #expect(await fixture.server.state.stats.tokensIssued == issued + 1)
        }
    }

    @Test func credentialsTheLibraryRejectsAreErasedForEverySender() async throws {
        try await withLibrary { fixture in
            let session = try fixture.signIn(password: "0000")
            let before = await fixture.server.state.stats.tokenRequests
            let results = try await sendAtOnce(4, session, fixture.loans)
            // A sender that got in before the card was erased is told it was rejected; one that started after
            // sends no credentials and gets the library's 401, as it would one after the other.
            var rejected = 0
            for result in results {
                switch result {
                case .failure(CirculationError.credentialsRejected(let library)) where library == "demo": rejected += 1
                case .success(401): break
                default: Issue.record("unexpected \(result)")
                }
            }
            #expect(rejected >= 1)
            #expect(await fixture.server.state.stats.tokenRequests == before + 1)
            #expect(!session.isSignedIn)
            #expect(try fixture.credentials.load("demo") == nil)
        }
    }

    @Test func requestsRunSideBySideAndNeverHoldTheLock() async throws {
        try await withLibrary { fixture in
            // Held requests must not be given up however long the second takes to arrive on a busy machine.
            var patient = HTTPConfiguration()
            patient.stallTimeout = 600
            let session = try fixture.signIn(token: false, configuration: patient)
            // Requests are held at the library's door until it opens: both get there only if the session lets them
            // go side by side.
            await fixture.server.state.closeGate()
            let loans = fixture.loans
            let first = Background { try session.send(loans).status }
            let second = Background { try session.send(loans).status }
            await fixture.server.state.untilHeld(2)
            // Both requests are waiting on the server, and the session still answers.
            #expect(session.isSignedIn)
            #expect(await fixture.server.state.heldRequests == 2)
            await fixture.server.state.openGate()
            // Waited for off the shared pool, which the demo library's actor needs to answer them.
            #expect(try await offloaded { try first.value() } == 200)
            #expect(try await offloaded { try second.value() } == 200)
        }
    }
}
