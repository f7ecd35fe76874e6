import Foundation
import Synchronization

/// Sends a patron's requests to one library with their credentials, getting and renewing bearer tokens for
/// the basic-token flow, handing a plain HTTP sign-in's user name and password to libcurl (Basic or Digest),
/// and erasing credentials the library rejects.
///
/// Credentials go only to the library's own origin (scheme, host and port). Safe to share between threads: a lock guards the credentials
/// and token, never a request, and senders that find the token lapsed wait for one renewal between them.
public final class LibrarySession: Sendable {
    public let library: Library
    private let credentialStore: CredentialStore
    private let http: HTTPClient
    /// The client whose configuration carries the stored HTTP Basic or Digest login, when there is one.
    private let loginHTTP: HTTPClient?
    /// The settings every request for this library should be made with: `login` holds the stored HTTP Basic
    /// or Digest credentials (nil for other sign-ins), which libcurl sends to the library's origin only. Give it
    /// to any `HTTPClient` or `PartDownloader` that fetches from the library (parts, single files, covers).
    public let configuration: HTTPConfiguration
    private let state: Mutex<State>
    /// A token is renewed this long before it expires, so a request never carries one about to lapse.
    private let renewalMargin: TimeInterval = 60

    private struct State {
        var credentials: Credentials?
        /// The token request one sender started; the others wait for it rather than ask for tokens of their own.
        var renewal: Background<Credentials>?
    }

    /// The Authorization header a request went with, and what it came from.
    private struct Authorization {
        var header: String
        /// The bearer token sent, for the basic-token flow.
        var token: String?
    }

    public init(library: Library, credentialStore: CredentialStore, configuration: HTTPConfiguration) throws(CirculationError) {
        self.library = library
        self.credentialStore = credentialStore
        self.http = HTTPClient(configuration: configuration)
        let credentials = try credentialStore.load(for: library)
        var withLogin = configuration
        if let credentials, let scheme = credentials.httpScheme, let root = URL(string: library.url) {
            withLogin.login = HTTPLogin(
                scheme: scheme, username: credentials.username, password: credentials.password, library: root)
        }
        self.configuration = withLogin
        self.loginHTTP = withLogin.login == nil ? nil : HTTPClient(configuration: withLogin)
        self.state = Mutex(State(credentials: credentials))
    }

    public var isSignedIn: Bool { state.withLock { $0.credentials != nil } }
    /// The signed-in patron's user name (their card number), never sent anywhere by itself.
    var username: String? { state.withLock { $0.credentials?.username } }

    /// Whether the patron signed in with a plain HTTP user name and password (Basic or Digest), which go with
    /// every request to the library, catalog pages included.
    public var usesHTTPLogin: Bool { state.withLock { $0.credentials?.httpScheme != nil } }

    /// Whether `url` is on the library's origin, the only place credentials are sent.
    func isLibraryHost(_ url: URL) -> Bool {
        guard let base = URL(string: library.url), let origin = HTTPLogin.Origin(base) else { return false }
        return HTTPLogin.Origin(url) == origin
    }

    /// Sends a request, with credentials when the patron is signed in and the URL is the library's.
    ///
    /// A 401 with a recoverable problem (an expired token) gets a new token and one retry; a 401 for
    /// credentials the library no longer accepts erases them and throws `credentialsRejected`.
    public func send(
        _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
        validators: CacheValidators? = nil, spillingTo file: URL? = nil, limit: Int? = nil
    ) throws -> HTTPResponse {
        let toLibrary = isLibraryHost(url)
        var retried = false
        while true {
            var allHeaders = headers
            // A plain HTTP login is libcurl's to send (it answers a Digest challenge itself); the client's
            // configuration scopes it to the library's origin.
            let client = toLibrary && usesHTTPLogin ? loginHTTP ?? http : http
            let sent = toLibrary ? try authorization() : nil
            if let sent { allHeaders["Authorization"] = sent.header }
            let response: HTTPResponse
            if let file {
                response = try client.get(url, headers: allHeaders, validators: validators, spillingTo: file)
            } else {
                response = try client.request(url, method: method, headers: allHeaders, body: body, limit: limit)
            }
            if response.status == 401, client !== http { throw forgetCredentials() }
            guard response.status == 401, let sent else { return response }
            let problem = ProblemDocument.parse(response.body)
            if let token = sent.token {
                // A refused token says nothing about the card and PIN: it lapsed early, was revoked, or the server
                // restarted and forgot it (answering "invalid credentials" about a token it never issued). They
                // get a new token; only the token endpoint refusing them erases them (in `renewed`). Another
                // sender may have replaced the token already; then theirs is used.
                guard !retried else { return response }
                state.withLock { if $0.credentials?.token == token { $0.credentials?.token = nil } }
                retried = true
                continue
            }
            if problem?.isRecoverableAuth == true { return response }
            throw forgetCredentials()
        }
    }

    /// The headers `send` would add to a request for `url`: the patron's credentials on the library's host, none
    /// elsewhere. For transfers that cannot go through `send` (resumable downloads on libcurl's multi interface).
    public func credentialHeaders(for url: URL) throws -> [String: String] {
        guard isLibraryHost(url), let sent = try authorization() else { return [:] }
        return ["Authorization": sent.header]
    }

    /// What a 401 means for a transfer made outside `send` (a book's own file on the library's origin, fetched by the
    /// part downloader): stored credentials the library no longer accepts are erased, as `send` erases them; with
    /// none, the library wants a sign-in. Nil for other statuses and origins, and for a bearer token, which may only
    /// have lapsed (the next download gets a new one).
    public func refusal(of url: URL, status: Int) -> CirculationError? {
        guard status == 401, isLibraryHost(url) else { return nil }
        let stored = state.withLock { $0.credentials }
        guard let stored else {
            return .signInNeeded(library: library.name, how: "its files answer 401 Unauthorized")
        }
        guard stored.token == nil else { return nil }
        return forgetCredentials()
    }

    /// Erases the credentials the library no longer accepts, and says so.
    private func forgetCredentials() -> CirculationError {
        let wasHTTP = state.withLock { state in
            defer { state.credentials = nil }
            return state.credentials?.httpScheme != nil
        }
        credentialStore.erase(library.name)
        return wasHTTP ? .passwordRejected(library: library.name) : .credentialsRejected(library: library.name)
    }

    /// The Authorization header for the stored credentials, getting a token first when the flow needs one;
    /// nil when the patron is not signed in.
    private func authorization() throws -> Authorization? {
        enum Next {
            case send(Authorization)
            case wait(Background<Credentials>)
        }
        let next: Next? = state.withLock { state in
            guard let stored = state.credentials, stored.httpScheme == nil else { return nil }
            guard stored.authType == AuthenticationDocument.basicTokenType || stored.isTokenOnly else {
                return .send(Authorization(header: Self.basic(stored.username, stored.password)))
            }
            // A token whose end the library did not say (a browser sign-in's often) is used until it is refused.
            if let token = stored.token,
               stored.tokenExpiresAt.map({ $0.timeIntervalSinceNow > renewalMargin }) ?? stored.isTokenOnly {
                return .send(Authorization(header: "Bearer \(token)", token: token))
            }
            if let renewal = state.renewal { return .wait(renewal) }
            // The request runs on a thread of its own, so no sender holds the lock while it is on the network.
            let (http, name) = (http, library.name)
            let renewal = stored.isTokenOnly
                ? Background { try Self.refreshToken(http: http, credentials: stored, library: name) }
                : Background { try Self.fetchToken(http: http, credentials: stored, library: name) }
            state.renewal = renewal
            return .wait(renewal)
        }
        switch next {
        case nil: return nil
        case .send(let authorization): return authorization
        case .wait(let renewal): return try renewed(by: renewal)
        }
    }

    /// Waits for a token renewal; the first sender to see it end records the outcome for everyone.
    private func renewed(by renewal: Background<Credentials>) throws -> Authorization {
        let outcome = Result { try renewal.value() }
        // The card or PIN itself is no longer good (changed, expired card): stop using it, at once, so no
        // other sender asks for a token with it.
        // A browser sign-in that lapsed, or a refresh token refused, likewise: it can only be asked for again.
        let rejected: Bool
        switch outcome {
        case .failure(CirculationError.loginRejected), .failure(CirculationError.signInLapsed): rejected = true
        default: rejected = false
        }
        let recorded = state.withLock { state in
            guard state.renewal === renewal else { return false }
            state.renewal = nil
            if rejected { state.credentials = nil }
            // Credentials another sender found rejected meanwhile stay erased.
            guard state.credentials != nil, case .success(let renewed) = outcome else { return false }
            state.credentials = renewed
            return true
        }
        if rejected {
            credentialStore.erase(library.name)
            if case .failure(let error as CirculationError) = outcome, case .signInLapsed = error { throw error }
            throw CirculationError.credentialsRejected(library: library.name)
        }
        let renewed = try outcome.get()
        if recorded { try credentialStore.save(renewed, for: library.name) }
        return Authorization(header: "Bearer \(renewed.token ?? "")", token: renewed.token)
    }

    static func basic(_ username: String, _ password: String) -> String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// Exchanges card and PIN for a bearer token at the flow's authenticate link.
    static func fetchToken(http: HTTPClient, credentials: Credentials, library: String) throws -> Credentials {
        guard let endpoint = credentials.authenticateURL.flatMap(URL.init(string:)) else {
            throw CirculationError.authDocumentLacks(library: library, what: "offers a card-and-PIN token sign-in with no authenticate link")
        }
        let response = try http.request(
            endpoint, method: "POST",
            headers: ["Authorization": basic(credentials.username, credentials.password), "Accept": "application/json"],
            body: Data(), limit: InputLimit.documentBytes.value)
        if response.status == 401 || response.status == 403 { throw CirculationError.loginRejected(library: library) }
        guard (200..<300).contains(response.status) else {
            throw CirculationError.refused(
                status: response.status,
                reason: ProblemDocument.parse(response.body)?.text ?? "the token endpoint answered \(response.status)")
        }
        if let limit = InputLimit.jsonViolation(in: response.body) {
            throw CirculationError.malformedTokenResponse(url: endpoint.absoluteString, reason: limit.reason())
        }
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let token = object["access_token"] as? String, !token.isEmpty
        else {
            throw CirculationError.malformedTokenResponse(url: endpoint.absoluteString, reason: "no access_token in it")
        }
        let lifetime = (object["expires_in"] as? NSNumber)?.doubleValue ?? 3600
        var renewed = credentials
        renewed.token = token
        renewed.tokenExpiresAt = Date().addingTimeInterval(lifetime)
        return renewed
    }

    /// Checks a user name and password with a library that asked for HTTP Basic or Digest (a GET of its root
    /// with them must succeed), then stores them; nothing is stored when the server refuses them.
    public static func signIn(
        library: Library, challenge: HTTPChallenge, username: String, password: String,
        credentialStore: CredentialStore, configuration: HTTPConfiguration
    ) throws -> Credentials {
        guard let scheme = HTTPLogin.Scheme(challenge: challenge), let root = URL(string: library.url),
            let login = HTTPLogin(scheme: scheme, username: username, password: password, library: root)
        else {
            throw CirculationError.unsupportedAuth(library: library.name, types: [challenge.scheme])
        }
        var checking = configuration
        checking.login = login
        let response = try HTTPClient(configuration: checking).request(root, headers: ["Accept": "application/atom+xml"])
        if response.status == 401 || response.status == 403 { throw CirculationError.passwordRefused(library: library.name) }
        guard (200..<300).contains(response.status) else {
            throw NetworkError.httpStatus(url: Redaction.url(root.absoluteString), status: response.status)
        }
        let credentials = Credentials(
            authType: Credentials.httpType(scheme), username: username, password: password, libraryURL: library.url)
        try credentialStore.save(credentials, for: library.name)
        return credentials
    }

    /// Checks a card and PIN with the library, then stores them (with a token for the basic-token flow).
    ///
    /// Nothing is stored when the library refuses them.
    public static func signIn(
        library: Library, flow: AuthenticationDocument.Flow, username: String, password: String,
        credentialStore: CredentialStore, configuration: HTTPConfiguration
    ) throws -> Credentials {
        let http = HTTPClient(configuration: configuration)
        var credentials = Credentials(
            authType: flow.type, username: username, password: password, authenticateURL: flow.authenticateURL,
            libraryURL: library.url)
        if flow.kind == .passwordGrant {
            return try signIn(library: library, passwordFlow: flow, username: username, password: password,
                              credentialStore: credentialStore, configuration: configuration)
        }
        if flow.type == AuthenticationDocument.basicTokenType {
            credentials = try fetchToken(http: http, credentials: credentials, library: library.name)
        } else if let shelf = library.shelfURL.flatMap(URL.init(string:)) {
            // Basic credentials are checked by reading the patron's loans.
            let response = try http.request(
                shelf, headers: ["Authorization": basic(username, password), "Accept": "application/atom+xml"])
            if response.status == 401 || response.status == 403 { throw CirculationError.loginRejected(library: library.name) }
            guard (200..<300).contains(response.status) else {
                throw NetworkError.httpStatus(url: Redaction.url(shelf.absoluteString), status: response.status)
            }
        }
        try credentialStore.save(credentials, for: library.name)
        return credentials
    }
}
