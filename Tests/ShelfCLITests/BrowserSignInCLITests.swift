import DemoLibrary
import Foundation
import ShelfCore
import ShelfSpawn
import Testing

/// Signing in the way the library asks: Palace's SAML and OpenID Connect and the OAuth implicit grant through the
/// browser (a `PlainBrowser` here, on the demo's identity provider pages, with shelf's one-shot listener taking the
/// token back), and the OAuth password grant with its refresh token. Each ends in a signed-in sync.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BrowserSignInCLITests {
    /// A demo library with its registry's libraries, and a home with one of them added and synced.
    final class Fixture: @unchecked Sendable {
        let server: DemoLibraryServer
        let url: URL
        let shelf = ShelfRunner()
        let name: String

        init(branch: String, configuration: DemoConfiguration = DemoConfiguration()) async throws {
            server = DemoLibraryServer(configuration: configuration)
            url = try await server.start()
            name = branch
            let added = try await shelf.run(["library", "add", branch, url.absoluteString + "?branch=\(branch)"])
            #expect(added.status == 0, "\(added.stderr)")
            let sync = try await shelf.run(["sync", "--quiet"])
            #expect(sync.status == 0, "\(sync.stderr)")
        }

        func finish() async {
            await server.stop()
            shelf.cleanUp()
        }

        static func with(_ branch: String, _ body: (Fixture) async throws -> Void) async throws {
            try await finishing(try await Fixture(branch: branch), { await $0.finish() }, body)
        }

        var credentialsFile: URL { shelf.home.appendingPathComponent("credentials/\(name).json") }

        /// `shelf login` started with no browser; the address it prints, once printed, and the running process.
        func startLogin(_ extra: [String] = [], input: String? = nil) async throws -> Login {
            let (process, out, err) = try shelf.start(["login", name, "--no-browser"] + extra, input: input)
            let printed = try await out.read { printedAddress(Data($0.utf8)) != nil }
            return Login(process: process, out: out, err: err, address: printedAddress(printed), before: printed)
        }
    }

    struct Login {
        let process: ChildProcess
        let out: Pipe
        let err: Pipe
        /// The sign-in page's address shelf printed.
        let address: URL?
        let before: Data

        /// The port of shelf's listener, from the address's `redirect_uri`.
        var listenerPort: Int? {
            let redirect = address.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "redirect_uri" }?.value }
            return redirect.flatMap(URL.init(string:))?.port
        }

        func finish() async throws -> ShelfRunner.Result {
            try await offloaded {
                let rest = out.fileHandleForReading.readDataToEndOfFile()
                let errors = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return ShelfRunner.Result(
                    status: process.terminationStatus, stdout: String(decoding: before + rest, as: UTF8.self),
                    stderr: String(decoding: errors, as: UTF8.self))
            }
        }
    }

    /// What a credentials file holds, as JSON.
    static func stored(_ file: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] ?? [:]
    }

    @Test func samlThroughTheBrowserSignsInAndTheTokenCarriesTheSyncAndADownload() async throws {
        try await Fixture.with("riverside") { fixture in
            try await fixture.server.state.prepareAudio()
            let login = try await fixture.startLogin(["--idp", "alumni"])
            let address = try #require(login.address)
            // Palace's SAML link for the chosen identity provider, with where to come back.
            #expect(address.path == "/saml_authenticate")
            #expect(address.query?.contains("idp_entity_id=https://idp.alumni.example/idp/shibboleth") == true)
            #expect(login.listenerPort != nil)
            let ending = try PlainBrowser().visit(address)
            #expect(ending.body.contains("Signed in. You can close this tab"), "\(ending)")
            let result = try await login.finish()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasSuffix(
                "Signed in to riverside (Riverside University Library) with SAML single sign-on, Riverside Alumni Association. Next: shelf sync\n"),
                "\(result.stdout)")
            // A token and no card or PIN, in a private file; the token never on the screen.
            let stored = try Self.stored(fixture.credentialsFile)
            let token = try #require(stored["token"] as? String)
            #expect(token.split(separator: ".").count == 3 && stored["password"] as? String == "")
            #expect(!result.stdout.contains(token) && !result.stderr.contains(token))
            // The listener is closed: nothing answers on its port any more.
            let port = try #require(login.listenerPort)
            #expect(throws: NetworkError.self) { try HTTPClient(configuration: HTTPConfiguration()).request(URL(string: "http://127.0.0.1:\(port)/")!) }

            let sync = try await fixture.shelf.run(["sync", "--no-download", "-v"])
            #expect(sync.status == 0 && sync.stdout.contains("2 loans, 1 hold"), "\(sync.stdout)\(sync.stderr)")
            #expect(!sync.stdout.contains(token) && !sync.stderr.contains(token))
            let download = try await fixture.shelf.run(["download", "7d3c0002"])
            #expect(download.status == 0, "\(download.stderr)")
            #expect(await fixture.server.state.stats.bearerRequests > 0)
        }
    }

    @Test func openIDConnectSignsInAndLogoutEndsTheSessionAtTheLibrary() async throws {
        try await Fixture.with("lakeside") { fixture in
            let login = try await fixture.startLogin()
            let address = try #require(login.address)
            #expect(address.path == "/oidc/authenticate" && address.query?.hasPrefix("provider=OpenID+Connect&redirect_uri=") == true)
            _ = try PlainBrowser().visit(address)
            let result = try await login.finish()
            #expect(result.status == 0 && result.stdout.contains("with OpenID Connect, Lakeside College account."), "\(result.stdout)\(result.stderr)")
            let token = try #require(try Self.stored(fixture.credentialsFile)["token"] as? String)
            let loans = try #require(URL(string: fixture.url.absoluteString + "loans/"))
            let http = HTTPClient(configuration: HTTPConfiguration())
            #expect(try http.request(loans, headers: ["Authorization": "Bearer \(token)"]).status == 200)
            let logout = try await fixture.shelf.run(["logout"])
            #expect(logout.stdout == "Signed out of lakeside; credentials erased.\n")
            #expect(!FileManager.default.fileExists(atPath: fixture.credentialsFile.path))
            // Ended at the library too: the token is refused from now on.
            #expect(try http.request(loans, headers: ["Authorization": "Bearer \(token)"]).status == 401)
        }
    }

    @Test func theImplicitGrantsTokenComesBackInTheFragmentThroughTheCallbackPage() async throws {
        try await Fixture.with("hilltop") { fixture in
            let login = try await fixture.startLogin(["--method", "oauth"])
            let address = try #require(login.address)
            let query = try #require(address.query)
            #expect(address.path == "/oauth/authorize" && query.contains("response_type=token") && query.contains("&state="))
            let ending = try PlainBrowser().visit(address)
            #expect(ending.body.contains("Signed in."), "\(ending)")
            let result = try await login.finish()
            #expect(result.status == 0 && result.stdout.contains("(Hilltop Reading Room) with OAuth, implicit grant."), "\(result.stdout)\(result.stderr)")
            let sync = try await fixture.shelf.run(["sync", "--no-download"])
            #expect(sync.status == 0 && sync.stdout.contains("2 loans"), "\(sync.stdout)\(sync.stderr)")
        }
    }

    @Test func thePasswordGrantKeepsNoPINRenewsWithTheRefreshTokenAndSaysWhenItLapses() async throws {
        try await Fixture.with("hilltop") { fixture in
            let login = try await fixture.shelf.run(
                ["login", "--method", "password", "--username", "demo", "--password-stdin"], input: "1234\n")
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stdout == "Signed in to hilltop (Hilltop Reading Room) with OAuth, card ••mo. Next: shelf sync\n")
            let stored = try Self.stored(fixture.credentialsFile)
            #expect(stored["password"] as? String == "" && stored["refreshToken"] != nil && stored["token"] != nil)
            // The token lapses: the next sync renews it with the refresh token, once.
            await fixture.server.state.expireAllTokens()
            let renewed = try await fixture.shelf.run(["sync", "--no-download"])
            #expect(renewed.status == 0 && renewed.stdout.contains("2 loans"), "\(renewed.stdout)\(renewed.stderr)")
            #expect(await fixture.server.state.stats.oauthTokenRequests == ["password": 1, "refresh_token": 1])
            // The library revokes the refresh token as well: the sign-in has lapsed, is erased, and shelf says so.
            await fixture.server.state.expireAllTokens()
            await fixture.server.state.forgetRefreshTokens()
            let lapsed = try await fixture.shelf.run(["sync", "--no-download"])
            #expect(lapsed.status == ShelfExit.needsSignIn.rawValue)
            #expect(lapsed.stderr.contains(
                "your sign-in to hilltop (OAuth, password grant) has lapsed and was erased; run `shelf login hilltop` to sign in again"),
                "\(lapsed.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.credentialsFile.path))
            // Following the advice works.
            let again = try await fixture.shelf.run(
                ["login", "hilltop", "--method", "password", "--username", "demo", "--password-stdin"], input: "1234\n")
            #expect(again.status == 0, "\(again.stderr)")
            let synced = try await fixture.shelf.run(["sync", "--no-download"])
            #expect(synced.status == 0 && synced.stdout.contains("2 loans"), "\(synced.stderr)")
        }
    }

    @Test func aBrowserSignInThatLapsesIsErasedWithAdviceThatWorks() async throws {
        try await Fixture.with("lakeside") { fixture in
            let login = try await fixture.startLogin()
            _ = try PlainBrowser().visit(try #require(login.address))
            #expect(try await login.finish().status == 0)
            await fixture.server.state.expireAllTokens()
            let lapsed = try await fixture.shelf.run(["sync", "--no-download"])
            #expect(lapsed.status == ShelfExit.needsSignIn.rawValue)
            #expect(lapsed.stderr.contains(
                "your sign-in to lakeside (OpenID Connect, Lakeside College account) has lapsed and was erased; run `shelf login lakeside`"),
                "\(lapsed.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.credentialsFile.path))
            let again = try await fixture.startLogin()
            _ = try PlainBrowser().visit(try #require(again.address))
            #expect(try await again.finish().status == 0)
            let synced = try await fixture.shelf.run(["sync", "--no-download"])
            #expect(synced.status == 0 && synced.stdout.contains("2 loans"), "\(synced.stderr)")
        }
    }

    @Test func anAddressOrATokenPastedOnStandardInputSignsInWithoutTheListener() async throws {
        try await Fixture.with("riverside") { fixture in
            // The browser runs elsewhere; the address it ended at is pasted.
            let login = try await fixture.startLoginPasting()
            let ending = try PlainBrowser(stopAtShelf: true).visit(try #require(login.0.address))
            try login.1.fileHandleForWriting.write(contentsOf: Data((ending.url + "\n").utf8))
            let result = try await login.0.finish()
            #expect(result.status == 0 && result.stdout.contains("with SAML single sign-on, Riverside University."), "\(result.stdout)\(result.stderr)")
            // A token alone, pasted.
            let token = try #require(try Self.stored(fixture.credentialsFile)["token"] as? String)
            _ = try await fixture.shelf.run(["logout"])
            let again = try await fixture.startLoginPasting()
            try again.1.fileHandleForWriting.write(contentsOf: Data((token + "\n").utf8))
            #expect(try await again.0.finish().status == 0)
            #expect(try Self.stored(fixture.credentialsFile)["token"] as? String == token)
        }
    }

    @Test func refusalsCancellationsWrongStatesAndSilenceEachEndInOneLineWithNothingStored() async throws {
        try await Fixture.with("riverside") { fixture in
            // Cancelled at the identity provider: the library's error comes back.
            let cancelled = try await fixture.startLogin(["--idp", "1"])
            _ = try PlainBrowser(cancel: true).visit(try #require(cancelled.address))
            let refused = try await cancelled.finish()
            #expect(refused.status == ShelfExit.notPermitted.rawValue)
            #expect(refused.stderr == "shelf: riverside did not sign you in: SAML authentication failed (the identity provider did not "
                + "sign the patron in); nothing was stored: run `shelf login riverside` to try again\n", "\(refused.stderr)")
            // Another sign-in's state at the listener.
            let wrong = try await fixture.startLogin(["--idp", "1"])
            let port = try #require(wrong.listenerPort)
            _ = try? HTTPClient(configuration: HTTPConfiguration()).request(URL(string: "http://127.0.0.1:\(port)/callback/0000?access_token=x")!)
            let mismatch = try await wrong.finish()
            #expect(mismatch.status == ShelfExit.notPermitted.rawValue)
            #expect(mismatch.stderr.contains("is not this sign-in's (it came back with another sign-in's state)"), "\(mismatch.stderr)")
            // A wrong password at the identity provider: the browser stays on its error page, shelf waits, then gives up.
            let stuck = try await fixture.startLogin(["--idp", "1", "--timeout", "1"])
            let page = try PlainBrowser(password: "0000").visit(try #require(stuck.address))
            #expect(page.status == 401 && page.body.contains("Unknown user name or wrong password."))
            let silent = try await stuck.finish()
            #expect(silent.status == ShelfExit.needsSignIn.rawValue)
            // Its listener closed with it.
            let stuckPort = try #require(stuck.listenerPort)
            #expect(throws: NetworkError.self) {
                try HTTPClient(configuration: HTTPConfiguration()).request(URL(string: "http://127.0.0.1:\(stuckPort)/")!)
            }
            #expect(silent.stderr.hasPrefix("shelf: no answer came back from the browser within 1 minute; nothing was stored"), "\(silent.stderr)")
            // An identity provider the library does not know: its error, from the library.
            #expect(!FileManager.default.fileExists(atPath: fixture.credentialsFile.path))
            let which = try await fixture.shelf.run(["login", "--idp", "nowhere", "--no-browser"])
            #expect(which.status == ShelfExit.usage.rawValue)
            #expect(which.stderr.contains("offers no sign-in \"nowhere\"; it offers: 1 Riverside University, 2 Riverside Alumni Association"))
            let none = try await fixture.shelf.run(["login", "--no-browser"])
            #expect(none.status == ShelfExit.usage.rawValue && none.stderr.contains("choose one with --idp"), "\(none.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.credentialsFile.path))
        }
    }

    @Test func aTokenEndpointAnsweringHTMLOrRefusingIsOneLineAndNothingIsStored() async throws {
        try await Fixture.with("hilltop") { fixture in
            let wrong = try await fixture.shelf.run(
                ["login", "--method", "password", "--username", "demo", "--password-stdin"], input: "0000\n")
            #expect(wrong.status == ShelfExit.notPermitted.rawValue)
            #expect(wrong.stderr == "shelf: hilltop did not accept that card number and PIN; nothing was stored\n")
            await fixture.server.state.updateSwitches { $0.tokenEndpointHTML = true }
            let html = try await fixture.shelf.run(
                ["login", "--method", "password", "--username", "demo", "--password-stdin"], input: "1234\n")
            #expect(html.status == ShelfExit.badData.rawValue)
            #expect(html.stderr.contains("sent no usable token (an HTML page, not JSON)"), "\(html.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.credentialsFile.path))
            let method = try await fixture.shelf.run(["login", "--method", "saml"])
            #expect(method.status == ShelfExit.usage.rawValue)
            #expect(method.stderr.contains("offers no sign-in \"saml\"; it offers: oauth (OAuth, implicit grant), password (OAuth, password grant)"),
                    "\(method.stderr)")
        }
    }
}

/// From nothing but the library's name to a signed-in sync and a download, with each way of signing in the demo's
/// registry offers: `library find`, `library add --from-registry`, `login`, `sync`, `download`.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FromANameToADownloadCLITests {
    @Test(arguments: [
        ("Riverside University", "saml"), ("Lakeside College", "oidc"), ("Hilltop", "oauth"), ("Hilltop", "password"),
        ("Shelf Demo", "card"),
    ])
    func eachSignInFlow(name: String, method: String) async throws {
        let server = DemoLibraryServer(configuration: DemoConfiguration())
        let url = try await server.start()
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        do {
            try await server.state.prepareAudio()
            let found = try await shelf.run(["library", "find", name, "--registry", url.absoluteString + "registry/libraries"])
            #expect(found.status == 0 && found.stdout.hasPrefix("1 library in"), "\(found.stdout)\(found.stderr)")
            let added = try await shelf.run(["library", "add", "mine", "--from-registry", "1"])
            #expect(added.status == 0, "\(added.stderr)")
            let login: ShelfRunner.Result
            switch method {
            case "card", "password":
                login = try await shelf.run(["login", "--method", method, "--username", "demo", "--password-stdin"], input: "1234\n")
            default:
                let (process, out, err) = try shelf.start(["login", "--method", method, "--idp", "1", "--no-browser"])
                let printed = try await out.read { printedAddress(Data($0.utf8)) != nil }
                _ = try PlainBrowser().visit(try #require(printedAddress(printed)))
                login = try await offloaded {
                    let rest = out.fileHandleForReading.readDataToEndOfFile()
                    let errors = err.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    return ShelfRunner.Result(status: process.terminationStatus, stdout: String(decoding: rest, as: UTF8.self),
                                              stderr: String(decoding: errors, as: UTF8.self))
                }
            }
            #expect(login.status == 0 && login.stdout.contains("Signed in to mine"), "\(login.stdout)\(login.stderr)")
            let sync = try await shelf.run(["sync", "--no-download"])
            #expect(sync.status == 0 && sync.stdout.contains("2 loans, 1 hold"), "\(sync.stdout)\(sync.stderr)")
            let download = try await shelf.run(["download", "7d3c0002"])
            #expect(download.status == 0 && download.stdout.hasPrefix("Downloaded The Adventures of Sherlock Holmes"),
                    "\(download.stdout)\(download.stderr)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension BrowserSignInCLITests.Fixture {
    /// `shelf login` with no browser and standard input held open for a paste.
    func startLoginPasting() async throws -> (BrowserSignInCLITests.Login, Pipe) {
        let input = Pipe()
        let process = ChildProcess()
        process.executableURL = ShelfRunner.executable
        process.arguments = ["login", name, "--no-browser", "--idp", "1", "--home", shelf.home.path]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let printed = try await out.read { $0.contains("here:\n") }
        let login = BrowserSignInCLITests.Login(process: process, out: out, err: err, address: printedAddress(printed), before: printed)
        return (login, input)
    }
}
