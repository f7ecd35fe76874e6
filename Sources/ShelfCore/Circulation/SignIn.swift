import Foundation

/// Finds how a library signs patrons in.
public enum SignIn {
    /// The library's Authentication for OPDS document: from the link the last sync stored, else the root
    /// feed's link, else the body of the 401 the loans feed answers without credentials.
    public static func document(for library: Library, http: HTTPClient) throws -> AuthenticationDocument {
        var candidates: [URL] = []
        if let stored = library.authDocumentURL.flatMap(URL.init(string:)) { candidates.append(stored) }
        if candidates.isEmpty, let root = URL(string: library.url) {
            let response = try http.request(root, headers: ["Accept": "application/atom+xml"])
            if (200..<300).contains(response.status),
                let info = try? OPDSParser(baseURL: root).parse(data: response.body, onEntry: { _ in }),
                let link = info.authDocument.flatMap({ URL(string: $0.href) })
            {
                candidates.append(link)
            } else if response.status == 401, let document = try? parseIfAuthDocument(response, url: root) {
                return document
            }
        }
        if let url = candidates.first {
            let response = try http.request(url, headers: ["Accept": "\(AuthenticationDocument.mediaType), application/json"])
            guard (200..<300).contains(response.status) else {
                throw NetworkError.httpStatus(url: url.absoluteString, status: response.status)
            }
            return try AuthenticationDocument.parse(response.body, url: URL(string: response.url) ?? url)
        }
        if let shelf = library.shelfURL.flatMap(URL.init(string:)) {
            let response = try http.request(shelf, headers: ["Accept": "application/atom+xml"])
            if response.status == 401, let document = try parseIfAuthDocument(response, url: shelf) {
                return document
            }
        }
        throw CirculationError.noAuthDocument(library: library.name)
    }

    /// A 401 may carry the authentication document as its body.
    private static func parseIfAuthDocument(_ response: HTTPResponse, url: URL) throws -> AuthenticationDocument? {
        let type = response.header("content-type")?.lowercased() ?? ""
        guard type.contains("opds-authentication") || type.contains("authentication.v1.0") else { return nil }
        return try AuthenticationDocument.parse(response.body, url: url)
    }

    /// The flow shelf will use, or why none can be used.
    public static func flow(in document: AuthenticationDocument, library: String) throws(CirculationError)
        -> AuthenticationDocument.Flow
    {
        if let flow = document.preferredFlow { return flow }
        if document.flows.isEmpty {
            throw .malformedAuthDocument(url: library, reason: "it lists no sign-in method")
        }
        throw .unsupportedAuth(library: library, types: document.flows.map(\.type))
    }
}
