import Foundation
import Hummingbird

/// The browser sign-ins a library may ask for, as Palace's controllers and Authentication for OPDS's OAuth flows
/// answer them, with the identity providers' pages they lead to (plain HTML forms a test fills in with plain HTTP):
///
/// - SAML 2.0 Web SSO: `GET /saml_authenticate?provider=SAML+2.0+Web+SSO&idp_entity_id=…&redirect_uri=…` (also
///   `/saml/authenticate`) → 302 to the IdP's `/idp/saml/sso` (HTTP-Redirect binding, a RelayState) → its login form
///   → an auto-posting form to `POST /saml_callback` (`SAMLResponse`, `RelayState`) → 302 to
///   `redirect_uri?access_token=…&patron_info=%7B%7D`, or `redirect_uri?error=<problem JSON>`.
/// - OpenID Connect: `GET /oidc/authenticate?provider=OpenID+Connect&redirect_uri=…` → 302 to the provider's
///   `/idp/oidc/authorize` (code flow, state, nonce) → its login form → 302 to `/oidc/callback?code=…&state=…` →
///   302 to `redirect_uri?access_token=…&patron_info=…`; `GET /oidc/logout` ends the token.
/// - OAuth implicit grant: `GET /oauth/authorize?redirect_uri=…&response_type=token&state=…` → the login form → 302
///   to `redirect_uri#id=<document id>&access_token=…&token_type=bearer&expires_in=…&state=…`.
/// - OAuth password grant: `POST /oauth/token` (`grant_type=password`, or `refresh_token`) → the token as JSON.
enum SignInRoutes {
    static let samlProvider = "SAML 2.0 Web SSO"
    static let oidcProvider = "OpenID Connect"
    static let problemBase = "http://palaceproject.io/terms/problem/auth/"

    static func add(to router: Router<DemoRequestContext>, state: DemoState) {
        for path in ["/saml_authenticate", "/saml/authenticate"] {
            router.get(RouterPath(stringLiteral: path)) { request, _ in await samlAuthenticate(request, state: state) }
        }
        router.get("/idp/saml/sso") { request, _ in
            let query = query(request)
            return loginPage(title: "Riverside University sign-in", action: "sso",
                             hidden: [("RelayState", query["RelayState"] ?? "")])
        }
        router.post("/idp/saml/sso") { request, context in
            try await samlLogin(request, context: context, state: state)
        }
        for path in ["/saml_callback", "/saml/callback"] {
            router.post(RouterPath(stringLiteral: path)) { request, context in
                try await samlCallback(request, context: context, state: state)
            }
        }
        router.get("/oidc/authenticate") { request, _ in await oidcAuthenticate(request, state: state) }
        router.get("/idp/oidc/authorize") { request, _ in
            let query = query(request)
            return loginPage(title: "Lakeside College account", action: "authorize",
                             hidden: [("state", query["state"] ?? "")])
        }
        router.post("/idp/oidc/authorize") { request, context in
            try await oidcLogin(request, context: context, state: state)
        }
        router.get("/oidc/callback") { request, _ in await oidcCallback(request, state: state) }
        router.get("/oidc/logout") { request, _ in
            let query = query(request)
            guard let back = query["post_logout_redirect_uri"],
                  await state.revokeBearer(request.headers[.authorization])
            else {
                return HTTPSupport.problem(.badRequest, type: problemBase + "unrecoverable/oidc/invalid-request",
                                           title: "Invalid logout request", detail: "a bearer token and post_logout_redirect_uri are required")
            }
            return redirect(appending(back, [("logout_status", "success")]))
        }
        router.get("/oauth/authorize") { request, _ in
            let query = query(request)
            if let type = query["response_type"], type != "token" {
                return HTTPSupport.problem(.badRequest, type: "unsupported_response_type", title: "Unsupported response type",
                                           detail: "only response_type=token is offered")
            }
            return loginPage(title: "Hilltop Reading Room", action: "authorize", hidden: [
                ("redirect_uri", query["redirect_uri"] ?? "opds://authorize"),
                ("state", query["state"] ?? ""), ("branch", query["branch"] ?? ""),
            ])
        }
        router.post("/oauth/authorize") { request, context in
            try await implicitLogin(request, context: context, state: state)
        }
        router.post("/oauth/token") { request, context in
            try await tokenEndpoint(request, context: context, state: state)
        }
    }

    // MARK: SAML

    static func samlAuthenticate(_ request: Request, state: DemoState) async -> Response {
        let query = query(request)
        guard let provider = query["provider"], let entity = query["idp_entity_id"],
              let back = query["redirect_uri"], !back.isEmpty
        else {
            return HTTPSupport.problem(.unauthorized, type: problemBase + "unrecoverable/saml/invalid-request",
                                       title: "Invalid SAML request", detail: "provider, idp_entity_id and redirect_uri are required")
        }
        guard provider == samlProvider else {
            return redirect(appending(back, [("error", problemJSON("unknown-provider", "Unknown provider", 400, "no provider \(provider)"))]))
        }
        guard AuthenticationDocument.identityProviders.contains(where: { $0.entityID == entity }) else {
            return redirect(appending(back, [("error", problemJSON("unrecoverable/saml/unknown-idp", "Unknown identity provider", 400,
                                                                   "no identity provider \(entity)"))]))
        }
        let relay = await state.beginSignIn(redirectURI: back, identityProvider: entity)
        let authnRequest = """
            <samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_\(DemoState.randomToken())" \
            Version="2.0" AssertionConsumerServiceURL="\(await state.renderer.base)saml_callback"/>
            """
        let base = await state.renderer.base
        return redirect(appending(base + "idp/saml/sso", [
            ("SAMLRequest", Data(authnRequest.utf8).base64EncodedString()), ("RelayState", relay),
        ]))
    }

    static func samlLogin(_ request: Request, context: DemoRequestContext, state: DemoState) async throws -> Response {
        let form = try await formFields(request, context: context)
        let relay = form["RelayState"] ?? ""
        let base = await state.renderer.base
        var subject: String?
        if form["cancel"] == nil {
            guard let patron = await state.patron(username: form["username"] ?? "", password: form["password"] ?? "") else {
                return loginPage(title: "Riverside University sign-in", action: "sso", hidden: [("RelayState", relay)],
                                 error: "Unknown user name or wrong password.")
            }
            subject = patron
        }
        let status = subject == nil ? "urn:oasis:names:tc:SAML:2.0:status:AuthnFailed" : "urn:oasis:names:tc:SAML:2.0:status:Success"
        let response = """
            <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
            Destination="\(base)saml_callback"><samlp:Status><samlp:StatusCode Value="\(status)"/></samlp:Status>\
            \(subject.map { "<saml:Assertion><saml:Subject><saml:NameID>\($0)</saml:NameID></saml:Subject></saml:Assertion>" } ?? "")\
            </samlp:Response>
            """
        // The HTTP-POST binding: a page whose form the browser submits by itself.
        let page = """
            <!DOCTYPE html><html><body onload="document.forms[0].submit()">
            <form method="post" action="\(base)saml_callback">
            <input type="hidden" name="SAMLResponse" value="\(Data(response.utf8).base64EncodedString())"/>
            <input type="hidden" name="RelayState" value="\(escape(relay))"/>
            <noscript><button type="submit">Continue</button></noscript></form></body></html>
            """
        return HTTPSupport.response(ByteBuffer(string: page), contentType: "text/html; charset=utf-8")
    }

    static func samlCallback(_ request: Request, context: DemoRequestContext, state: DemoState) async throws -> Response {
        let form = try await formFields(request, context: context)
        guard let encoded = form["SAMLResponse"], let data = Data(base64Encoded: encoded) else {
            return HTTPSupport.problem(.unauthorized, type: problemBase + "recoverable/saml/invalid-response",
                                       title: "Invalid SAML response", detail: "the request has no SAMLResponse")
        }
        guard let pending = await state.finishSignIn(form["RelayState"] ?? "") else {
            // Unsolicited: not a sign-in this library began.
            return Response(status: .seeOther, headers: [.location: await state.renderer.base])
        }
        let xml = String(decoding: data, as: UTF8.self)
        guard xml.contains("status:Success"), let start = xml.range(of: "<saml:NameID>"),
              let end = xml.range(of: "</saml:NameID>", range: start.upperBound..<xml.endIndex)
        else {
            return redirect(appending(pending.redirectURI, [("error", problemJSON(
                "recoverable/saml/authentication-failed", "SAML authentication failed", 401,
                "the identity provider did not sign the patron in"))]))
        }
        let patron = String(xml[start.upperBound..<end.lowerBound])
        let (token, _) = await state.issueBearer(for: patron, issuer: samlProvider, jwt: true)
        return redirect(appending(pending.redirectURI, [("access_token", token), ("patron_info", "{}")]))
    }

    // MARK: OpenID Connect

    static func oidcAuthenticate(_ request: Request, state: DemoState) async -> Response {
        let query = query(request)
        guard let provider = query["provider"], let back = query["redirect_uri"], !back.isEmpty else {
            return HTTPSupport.problem(.badRequest, type: problemBase + "unrecoverable/oidc/invalid-request",
                                       title: "Invalid OIDC request", detail: "provider and redirect_uri are required")
        }
        guard provider == oidcProvider else {
            return redirect(appending(back, [("error", problemJSON("unknown-provider", "Unknown provider", 400, "no provider \(provider)"))]))
        }
        let key = await state.beginSignIn(redirectURI: back)
        let base = await state.renderer.base
        return redirect(appending(base + "idp/oidc/authorize", [
            ("response_type", "code"), ("client_id", "shelf-demo"), ("redirect_uri", base + "oidc/callback"),
            ("scope", "openid profile"), ("state", key), ("nonce", DemoState.randomToken()),
        ]))
    }

    static func oidcLogin(_ request: Request, context: DemoRequestContext, state: DemoState) async throws -> Response {
        let form = try await formFields(request, context: context)
        let key = form["state"] ?? ""
        let callback = await state.renderer.base + "oidc/callback"
        if form["cancel"] != nil {
            return redirect(appending(callback, [("error", "access_denied"), ("state", key)]))
        }
        guard let patron = await state.patron(username: form["username"] ?? "", password: form["password"] ?? "") else {
            return loginPage(title: "Lakeside College account", action: "authorize", hidden: [("state", key)],
                             error: "Unknown user name or wrong password.")
        }
        let code = await state.issueCode(for: patron, state: key)
        return redirect(appending(callback, [("code", code), ("state", key)]))
    }

    static func oidcCallback(_ request: Request, state: DemoState) async -> Response {
        let query = query(request)
        if let error = query["error"], let pending = await state.finishSignIn(query["state"] ?? "") {
            return redirect(appending(pending.redirectURI, [("error", problemJSON(
                "recoverable/oidc/authentication-failed", "OpenID Connect authentication failed", 401,
                "the identity provider answered \(error)"))]))
        }
        guard let code = query["code"], let key = query["state"] else {
            return HTTPSupport.problem(.unauthorized, type: problemBase + "recoverable/oidc/invalid-response",
                                       title: "Invalid OIDC response", detail: "code and state are required")
        }
        guard let issued = await state.redeemCode(code), issued.state == key, let pending = await state.finishSignIn(key) else {
            return HTTPSupport.problem(.unauthorized, type: problemBase + "unrecoverable/oidc/invalid-state",
                                       title: "Invalid OIDC state", detail: "the state or code is not one this library issued")
        }
        let (token, _) = await state.issueBearer(for: issued.username, issuer: oidcProvider, jwt: true)
        return redirect(appending(pending.redirectURI, [("access_token", token), ("patron_info", "{}")]))
    }

    // MARK: OAuth

    static func implicitLogin(_ request: Request, context: DemoRequestContext, state: DemoState) async throws -> Response {
        let form = try await formFields(request, context: context)
        let back = form["redirect_uri"].flatMap { $0.isEmpty ? nil : $0 } ?? "opds://authorize"
        let key = form["state"] ?? ""
        let branch = form["branch"].flatMap { $0.isEmpty ? nil : $0 }
        var fragment: [(String, String)] = []
        if form["cancel"] != nil {
            fragment = [("error", "access_denied"), ("error_description", "The reader cancelled the sign-in.")]
        } else if let patron = await state.patron(username: form["username"] ?? "", password: form["password"] ?? "") {
            let (token, lifetime) = await state.issueBearer(for: patron, issuer: "oauth", jwt: false)
            let id = await state.renderer.base + "authentication_document" + (branch.map { "?branch=" + $0 } ?? "")
            fragment = [("id", id), ("access_token", token), ("token_type", "bearer"), ("expires_in", String(lifetime))]
        } else {
            return loginPage(title: "Hilltop Reading Room", action: "authorize", hidden: [
                ("redirect_uri", back), ("state", key), ("branch", branch ?? ""),
            ], error: "Unknown user name or wrong password.")
        }
        if !key.isEmpty { fragment.append(("state", key)) }
        return redirect(back + "#" + encoded(fragment))
    }

    static func tokenEndpoint(_ request: Request, context: DemoRequestContext, state: DemoState) async throws -> Response {
        let form = try await formFields(request, context: context)
        let grant = form["grant_type"] ?? ""
        await state.countTokenRequest(grant)
        if await state.switches.tokenEndpointHTML {
            return HTTPSupport.response(ByteBuffer(string: CatalogRoutes.captivePortalHTML), contentType: "text/html; charset=utf-8")
        }
        func failure(_ error: String, _ description: String) throws -> Response {
            try HTTPSupport.json(["error": error, "error_description": description], status: .badRequest)
        }
        let patron: String
        switch grant {
        case "password":
            guard let owner = await state.patron(username: form["username"] ?? "", password: form["password"] ?? "") else {
                return try failure("invalid_grant", "Unknown library card or wrong PIN.")
            }
            patron = owner
        case "refresh_token":
            guard let owner = await state.refreshTokenOwner(form["refresh_token"] ?? "") else {
                return try failure("invalid_grant", "The refresh token is not one this library issued.")
            }
            patron = owner
        default:
            return try failure("unsupported_grant_type", "Only the password and refresh_token grants are offered.")
        }
        let (token, lifetime) = await state.issueBearer(for: patron, issuer: "oauth", jwt: false)
        let refresh = grant == "refresh_token" ? form["refresh_token"]! : await state.issueRefreshToken(for: patron)
        struct Answer: Encodable {
            var access_token: String
            var token_type = "Bearer"
            var expires_in: Int
            var refresh_token: String
        }
        return try HTTPSupport.json(Answer(access_token: token, expires_in: lifetime, refresh_token: refresh))
    }

    // MARK: pieces

    /// The query's parameters as Flask reads them: `+` a space, then percent-decoded.
    static func query(_ request: Request) -> [String: String] { pairs(request.uri.query ?? "") }

    /// `a=1&b=x+y%21` as a form or query is read: split on the first `=`, `+` a space, then percent-decoded.
    static func pairs(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// Python's `quote_plus`, as `urlencode` writes values: unreserved characters kept, a space `+`.
    static func quotePlus(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            case UInt8(ascii: " "): out += "+"
            default: out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    static func encoded(_ items: [(String, String)]) -> String {
        items.map { quotePlus($0.0) + "=" + quotePlus($0.1) }.joined(separator: "&")
    }

    /// `url` with `items` added to its query, as Palace's `_add_params_to_url` does (the URL's own query kept).
    static func appending(_ url: String, _ items: [(String, String)]) -> String {
        url + (url.contains("?") ? "&" : "?") + encoded(items)
    }

    /// A problem document as the JSON Palace puts in an `error` parameter.
    static func problemJSON(_ type: String, _ title: String, _ status: Int, _ detail: String) -> String {
        let problem = HTTPSupport.Problem(type: problemBase + type, title: title, status: status, detail: detail)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(problem)) ?? Data(), as: UTF8.self)
    }

    /// The fields of a form post (`application/x-www-form-urlencoded`).
    static func formFields(_ request: Request, context: DemoRequestContext) async throws -> [String: String] {
        var request = request
        return pairs(String(buffer: try await request.collectBody(upTo: context.maxUploadSize)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// An identity provider's sign-in page: user name, password, Sign in and Cancel, posting to `action`.
    static func loginPage(title: String, action: String, hidden: [(String, String)], error: String? = nil) -> Response {
        let fields = hidden.map { #"<input type="hidden" name="\#($0.0)" value="\#(escape($0.1))"/>"# }.joined(separator: "\n")
        let page = """
            <!DOCTYPE html><html><head><title>\(escape(title))</title></head><body>
            <h1>\(escape(title))</h1>
            \(error.map { #"<p class="error">\#(escape($0))</p>"# } ?? "")
            <form method="post" action="\(action)">
            \(fields)
            <label>User name <input name="username"/></label>
            <label>Password <input name="password" type="password"/></label>
            <button type="submit" name="signin" value="1">Sign in</button>
            <button type="submit" name="cancel" value="1">Cancel</button>
            </form></body></html>
            """
        return HTTPSupport.response(ByteBuffer(string: page), status: error == nil ? .ok : .unauthorized,
                                    contentType: "text/html; charset=utf-8")
    }
}

extension DemoState {
    func countTokenRequest(_ grant: String) {
        stats.oauthTokenRequests[grant, default: 0] += 1
    }
}
