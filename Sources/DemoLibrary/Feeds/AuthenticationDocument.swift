/// A library announcement, as Palace's Authentication documents list them.
public struct DemoAnnouncement: Codable, Sendable, Equatable {
    public var id: String
    public var content: String

    /// Creates an announcement.
    public init(id: String, content: String) {
        self.id = id
        self.content = content
    }
}

/// The library's Authentication for OPDS 1.0 document, with the flows the configuration offers.
struct AuthenticationDocument: Codable, Sendable {
    static let mediaType = "application/vnd.opds.authentication.v1.0+json"

    struct Link: Codable, Sendable {
        /// A value in one language, as Palace lists an identity provider's names (`display_names`…).
        struct Localized: Codable, Sendable {
            var value: String
            var language: String
        }
        var rel: String
        var href: String
        var type: String?
        var templated: Bool?
        var display_names: [Localized]?
        var descriptions: [Localized]?
        var information_urls: [Localized]?
        var privacy_statement_urls: [Localized]?
        var logo_urls: [Localized]?

        init(rel: String, href: String, type: String? = nil, templated: Bool? = nil) {
            self.rel = rel
            self.href = href
            self.type = type
            self.templated = templated
        }
    }

    /// The identity providers the demo's SAML flow offers: entity id, name.
    static let identityProviders: [(entityID: String, name: String)] = [
        ("https://idp.riverside.example/idp/shibboleth", "Riverside University"),
        ("https://idp.alumni.example/idp/shibboleth", "Riverside Alumni Association"),
    ]

    struct Flow: Codable, Sendable {
        struct Labels: Codable, Sendable {
            var login: String
            var password: String
        }
        struct Input: Codable, Sendable {
            var keyboard: String
            var maximum_length: Int?
            var barcode_format: String?
        }
        var type: String
        var description: String
        var labels: Labels?
        var inputs: [String: Input]?
        var links: [Link]?
    }

    var id: String
    var title: String
    var description: String
    var authentication: [Flow]
    var links: [Link]
    /// Palace's library announcements, shown once by apps.
    var announcements: [DemoAnnouncement]?

    static func make(
        base: String, libraryName: String, flows: [DemoAuthFlow], branch: String? = nil
    ) -> AuthenticationDocument {
        let query = branch.map { "?branch=" + $0 } ?? ""
        let labels = Flow.Labels(login: "Library card", password: "PIN")
        let inputs: [String: Flow.Input] = [
            "login": .init(keyboard: "Default", barcode_format: "Codabar"),
            "password": .init(keyboard: "Number pad", maximum_length: 4),
        ]
        return AuthenticationDocument(
            id: base + "authentication_document" + query,
            title: libraryName,
            description: "A demonstration library served by shelf on this computer.",
            authentication: flows.map { flow in
                switch flow {
                case .basic:
                    Flow(type: flow.type, description: "Library card", labels: labels, inputs: inputs)
                case .basicToken:
                    Flow(type: flow.type, description: "Library card", labels: labels, inputs: inputs,
                         links: [Link(rel: "authenticate", href: base + "patrons/me/token/", type: nil)])
                case .saml:
                    // One `authenticate` link per identity provider, as Palace's SAML provider writes them.
                    Flow(type: flow.type, description: "SAML 2.0 Web SSO", links: identityProviders.map { provider in
                        var link = Link(
                            rel: "authenticate",
                            href: base + "saml_authenticate?provider=SAML+2.0+Web+SSO&idp_entity_id=" + provider.entityID)
                        link.display_names = [.init(value: provider.name, language: "en")]
                        link.descriptions = [.init(value: "Sign in with your \(provider.name) account", language: "en")]
                        link.information_urls = []
                        link.privacy_statement_urls = []
                        link.logo_urls = []
                        return link
                    })
                case .openIDConnect:
                    Flow(type: flow.type, description: "OpenID Connect", links: [
                        {
                            var link = Link(rel: "authenticate", href: base + "oidc/authenticate?provider=OpenID+Connect")
                            link.display_names = [.init(value: "Lakeside College account", language: "en")]
                            link.descriptions = [.init(value: "Sign in with your college account", language: "en")]
                            link.information_urls = []
                            link.privacy_statement_urls = []
                            link.logo_urls = []
                            return link
                        }(),
                        Link(rel: "logout", href: base + "oidc/logout?provider=OpenID+Connect{&post_logout_redirect_uri}",
                             templated: true),
                    ])
                case .oauthImplicit:
                    Flow(type: flow.type, description: "Sign in on the library's page",
                         links: [Link(rel: "authenticate", href: base + "oauth/authorize" + query, type: "text/html")])
                case .oauthPassword:
                    Flow(type: flow.type, description: "Library card", labels: labels, inputs: inputs, links: [
                        Link(rel: "authenticate", href: base + "oauth/token", type: "application/json"),
                        Link(rel: "refresh", href: base + "oauth/token", type: "application/json"),
                    ])
                case .other:
                    Flow(type: flow.type, description: "Sign in with your library",
                         links: [Link(rel: "authenticate", href: base + "saml_authenticate?provider=demo", type: nil)])
                }
            },
            links: [
                Link(rel: "start", href: base, type: FeedRenderer.acquisitionFeedType),
                Link(rel: "http://opds-spec.org/shelf", href: base + "loans/", type: FeedRenderer.acquisitionFeedType),
                Link(rel: "help", href: "mailto:help@example.org", type: nil),
                Link(rel: DemoProfile.rel, href: base + "patrons/me/", type: DemoProfile.mediaType),
            ]
        )
    }

    /// What the `malformedAuthDocument` switch serves: JSON cut off in the middle.
    static func malformed(base: String) -> String {
        #"{"id": "\#(base)authentication_document", "title": "Shelf Demo Library", "authentication": [{"type": "http:"#
    }
}
