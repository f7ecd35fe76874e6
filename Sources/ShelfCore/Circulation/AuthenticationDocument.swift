import Foundation

/// An Authentication for OPDS 1.0 document: how a library's patrons sign in.
public struct AuthenticationDocument: Sendable, Equatable {
    public static let basicType = "http://opds-spec.org/auth/basic"
    public static let basicTokenType = "http://thepalaceproject.org/authtype/basic-token"
    public static let samlType = "http://librarysimplified.org/authtype/SAML-2.0"
    /// Palace's OpenID Connect, under each type URI its servers and apps have used.
    public static let oidcTypes: Set<String> = [
        "http://thepalaceproject.org/authtype/OpenIDConnect", "http://palaceproject.io/authtype/OpenIDConnect",
        "http://thepalaceproject.org/authtype/openid-connect",
    ]
    public static let implicitType = "http://opds-spec.org/auth/oauth/implicit"
    public static let passwordType = "http://opds-spec.org/auth/oauth/password"
    public static let mediaType = "application/vnd.opds.authentication.v1.0+json"

    /// One way of signing in.
    public struct Flow: Sendable, Equatable {
        public var type: String
        public var description: String?
        /// The prompt for the card number, from the document ("Library card", "Barcode").
        public var loginLabel: String
        /// The prompt for the secret ("PIN", "Password").
        public var passwordLabel: String
        /// The basic-token flow's token endpoint (`rel="authenticate"`): the first `authenticate` link.
        public var authenticateURL: String?
        /// Every `authenticate` link with its name (`display_names`): one per SAML identity provider.
        public var providers: [Provider] = []
        /// Where an OAuth token is refreshed (`rel="refresh"`).
        public var refreshURL: String?
        /// Where a browser sign-in is ended (`rel="logout"`, a template with `post_logout_redirect_uri`).
        public var logoutURL: String?

        /// One way in: an identity provider's sign-in link, with the name the library gives it.
        public struct Provider: Sendable, Equatable {
            public var name: String
            public var href: String
        }

        /// How shelf signs in with the flow.
        public enum Kind: Sendable, Equatable {
            /// A card number and PIN sent with every request (basic) or once for a token (basic-token).
            case cardAndPIN
            /// A card number and PIN posted once to a token endpoint (OAuth password grant); the PIN is not kept.
            case passwordGrant
            /// A web page in the browser, which sends the patron back with a token.
            case browser
        }

        /// How the flow signs in, nil for a flow shelf cannot use.
        public var kind: Kind? {
            switch type {
            case AuthenticationDocument.basicType: .cardAndPIN
            case AuthenticationDocument.basicTokenType: authenticateURL == nil ? nil : .cardAndPIN
            case AuthenticationDocument.passwordType: authenticateURL == nil ? nil : .passwordGrant
            case AuthenticationDocument.samlType, AuthenticationDocument.implicitType:
                providers.isEmpty ? nil : .browser
            case _ where AuthenticationDocument.oidcTypes.contains(type): providers.isEmpty ? nil : .browser
            default: nil
            }
        }

        /// The method as a patron knows it: "library card and PIN", "SAML single sign-on"…
        public var summary: String {
            switch type {
            case AuthenticationDocument.basicType, AuthenticationDocument.basicTokenType:
                "\(loginLabel.lowercased()) and \(passwordLabel == passwordLabel.uppercased() ? passwordLabel : passwordLabel.lowercased())"
            default:
                providers.count > 1
                    ? AuthenticationDocument.shortName(of: type) + " (" + providers.map(\.name).joined(separator: ", ") + ")"
                    : AuthenticationDocument.shortName(of: type)
            }
        }

        /// Whether shelf can sign in with this flow.
        public var isSupported: Bool { kind != nil }

        /// The method as `--method` names it: `card` (basic, basic-token), `password` (OAuth password grant),
        /// `saml`, `oidc`, `oauth` (implicit grant); nil for others.
        public var methodName: String? {
            switch type {
            case AuthenticationDocument.basicType, AuthenticationDocument.basicTokenType: "card"
            case AuthenticationDocument.passwordType: "password"
            case AuthenticationDocument.samlType: "saml"
            case AuthenticationDocument.implicitType: "oauth"
            case _ where AuthenticationDocument.oidcTypes.contains(type): "oidc"
            default: nil
            }
        }
    }

    public var id: String?
    public var title: String
    public var description: String?
    public var flows: [Flow]
    /// Flows that were skipped because they were incomplete, one line each.
    public var warnings: [String]
    /// The library's announcements (Palace's `announcements`: `id` and `content`), in the document's order.
    public var announcements: [(id: String, content: String)] = []
    /// The patron's profile (Palace's User Profile Management Protocol), when the document links one.
    public var profileURL: String?

    public static func == (lhs: AuthenticationDocument, rhs: AuthenticationDocument) -> Bool {
        lhs.id == rhs.id && lhs.title == rhs.title && lhs.description == rhs.description && lhs.flows == rhs.flows
            && lhs.warnings == rhs.warnings && lhs.announcements.map(\.id) == rhs.announcements.map(\.id)
            && lhs.announcements.map(\.content) == rhs.announcements.map(\.content)
    }

    /// The flow shelf uses unless told otherwise: basic-token when offered (the password then travels once per
    /// token), else basic, else the OAuth password grant, else the first browser sign-in.
    public var preferredFlow: Flow? {
        flows.first { $0.type == Self.basicTokenType && $0.isSupported } ?? flows.first { $0.type == Self.basicType }
            ?? flows.first { $0.kind == .passwordGrant } ?? flows.first { $0.kind == .browser }
    }

    /// Fetches and reads the document at `url`; one that does not come is `authDocumentUnavailable`.
    public static func fetch(_ url: URL, http: HTTPClient) throws -> AuthenticationDocument {
        let response = try http.request(
            url, headers: ["Accept": "\(mediaType), application/json"], limit: InputLimit.documentBytes.value)
        guard (200..<300).contains(response.status) else {
            throw CirculationError.authDocumentUnavailable(url: url.absoluteString, status: response.status)
        }
        return try parse(response.body, url: URL(string: response.url) ?? url)
    }

    /// Reads a document; relative links resolve against `url`.
    public static func parse(_ data: Data, url: URL) throws(CirculationError) -> AuthenticationDocument {
        let object: Any
        if let limit = InputLimit.jsonViolation(in: data) {
            throw .malformedAuthDocument(url: url.absoluteString, reason: limit.reason())
        }
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .malformedAuthDocument(url: url.absoluteString, reason: "not JSON")
        }
        guard let root = object as? [String: Any] else {
            throw .malformedAuthDocument(url: url.absoluteString, reason: "not a JSON object")
        }
        guard let entries = root["authentication"] as? [Any] else {
            throw .malformedAuthDocument(url: url.absoluteString, reason: "no \"authentication\" list")
        }
        var flows: [Flow] = []
        var warnings: [String] = []
        for (index, item) in entries.enumerated() {
            guard let flow = item as? [String: Any], let type = flow["type"] as? String, !type.isEmpty else {
                warnings.append("sign-in method \(index + 1) has no type; ignored")
                continue
            }
            let labels = flow["labels"] as? [String: Any]
            let links = (flow["links"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
            func resolved(_ href: String?) -> String? {
                href.flatMap { $0.contains("{") ? LinkResolver(baseURL: url).resolveTemplate($0) : URL(string: $0, relativeTo: url)?.absoluteString }
            }
            let authenticate = links.first { $0["rel"] as? String == "authenticate" }?["href"] as? String
            var entry = Flow(
                type: type, description: flow["description"] as? String,
                loginLabel: (labels?["login"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "Library card",
                passwordLabel: (labels?["password"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "PIN",
                authenticateURL: resolved(authenticate))
            entry.providers = links.filter { $0["rel"] as? String == "authenticate" }.enumerated().compactMap { index, link in
                guard let href = resolved(link["href"] as? String) else { return nil }
                return Flow.Provider(name: localized(link["display_names"]) ?? (flow["description"] as? String)
                                     ?? "Identity provider #\(index + 1)", href: href)
            }
            entry.refreshURL = resolved(links.first { $0["rel"] as? String == "refresh" }?["href"] as? String)
            entry.logoutURL = resolved(links.first { $0["rel"] as? String == "logout" }?["href"] as? String)
            flows.append(entry)
        }
        var document = AuthenticationDocument(
            id: root["id"] as? String, title: root["title"] as? String ?? url.host ?? "the library",
            description: root["description"] as? String, flows: flows, warnings: warnings)
        let links = (root["links"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        document.profileURL = (links.first { $0["rel"] as? String == PatronProfile.rel }?["href"] as? String)
            .flatMap { URL(string: $0, relativeTo: url)?.absoluteString }
        document.announcements = (root["announcements"] as? [Any] ?? []).compactMap { item in
            guard let announcement = item as? [String: Any], let content = announcement["content"] as? String,
                !content.isEmpty
            else { return nil }
            var hash = FNV1a()
            hash.combine(content)
            // An empty id is no id: the content's hash names it, as when there is none.
            return ((announcement["id"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? String(hash.value, radix: 16), content)
        }
        return document
    }

    /// The English value of a list of `{"value", "language"}` (Palace's `display_names`), else the first.
    static func localized(_ list: Any?) -> String? {
        let values = (list as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        let english = values.first { ($0["language"] as? String)?.hasPrefix("en") == true } ?? values.first
        return (english?["value"] as? String).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Names of flow types a patron may recognise.
    static let knownNames = [
        "http://librarysimplified.org/authtype/SAML-2.0": "SAML single sign-on",
        "http://opds-spec.org/auth/oauth/implicit": "OAuth, implicit grant",
        "http://opds-spec.org/auth/oauth/password": "OAuth, password grant",
        "http://librarysimplified.org/authtype/OAuth-with-intermediary": "OAuth with intermediary",
        "http://thepalaceproject.org/authtype/OpenIDConnect": "OpenID Connect",
        "http://palaceproject.io/authtype/OpenIDConnect": "OpenID Connect",
    ]

    /// A flow type's name alone ("OpenID Connect"), or the type itself when it has none known.
    public static func shortName(of type: String) -> String { knownNames[type] ?? type }

    /// A short name for a flow type a patron may recognise, with the type.
    public static func displayName(of type: String) -> String {
        knownNames[type].map { "\($0) (\(type))" } ?? type
    }
}

/// An RFC 7807 problem document (`application/api-problem+json`), as Palace servers send them.
public struct ProblemDocument: Sendable, Equatable {
    public var type: String?
    public var title: String?
    public var status: Int?
    public var detail: String?

    public static let loanLimit = "http://librarysimplified.org/terms/problem/loan-limit-reached"
    public static let holdLimit = "http://librarysimplified.org/terms/problem/hold-limit-reached"
    public static let loanExists = "http://librarysimplified.org/terms/problem/loan-already-exists"
    public static let holdExists = "http://librarysimplified.org/terms/problem/hold-already-exists"
    public static let noActiveLoan = "http://librarysimplified.org/terms/problem/no-active-loan"
    public static let notFound = "http://librarysimplified.org/terms/problem/not-found"
    public static let credentialsInvalid = "http://librarysimplified.org/terms/problem/credentials-invalid"

    /// Parses a body that claims to be a problem document; nil when it is not one.
    public static func parse(_ data: Data) -> ProblemDocument? {
        guard InputLimit.jsonViolation(in: data) == nil,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        let document = ProblemDocument(
            type: object["type"] as? String, title: object["title"] as? String,
            status: (object["status"] as? NSNumber)?.intValue, detail: object["detail"] as? String)
        return document.type == nil && document.title == nil && document.detail == nil ? nil : document
    }

    /// A 401 the client can recover from by getting a new token (Palace marks these in the type).
    public var isRecoverableAuth: Bool { type?.contains("/auth/recoverable/") == true }

    /// The server's own words, for a message.
    /// `detail` on one line (nil when empty).
    public var detailLine: String? {
        detail.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }.flatMap { $0.isEmpty ? nil : $0 }
    }

    public var text: String {
        // One line, whatever the server sent: runs of white space (new lines included) become one space.
        let words = [title, detail].compactMap { $0?.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty }
        // An empty type (`{"type": ""}`) is no more a message than no type.
        return words.isEmpty ? (type.flatMap { $0.isEmpty ? nil : $0 } ?? "no detail") : words.joined(separator: ": ")
    }
}
