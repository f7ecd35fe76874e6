import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// Plain HTTP sign-in against calibre's content server (Basic and Digest), and what 401, 403 and 404 say.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SignInCLITests {
    // MARK: statuses, against the demo library

    @Test func aMissingPageIsNeitherAServerErrorNorWorthRetrying() async throws {
        let fixture = try await CLIFixture()
        await fixture.server.state.setFaults(PageFaults(status: 404), page: 2)
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == ShelfExit.noSuchPage.rawValue)
        #expect(sync.stderr.split(separator: "\n").count == 1)
        #expect(sync.stderr.hasPrefix("shelf: sync stopped at page 2 of the catalog: the server has no page at http://127.0.0.1:"))
        #expect(sync.stderr.contains("(404); check the library's URL with `shelf library list`; nothing was changed"))
        #expect(!sync.stderr.contains("server error") && !sync.stderr.contains("try again later"))

        // A root that is not there at all.
        let missing = fixture.url.appendingPathComponent("no-such-catalog").absoluteString
        // `library add` looks first and refuses it; added offline anyway, sync says the same.
        let add = try await fixture.shelf.run(["library", "add", "gone", missing])
        #expect(add.status == ShelfExit.notACatalog.rawValue)
        #expect(add.stderr == "shelf: \(missing) answered 404 Not Found: no catalog there; check the URL (or add it anyway with --no-check)\n")
        #expect(try await fixture.shelf.run(["library", "add", "--no-check", "gone", missing]).status == 0)
        let gone = try await fixture.shelf.run(["sync", "--library", "gone"])
        #expect(gone.status == ShelfExit.noSuchPage.rawValue)
        #expect(gone.stderr.contains("the server has no page at \(missing) (404); check the library's URL with `shelf library list`"))
        await fixture.finish()
    }

    @Test(arguments: [401, 403])
    func aRefusalWithoutAChallengeSaysWhoRefused(status: Int) async throws {
        let fixture = try await CLIFixture()
        await fixture.server.state.setFaults(PageFaults(status: status), page: 1)
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == ShelfExit.notPermitted.rawValue)
        #expect(sync.stderr.contains("answered \(status) \(status == 401 ? "Unauthorized" : "Forbidden"):"))
        #expect(!sync.stderr.contains("server error") && !sync.stderr.contains("try again later"))
        await fixture.finish()
    }

    @Test func aCatalogThatAnswers401WithItsAuthenticationDocumentNeedsASignIn() async throws {
        let fixture = try await CLIFixture()
        // The demo's loans feed answers 401 with a Basic challenge and its authentication document.
        let loans = fixture.url.appendingPathComponent("loans/").absoluteString
        #expect(try await fixture.shelf.run(["library", "add", "loans", loans]).status == 0)
        let sync = try await fixture.shelf.run(["sync", "--library", "loans"])
        #expect(sync.status == ShelfExit.needsSignIn.rawValue)
        #expect(sync.stderr == "shelf: the library asks you to sign in (its authentication document); run `shelf login loans`\n")
        await fixture.finish()
    }

    // MARK: calibre-server with HTTP Basic and Digest

    @Test(.enabled(if: CalibreServer.isInstalled, CalibreServer.skipMessage), arguments: [CalibreServer.Auth.basic, .digest])
    func signingInToCalibre(auth: CalibreServer.Auth) async throws {
        let server = try await CalibreServer.start(auth: auth)
        let shelf = ShelfRunner()
        do {
            try await patronSignsIn(server: server, shelf: shelf, scheme: auth == .basic ? "HTTP Basic" : "HTTP Digest")
        } catch {
            await server.stop()
            shelf.cleanUp()
            throw error
        }
        await server.stop()
        shelf.cleanUp()
    }

    private func patronSignsIn(server: CalibreServer, shelf: ShelfRunner, scheme: String) async throws {
        let credentials = shelf.home.appendingPathComponent("credentials/cal.json")
        let password = CalibreServer.password
        /// Nothing a run prints may carry the password, whole or encoded.
        func expectNoSecret(_ result: ShelfRunner.Result, _ secrets: [String] = [password]) {
            for secret in secrets {
                let basic = Data("\(CalibreServer.username):\(secret)".utf8).base64EncodedString()
                for text in [result.stdout, result.stderr] {
                    #expect(!text.contains(secret) && !text.contains(basic) && !text.contains("s3cret"))
                }
            }
        }
        #expect(try await shelf.run(["library", "add", "cal", server.url.absoluteString]).status == 0)

        // Before signing in: one line saying so, its own exit status.
        let before = try await shelf.run(["sync"])
        #expect(before.status == ShelfExit.needsSignIn.rawValue)
        #expect(before.stderr == "shelf: the library asks you to sign in (\(scheme), realm \"calibre\"); run `shelf login cal`\n")

        // A wrong password is refused by the server and nothing is stored.
        let wrong = try await shelf.run(["login", "cal", "--username", CalibreServer.username, "--password-stdin"], input: "nope\n")
        #expect(wrong.status == ShelfExit.notPermitted.rawValue)
        #expect(wrong.stderr == "shelf: cal did not accept that user name and password; nothing was stored\n")
        #expect(!FileManager.default.fileExists(atPath: credentials.path))

        // The right one is checked, then stored for the session to hand to libcurl.
        let login = try await shelf.run(
            ["login", "cal", "--username", CalibreServer.username, "--password-stdin", "-v"], input: password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.hasPrefix("Signed in to cal (\(scheme), realm \"calibre\") as "))
        expectNoSecret(login)
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: credentials)) as? [String: Any]
        #expect(stored?["authType"] as? String == (scheme == "HTTP Basic" ? "http-basic" : "http-digest"))
        let mode = try FileManager.default.attributesOfItem(atPath: credentials.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // The root syncs with them (a navigation root: no titles of its own), with no credential in -v.
        let sync = try await shelf.run(["sync", "-v"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stderr.contains("GET \(server.url.absoluteString) -> 200"))
        #expect(!sync.stderr.contains("-> 401"))
        expectNoSecret(sync)

        // An acquisition feed of the same server: its books arrive through the signed-in session.
        let newest = try await offloaded { try Self.newestFeed(server) }
        #expect(try await shelf.run(["library", "add", "newest", newest.absoluteString]).status == 0)
        let newestLogin = try await shelf.run(
            ["login", "--library", "newest", "--username", CalibreServer.username, "--password-stdin"], input: password + "\n")
        #expect(newestLogin.status == 0, "\(newestLogin.stderr)")
        let books = try await shelf.run(["sync", "--library", "newest"])
        #expect(books.status == 0, "\(books.stderr)")
        #expect(books.stdout.hasPrefix("\(CalibreServer.books.count) new"))
        let list = try await shelf.run(["list", "--library", "newest"])
        #expect(list.stdout.contains("The Lighthouse Keeper") && list.stdout.contains("Tides"))

        // The password changes on the server: the next sync erases the stored one and says to sign in again.
        try await server.changePassword(to: "changed pass")
        let rejected = try await shelf.run(["sync", "--library", "cal"])
        #expect(rejected.status == ShelfExit.notPermitted.rawValue)
        #expect(rejected.stderr
            == "shelf: cal no longer accepts the stored user name and password; they were erased: run `shelf login cal`\n")
        #expect(!FileManager.default.fileExists(atPath: credentials.path))
        let after = try await shelf.run(["sync", "--library", "cal"])
        #expect(after.status == ShelfExit.needsSignIn.rawValue)

        // Signed in again with the new one; then signed out.
        let again = try await shelf.run(
            ["login", "cal", "--username", CalibreServer.username, "--password-stdin"], input: "changed pass\n")
        #expect(again.status == 0, "\(again.stderr)")
        expectNoSecret(again, ["changed pass"])
        #expect(try await shelf.run(["sync", "--library", "cal", "--quiet"]).status == 0)
        let logout = try await shelf.run(["logout", "cal"])
        #expect(logout.stdout == "Signed out of cal; credentials erased.\n")
        #expect(!FileManager.default.fileExists(atPath: credentials.path))
    }

    /// The root's "By Newest" feed, read with the account (calibre's acquisition feed of every book).
    private static func newestFeed(_ server: CalibreServer) throws -> URL {
        var configuration = HTTPConfiguration()
        let scheme: HTTPLogin.Scheme = server.auth == .basic ? .basic : .digest
        configuration.login = HTTPLogin(
            scheme: scheme, username: CalibreServer.username, password: CalibreServer.password, library: server.url)
        let response = try HTTPClient(configuration: configuration).request(server.url, headers: ["Accept": FeedDocument.accept])
        let info = try FeedDocument(baseURL: server.url).parse(
            data: response.body, contentType: response.header("content-type")) { _ in }
        guard let newest = info.navigation.first(where: { $0.title == "By Newest" }), let url = URL(string: newest.href) else {
            throw CalibreServer.Failure("no By Newest link at the root")
        }
        return url
    }
}
