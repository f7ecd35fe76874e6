import Foundation

/// One library of a library registry's catalogs feed (Palace's library registry: `/libraries`, `/search?q=`, and
/// `/?_location=LAT,LON` for the libraries near a place), with the sign-in methods its Authentication document lists
/// once `LibraryRegistry.describeSignIn` has read it.
public struct RegistryLibrary: Codable, Sendable, Equatable {
    /// The registry's id (`urn:uuid:…`).
    public var id: String
    public var name: String
    public var description: String?
    /// `schema:areaServed`, e.g. "New York, NY".
    public var areaServed: String?
    /// How far it is from the place asked about ("14 km."), as the registry says.
    public var distance: String?
    /// The OPDS catalog (`http://opds-spec.org/catalog`).
    public var catalogURL: String?
    /// The Authentication for OPDS document (found by its type, or `http://opds-spec.org/auth/document`).
    public var authenticationURL: String?
    /// The library's web site (`alternate`, HTML).
    public var homePage: String?
    /// Where patrons ask for help (`help`: a web page or `mailto:`).
    public var help: String?
    /// The sign-in methods its Authentication document lists, by name ("library card and PIN", "SAML (2 identity
    /// providers)"); nil until read, empty when it needs none.
    public var signIn: [String]?
    /// Why the methods could not be read, when they could not.
    public var signInProblem: String?
    /// Whether shelf can use one of them (or none is needed).
    public var signInUsable: Bool?
}

/// Why asking a library registry failed.
public enum RegistryError: ShelfFailure, Equatable {
    /// The registry could not be reached.
    case unreachable(url: String, reason: String)
    /// It answered, but with an error or something that is not a list of libraries.
    case badAnswer(url: String, reason: String)
    /// `--from-registry N` names no library of the last `shelf library find`.
    case noSuchResult(String)

    public var exitCode: ShelfExit {
        switch self {
        case .unreachable: .offline
        case .badAnswer: .registryFailed
        case .noSuchResult: .notFound
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let url, let reason):
            "the library registry \(url) could not be reached (\(reason)); try again later, or give another with --registry URL"
        case .badAnswer(let url, let reason):
            "the library registry \(url) did not answer with libraries: \(reason); check the registry's URL (--registry, `shelf library registry`)"
        case .noSuchResult(let what):
            "no library \(what) in the last `shelf library find`; run it again and use a number or id it lists"
        }
    }
}

/// Asks a library registry for libraries, and each found library's Authentication document for how it signs in.
public struct LibraryRegistry: Sendable {
    /// The registry the Palace apps use.
    public static let defaultURL = URL(string: "https://registry.palaceproject.io/libraries")!
    /// Where `shelf library registry URL` keeps another registry (the positions database's `setting` table).
    public static let setting = "registry.url"
    /// The registry's feed type, and the profile of a registry directory.
    static let accept = "application/opds+json, application/json;q=0.9"

    /// The registry's list of all libraries (`…/libraries`).
    public let url: URL
    let http: HTTPClient

    public init(url: URL, http: HTTPClient) {
        self.url = url
        self.http = http
    }

    /// The registry's root: where `/search` and the nearby list (`/`) live, `/libraries` (or `/libraries/qa`, whose
    /// searches are `/qa/search`) taken off.
    var root: (base: URL, qa: Bool) {
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        var qa = false
        if path.hasSuffix("/libraries/qa") {
            path.removeLast("/libraries/qa".count)
            qa = true
        } else if path.hasSuffix("/libraries") {
            path.removeLast("/libraries".count)
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.path = path
        components.query = nil
        return (components.url!, qa)
    }

    /// The libraries matching `name` (the registry's search: names, places, postcodes, descriptions), near `near`
    /// (`LAT,LON` for the registry's nearby list, or a place name searched for), or all of them.
    public func find(name: String?, near: String?) throws -> [RegistryLibrary] {
        let (base, qa) = root
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        var query: [URLQueryItem] = []
        let location = near.flatMap(Self.coordinates)
        let terms = [name, location == nil ? near : nil].compactMap { $0?.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if !terms.isEmpty {
            components.path += qa ? "/qa/search" : "/search"
            query.append(URLQueryItem(name: "q", value: terms.joined(separator: " ")))
        } else if location != nil {
            components.path += qa ? "/qa" : "/"
        } else {
            return try fetch(url)
        }
        if let location { query.append(URLQueryItem(name: "_location", value: location)) }
        components.queryItems = query
        return try fetch(components.url!)
    }

    /// The library with this registry id (`urn:uuid:…`, or the UUID alone), through the registry's `/library/{uuid}`.
    public func library(id: String) throws -> RegistryLibrary {
        let urn = id.hasPrefix("urn:uuid:") ? id : "urn:uuid:" + id
        let (base, _) = root
        let address = base.appendingPathComponent("library").appendingPathComponent(urn)
        guard let library = try fetch(address).first(where: { $0.id == urn }) ?? nil else {
            throw RegistryError.badAnswer(url: Redaction.url(address.absoluteString), reason: "it lists no library \(urn)")
        }
        return library
    }

    /// `40.7, -73.9` → `40.7,-73.9`; nil when the text is not a latitude and a longitude.
    static func coordinates(_ text: String) -> String? {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
              abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        return "\(parts[0]),\(parts[1])"
    }

    private func fetch(_ address: URL) throws -> [RegistryLibrary] {
        let shown = Redaction.url(address.absoluteString)
        let response: HTTPResponse
        do {
            response = try http.request(address, headers: ["Accept": Self.accept], limit: InputLimit.documentBytes.value * 16)
        } catch {
            throw RegistryError.unreachable(url: shown, reason: error.description)
        }
        guard (200..<300).contains(response.status) else {
            throw RegistryError.badAnswer(url: shown, reason: "it answered \(response.status)")
        }
        return try Self.parse(response.body, url: URL(string: response.url) ?? address)
    }

    /// The libraries of a registry's catalogs feed, as `opds.py` renders it (and as the registry serves it: an
    /// authentication link with or without its `rel`, times with or without `+0000`).
    public static func parse(_ data: Data, url: URL) throws -> [RegistryLibrary] {
        let shown = Redaction.url(url.absoluteString)
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            let what = AudioTypes.looksLikeHTML(data) ? "an HTML page" : "not JSON"
            throw RegistryError.badAnswer(url: shown, reason: "its answer is \(what), not a registry's list of libraries")
        }
        let root = JSONNode(foundation: object)
        guard root.isObject, root["catalogs"].isArray || root["catalogs"].isPresent == false && root["metadata"].isObject else {
            throw RegistryError.badAnswer(url: shown, reason: "its answer is JSON but not a registry's list of libraries (no catalogs)")
        }
        let resolver = LinkResolver(baseURL: url)
        return root["catalogs"].list.compactMap { catalog -> RegistryLibrary? in
            let metadata = catalog["metadata"]
            guard let id = metadata["id"].string, let name = metadata["title"].text else { return nil }
            var library = RegistryLibrary(id: id, name: name)
            library.description = metadata["description"].text.map(PlainText.fromHTML)
            library.areaServed = metadata["schema:areaServed"].text
            library.distance = metadata["distance"].string ?? metadata["schema:distance"].string
            for link in catalog["links"].list {
                guard let href = link["href"].string else { continue }
                let rel = link["rel"].string
                let type = link["type"].string.map(AudioTypes.bare)
                let resolved = resolver.resolve(href)
                switch (rel, type) {
                case ("http://opds-spec.org/catalog", _): library.catalogURL = library.catalogURL ?? resolved
                case ("http://opds-spec.org/auth/document", _), (_, AuthenticationDocument.mediaType):
                    library.authenticationURL = library.authenticationURL ?? resolved
                case ("alternate", "text/html"): library.homePage = library.homePage ?? resolved
                case ("help", _): library.help = library.help ?? href
                default: break
                }
            }
            return library
        }
    }

    /// Reads each library's Authentication document and names its sign-in methods (at most `limit` libraries;
    /// the rest are left unread).
    public func describeSignIn(_ libraries: [RegistryLibrary], limit: Int = 25) -> [RegistryLibrary] {
        libraries.enumerated().map { index, library in
            guard index < limit else { return library }
            var library = library
            guard let address = library.authenticationURL.flatMap(URL.init(string:)) else {
                library.signIn = []
                library.signInUsable = true
                library.signInProblem = "the registry links no Authentication document"
                return library
            }
            do {
                let document = try AuthenticationDocument.fetch(address, http: http)
                library.signIn = document.flows.map(\.summary)
                library.signInUsable = document.flows.isEmpty || document.flows.contains(where: \.isSupported)
            } catch CirculationError.authDocumentUnavailable(_, let status) {
                library.signInProblem = "its Authentication document answered \(status)"
            } catch {
                library.signInProblem = "its Authentication document could not be read (\(error))"
            }
            return library
        }
    }
}
