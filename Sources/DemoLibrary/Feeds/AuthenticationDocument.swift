/// The library's Authentication for OPDS 1.0 document, with one basic-auth flow.
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
        var labels: Labels
        var inputs: [String: Input]
    }

    var id: String
    var title: String
    var description: String
    var authentication: [Flow]
    var links: [Link]

    static func basic(base: String, libraryName: String) -> AuthenticationDocument {
        AuthenticationDocument(
            id: base + "authentication_document",
            title: libraryName,
            description: "A demonstration library served by shelf on this computer.",
            authentication: [
                Flow(
                    type: "http://opds-spec.org/auth/basic",
                    description: "Library Barcode",
                    labels: .init(login: "Barcode", password: "PIN"),
                    inputs: [
                        "login": .init(keyboard: "Default", barcode_format: "Codabar"),
                        "password": .init(keyboard: "Number pad", maximum_length: 4),
                    ]
                ),
            ],
            links: [
                Link(rel: "start", href: base, type: FeedRenderer.acquisitionFeedType),
                Link(rel: "http://opds-spec.org/shelf", href: base + "loans/", type: FeedRenderer.acquisitionFeedType),
                Link(rel: "help", href: "mailto:help@example.org", type: nil),
            ]
        )
    }
}
