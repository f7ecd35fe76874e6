import Foundation

/// Sign-ins that end in a bearer token and keep no card or PIN: the OAuth password grant, and the browser
/// sign-ins (SAML, OpenID Connect, the OAuth implicit grant).
extension LibrarySession {
    /// What a token endpoint answered: the token, how long it lasts, and the refresh token when one came.
    struct Grant {
        var token: String
        var lifetime: TimeInterval?
        var refreshToken: String?
    }

    /// Posts a form to an OAuth token endpoint (RFC 6749 §4.3, §6): the token, or why not. A refusal (400
    /// `invalid_grant`, 401) is `refusal`; anything but a JSON token is a malformed answer.
    static func postGrant(http: HTTPClient, endpoint: URL, form: [(String, String)], refusal: CirculationError) throws -> Grant {
        let body = form.map { "\(formEncoded($0.0))=\(formEncoded($0.1))" }.joined(separator: "&")
        let response = try http.request(
            endpoint, method: "POST",
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Data(body.utf8), limit: InputLimit.documentBytes.value)
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        if response.status == 401 || response.status == 403 || (response.status == 400 && object?["error"] as? String == "invalid_grant") {
            throw refusal
        }
        guard (200..<300).contains(response.status) else {
            let reason = (object?["error_description"] as? String) ?? (object?["error"] as? String)
                ?? ProblemDocument.parse(response.body)?.text ?? "the token endpoint answered \(response.status)"
            throw CirculationError.refused(status: response.status, reason: reason)
        }
        if let limit = InputLimit.jsonViolation(in: response.body) {
            throw CirculationError.malformedTokenResponse(url: endpoint.absoluteString, reason: limit.reason())
        }
        guard let object else {
            throw CirculationError.malformedTokenResponse(
                url: endpoint.absoluteString, reason: AudioTypes.looksLikeHTML(response.body) ? "an HTML page, not JSON" : "not JSON")
        }
        guard let token = object["access_token"] as? String, !token.isEmpty else {
            throw CirculationError.malformedTokenResponse(url: endpoint.absoluteString, reason: "no access_token in it")
        }
        if let type = object["token_type"] as? String, type.lowercased() != "bearer" {
            throw CirculationError.malformedTokenResponse(url: endpoint.absoluteString, reason: "a \(type) token, not a bearer token")
        }
        return Grant(token: token, lifetime: (object["expires_in"] as? NSNumber)?.doubleValue,
                     refreshToken: (object["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : $0 })
    }

    /// `application/x-www-form-urlencoded`: everything but unreserved characters percent-encoded.
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The OAuth password grant: the card number and PIN posted once for a token (and a refresh token); the PIN is
    /// not kept. Nothing is stored when the library refuses them.
    public static func signIn(
        library: Library, passwordFlow flow: AuthenticationDocument.Flow, username: String, password: String,
        credentialStore: CredentialStore, configuration: HTTPConfiguration
    ) throws -> Credentials {
        guard let endpoint = flow.authenticateURL.flatMap(URL.init(string:)) else {
            throw CirculationError.authDocumentLacks(library: library.name, what: "offers an OAuth password sign-in with no authenticate link")
        }
        let http = HTTPClient(configuration: configuration)
        let grant = try postGrant(
            http: http, endpoint: endpoint, form: [("grant_type", "password"), ("username", username), ("password", password)],
            refusal: .loginRejected(library: library.name))
        var credentials = Credentials(
            authType: flow.type, username: username, password: "", authenticateURL: flow.authenticateURL,
            token: grant.token, tokenExpiresAt: grant.lifetime.map { Date().addingTimeInterval($0) }, libraryURL: library.url)
        credentials.refreshToken = grant.refreshToken
        credentials.refreshURL = grant.refreshToken == nil ? nil : (flow.refreshURL ?? flow.authenticateURL)
        try check(credentials, library: library, http: http)
        try credentialStore.save(credentials, for: library.name)
        return credentials
    }

    /// A browser sign-in through `provider` (one of the flow's `authenticate` links): the page opens, the library
    /// sends the browser back with a token, the token is checked with the library and stored.
    public static func signIn(
        library: Library, browserFlow flow: AuthenticationDocument.Flow, provider: AuthenticationDocument.Flow.Provider,
        document: AuthenticationDocument, browser: BrowserSignIn, credentialStore: CredentialStore,
        configuration: HTTPConfiguration
    ) throws -> Credentials {
        let implicit = flow.type == AuthenticationDocument.implicitType
        let answer = try browser.run { redirect, state in
            var components = URLComponents(string: provider.href)!
            var items = components.percentEncodedQueryItems ?? []
            // Palace's SAML and OpenID Connect take the address to come back to; the implicit grant also its
            // response type and a state it hands back.
            items.append(URLQueryItem(name: "redirect_uri", value: formEncoded(redirect)))
            if implicit {
                items.append(URLQueryItem(name: "response_type", value: "token"))
                items.append(URLQueryItem(name: "state", value: state))
            }
            components.percentEncodedQueryItems = items
            return components.url!
        }
        if let error = answer["error"] {
            // Palace sends a problem document; OAuth an error code and its description.
            let problem = ProblemDocument.parse(Data(error.utf8))
            let reason = problem?.title.map { title in title + (problem?.detail.map { " (\($0))" } ?? "") }
                ?? answer["error_description"].map { "\(error): \($0)" } ?? error
            throw CirculationError.browserSignInFailed(library: library.name, reason: reason)
        }
        guard let token = answer["access_token"], !token.isEmpty else {
            throw CirculationError.browserSignInMismatch(library: library.name, reason: "no token came back")
        }
        if implicit {
            if let id = answer["id"], let documentID = document.id, id != documentID {
                throw CirculationError.browserSignInMismatch(
                    library: library.name, reason: "the token is for \(Redaction.url(id)), not this library's sign-in document")
            }
            if let type = answer["token_type"], type.lowercased() != "bearer" {
                throw CirculationError.browserSignInMismatch(library: library.name, reason: "a \(type) token, not a bearer token")
            }
        }
        let lifetime = answer["expires_in"].flatMap(Double.init)
        var credentials = Credentials(
            authType: flow.type, username: "", password: "", authenticateURL: provider.href, token: token,
            tokenExpiresAt: lifetime.map { Date().addingTimeInterval($0) }, libraryURL: library.url)
        credentials.provider = flow.providers.count > 1 || flow.type != AuthenticationDocument.implicitType ? provider.name : nil
        credentials.logoutURL = flow.logoutURL
        try check(credentials, library: library, http: HTTPClient(configuration: configuration))
        try credentialStore.save(credentials, for: library.name)
        return credentials
    }

    /// Reads the patron's loans with a new token, when shelf knows where they are: a library that refuses the token
    /// it has just given is told now, not at the next sync.
    static func check(_ credentials: Credentials, library: Library, http: HTTPClient) throws {
        guard let shelf = library.shelfURL.flatMap(URL.init(string:)), let token = credentials.token else { return }
        let response = try http.request(shelf, headers: ["Authorization": "Bearer \(token)", "Accept": "application/atom+xml"])
        if response.status == 401 || response.status == 403 {
            throw CirculationError.browserSignInFailed(library: library.name, reason: "it refused the token it had just given (\(response.status))")
        }
        guard (200..<300).contains(response.status) else {
            throw NetworkError.httpStatus(url: Redaction.url(shelf.absoluteString), status: response.status)
        }
    }

    /// A new access token for the refresh token (OAuth); a refused refresh token means the sign-in has lapsed.
    static func refreshToken(http: HTTPClient, credentials: Credentials, library: String) throws -> Credentials {
        guard let refresh = credentials.refreshToken, let endpoint = credentials.refreshURL.flatMap(URL.init(string:)) else {
            throw CirculationError.signInLapsed(library: library, how: credentials.signInName)
        }
        let grant = try postGrant(
            http: http, endpoint: endpoint, form: [("grant_type", "refresh_token"), ("refresh_token", refresh)],
            refusal: .signInLapsed(library: library, how: credentials.signInName))
        var renewed = credentials
        renewed.token = grant.token
        renewed.tokenExpiresAt = grant.lifetime.map { Date().addingTimeInterval($0) }
        renewed.refreshToken = grant.refreshToken ?? refresh
        return renewed
    }

    /// Ends a browser sign-in at the library too (OpenID Connect's `logout` link), as far as it can: the stored
    /// credentials are erased by the caller whatever the library answers.
    public static func endSignIn(_ credentials: Credentials, library: Library, configuration: HTTPConfiguration) -> Bool {
        guard let template = credentials.logoutURL, let token = credentials.token else { return false }
        let address = URITemplate.expand(template, ["post_logout_redirect_uri": library.url])
        guard let url = URL(string: address) else { return false }
        let response = try? HTTPClient(configuration: configuration).request(url, headers: ["Authorization": "Bearer \(token)"])
        return response.map { (200..<400).contains($0.status) } ?? false
    }
}
