import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

/// Reading `WWW-Authenticate`, and HTTP Basic/Digest credentials going to the library's origin and nowhere else.
@Suite(.timeLimit(.minutes(5))) struct HTTPChallengeTests {
    @Test func readsBasicAndDigestChallenges() {
        #expect(HTTPChallenge.parse(#"Basic realm="x""#) == [HTTPChallenge(scheme: "Basic", realm: "x")])
        let digest = #"Digest realm="calibre", nonce="40cd:f4b3", algorithm="MD5", qop="auth""#
        #expect(HTTPChallenge.parse(digest) == [HTTPChallenge(scheme: "Digest", realm: "calibre")])
        #expect(HTTPChallenge.parse("basic realm=Library") == [HTTPChallenge(scheme: "basic", realm: "Library")])
        #expect(HTTPChallenge.parse("Bearer") == [HTTPChallenge(scheme: "Bearer")])
        #expect(HTTPChallenge.parse("").isEmpty)
    }

    @Test func readsSeveralChallengesAndQuotedCommas() {
        let header = #"Digest realm="a, b", nonce="n\"1", qop="auth,auth-int", Basic realm="plain, too", Bearer"#
        #expect(HTTPChallenge.parse(header) == [
            HTTPChallenge(scheme: "Digest", realm: "a, b"),
            HTTPChallenge(scheme: "Basic", realm: "plain, too"),
            HTTPChallenge(scheme: "Bearer"),
        ])
        // A token68 challenge, then another; the realm is the first one given, parameter names in any case.
        #expect(HTTPChallenge.parse("Negotiate abc==, Basic REALM=\"r\", realm=\"second\"") == [
            HTTPChallenge(scheme: "Negotiate"), HTTPChallenge(scheme: "Basic", realm: "r"),
        ])
        // An unterminated quote ends with the header rather than swallowing nothing or crashing.
        #expect(HTTPChallenge.parse(#"Basic realm="open"#) == [HTTPChallenge(scheme: "Basic", realm: "open")])
        // Garbage is skipped, not guessed at.
        #expect(HTTPChallenge.parse(#"(( ,, Basic realm="r" ;;"#).map(\.scheme) == ["Basic"])
    }

    @Test func prefersDigestAndDescribesTheChallenge() {
        let both = #"Basic realm="one", Digest realm="two", nonce="x""#
        #expect(HTTPChallenge.preferred(in: both) == HTTPChallenge(scheme: "Digest", realm: "two"))
        #expect(HTTPChallenge.preferred(in: "Bearer realm=\"api\"") == nil)
        #expect(HTTPChallenge.preferred(in: nil) == nil)
        #expect(HTTPChallenge(scheme: "Digest", realm: "calibre").summary == #"HTTP Digest, realm "calibre""#)
        #expect(HTTPChallenge(scheme: "basic").summary == "HTTP Basic")
    }

    @Test func severalChallengeFieldsAreKeptTogether() {
        var head = ResponseHead()
        for line in ["HTTP/1.1 401 Unauthorized\r\n", "WWW-Authenticate: Basic realm=\"a\"\r\n",
                     "WWW-Authenticate: Digest realm=\"b\", nonce=\"n\"\r\n", "Content-Type: text/plain\r\n"] {
            head.take(Data(line.utf8))
        }
        #expect(HTTPChallenge.parse(head.headers["www-authenticate"] ?? "").map(\.scheme) == ["Basic", "Digest"])
    }

    @Test func aLoginAppliesToItsOriginOnly() throws {
        let login = try #require(HTTPLogin(
            scheme: .digest, username: "patron", password: "hunter2", library: URL(string: "http://Lib.Example/opds")!))
        #expect(login.applies(to: URL(string: "http://lib.example:80/opds/navcatalog/4e")!))
        #expect(login.applies(to: URL(string: "HTTP://LIB.EXAMPLE/get/mp3/1")!))
        #expect(!login.applies(to: URL(string: "https://lib.example/opds")!))
        #expect(!login.applies(to: URL(string: "http://lib.example:8080/opds")!))
        #expect(!login.applies(to: URL(string: "http://cdn.lib.example/opds")!))
        #expect(!"\(login)".contains("hunter2") && !String(reflecting: login).contains("hunter2"))
        #expect(HTTPLogin(scheme: .basic, username: "u", password: "p", library: URL(fileURLWithPath: "/tmp")) == nil)
    }

    @Test func libcurlSendsTheLoginToTheLibrarysOriginAndDropsItElsewhere() async throws {
        let server = DemoLibraryServer()
        let url = try await server.start()
        do {
            let port = url.port!
            var configuration = HTTPConfiguration()
            // The demo's loans feed takes HTTP Basic with the demo patron's card and PIN.
            configuration.login = HTTPLogin(
                scheme: .basic, username: "demo", password: "1234", library: URL(string: "http://127.0.0.1:\(port)/")!)
            let client = HTTPClient(configuration: configuration)
            var refused = configuration
            refused.login?.password = "9999"
            let wrongClient = HTTPClient(configuration: refused)
            let (direct, viaRedirect, otherHost, awayAndBack, wrong) = (
                try client.request(URL(string: "http://127.0.0.1:\(port)/loans/")!),
                try client.request(URL(string: "http://127.0.0.1:\(port)/_demo/redirect?to=/loans/")!),
                try client.request(
                    URL(string: "http://127.0.0.1:\(port)/_demo/redirect?to=http://localhost:\(port)/loans/")!),
                try client.request(
                    URL(string: "http://localhost:\(port)/_demo/redirect?to=http://127.0.0.1:\(port)/loans/")!),
                try wrongClient.request(URL(string: "http://127.0.0.1:\(port)/loans/")!)
            )
            #expect(direct.status == 200)
            #expect(viaRedirect.status == 200)
            // Another host (still this machine): libcurl does not forward them, nor send them there at all.
            #expect(otherHost.url.hasPrefix("http://localhost:") && otherHost.status == 401)
            #expect(awayAndBack.status == 401)
            #expect(wrong.status == 401)
            // The challenge of the refusal is read whole.
            #expect(HTTPChallenge.preferred(in: wrong.header("www-authenticate"))?.realm == "Shelf Demo Library")
            // The part downloader builds its requests the same way: the login opens the file on the origin.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-login-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let loans = URL(string: "http://127.0.0.1:\(port)/loans/")!
            let (good, bad) = (configuration, refused)
            let (signed, unsigned) = (
                try PartDownloader(configuration: good).run(
                    [DownloadPart(index: 0, url: loans, destination: directory.appendingPathComponent("a.xml"))]),
                try PartDownloader(configuration: bad).run(
                    [DownloadPart(index: 0, url: loans, destination: directory.appendingPathComponent("b.xml"))])
            )
            guard case .complete(let bytes)? = signed[0] else {
                Issue.record("the part with the login should download, got \(String(describing: signed[0]))")
                return
            }
            #expect(bytes > 0)
            #expect(unsigned[0] == .expired(status: 401))
            let needed = SignIn.needed(by: wrong, library: "demo")
            #expect(needed == .signInNeeded(library: "demo", how: #"HTTP Basic, realm "Shelf Demo Library""#))
            #expect(needed?.exitCode == .needsSignIn)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
