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
        var rel: String
        var href: String
        var type: String?
    }

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

    static func make(base: String, libraryName: String, flows: [DemoAuthFlow]) -> AuthenticationDocument {
        let labels = Flow.Labels(login: "Library card", password: "PIN")
        let inputs: [String: Flow.Input] = [
            "login": .init(keyboard: "Default", barcode_format: "Codabar"),
            "password": .init(keyboard: "Number pad", maximum_length: 4),
        ]
        return AuthenticationDocument(
            id: base + "authentication_document",
            title: libraryName,
            description: "A demonstration library served by shelf on this computer.",
            authentication: flows.map { flow in
                switch flow {
                case .basic:
                    Flow(type: flow.type, description: "Library card", labels: labels, inputs: inputs)
                case .basicToken:
                    Flow(type: flow.type, description: "Library card", labels: labels, inputs: inputs,
                         links: [Link(rel: "authenticate", href: base + "patrons/me/token/", type: nil)])
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
