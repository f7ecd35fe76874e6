import Foundation

/// Finds how a library signs patrons in.
public enum SignIn {
    /// How a library asks for a sign-in.
    public enum Method: Sendable, Equatable {
        /// An Authentication for OPDS document, with its flows.
        case document(AuthenticationDocument)
        /// No document, but a 401 with an HTTP Basic or Digest challenge: a user name and password, for libcurl.
        case http(HTTPChallenge)
    }

    /// How the library signs patrons in: its Authentication for OPDS document (from the link the last sync
    /// stored, else the root feed's link, else the body of a 401 from the root or the loans feed), else the
    /// HTTP Basic or Digest challenge of a 401 from the root or the loans feed.
    public static func method(for library: Library, http: HTTPClient) throws -> Method {
        var candidates: [URL] = []
        if let stored = library.authDocumentURL.flatMap(URL.init(string:)) { candidates.append(stored) }
        if candidates.isEmpty, let root = URL(string: library.url) {
            let response = try http.request(root, headers: ["Accept": FeedDocument.accept])
            if (200..<300).contains(response.status),
                let info = try? OPDSParser(baseURL: root).parse(data: response.body, onEntry: { _ in }),
                let link = info.authDocument.flatMap({ URL(string: $0.href) })
            {
                candidates.append(link)
            } else if let method = try method(in401: response, url: root) {
                return method
            }
        }
        if let url = candidates.first { return .document(try AuthenticationDocument.fetch(url, http: http)) }
        if let shelf = library.shelfURL.flatMap(URL.init(string:)) {
            let response = try http.request(shelf, headers: ["Accept": "application/atom+xml"])
            if let method = try method(in401: response, url: shelf) { return method }
        }
        throw CirculationError.noAuthDocument(library: library.name)
    }

    /// What a 401 says about signing in: the authentication document it carries, else its Basic or Digest
    /// challenge; nil for any other answer.
    private static func method(in401 response: HTTPResponse, url: URL) throws -> Method? {
        guard response.status == 401 else { return nil }
        if let document = try parseIfAuthDocument(response, url: url) { return .document(document) }
        return HTTPChallenge.preferred(in: response.header("www-authenticate")).map(Method.http)
    }

    /// The failure a 401 from the library means when the patron has not signed in: a sign-in is needed, and
    /// the answer says how (an HTTP Basic or Digest challenge, or the authentication document); nil when it
    /// does not say, or the answer is not a 401.
    public static func needed(by response: HTTPResponse, library: String) -> CirculationError? {
        guard response.status == 401 else { return nil }
        if (try? parseIfAuthDocument(response, url: URL(fileURLWithPath: "/"))) != nil {
            return .signInNeeded(library: library, how: "its authentication document")
        }
        guard let challenge = HTTPChallenge.preferred(in: response.header("www-authenticate")) else { return nil }
        return .signInNeeded(library: library, how: challenge.summary)
    }

    /// A 401 may carry the authentication document as its body: typed as one, or as plain JSON (Codex's) that reads
    /// as one with at least one sign-in method.
    private static func parseIfAuthDocument(_ response: HTTPResponse, url: URL) throws -> AuthenticationDocument? {
        let type = response.header("content-type")?.lowercased() ?? ""
        if type.contains("opds-authentication") || type.contains("authentication.v1.0") {
            return try AuthenticationDocument.parse(response.body, url: url)
        }
        guard type.contains("json"), let document = try? AuthenticationDocument.parse(response.body, url: url),
            !document.flows.isEmpty
        else { return nil }
        return document
    }

    /// The flow shelf will use, or why none can be used.
    public static func flow(in document: AuthenticationDocument, library: String) throws(CirculationError)
        -> AuthenticationDocument.Flow
    {
        if let flow = document.preferredFlow { return flow }
        if document.flows.isEmpty {
            throw .authDocumentLacks(library: library, what: "lists no sign-in method")
        }
        throw .unsupportedAuth(library: library, types: document.flows.map(\.type))
    }
}
