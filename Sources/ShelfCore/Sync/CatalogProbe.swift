import Foundation

/// What one look at a catalog URL found, for `shelf library add`.
public struct CatalogFinding: Codable, Sendable, Equatable {
    /// What the URL serves.
    public enum Kind: String, Codable, Sendable {
        /// Links to other feeds and no titles (calibre, COPS, Kavita roots).
        case navigation
        /// A feed of titles (perhaps with links to other feeds too).
        case acquisition
        /// The server answers 401: what it serves shows only after `shelf login`.
        case signInFirst = "sign-in-first"
    }

    public var url: String
    /// OPDS 1 or 2; nil when the server asked to sign in first.
    public var version: OPDSVersion?
    public var kind: Kind
    public var title: String?
    /// Feeds the document links to as navigation (counted up to `CatalogProbe.maxSections`).
    public var sections = 0
    /// Titles on the first page.
    public var titles = 0
    /// The feed has a next page.
    public var morePages = false
    /// The document links a crawlable feed of the whole collection (Palace).
    public var crawlable = false
    /// The document links a search (OpenSearch or an OPDS 2 template).
    public var search = false
    /// How the library signs patrons in (`HTTP Basic`, `HTTP Digest`, `Authentication for OPDS (basic)`), if it
    /// says.
    public var signIn: String?

    /// Creates a finding of `kind` for `url`; the counts start at zero.
    public init(url: String, kind: Kind, version: OPDSVersion? = nil) {
        self.url = url
        self.kind = kind
        self.version = version
    }

    /// One line for the patron, e.g. `OPDS 1 navigation feed "calibre Library": 4 sections; search: yes;
    /// sign-in: none`.
    public func line(library: String) -> String {
        let login = "run shelf login \(library)"
        if kind == .signInFirst {
            return "the catalog asks to sign in first: \(signIn ?? "a method it does not name") (\(login))"
        }
        let name = "\(version?.rawValue ?? "OPDS") \(kind == .navigation ? "navigation" : "acquisition") feed"
            + (title.map { " \"\($0)\"" } ?? "")
        var parts: [String] = []
        if kind == .navigation {
            parts.append(sections > CatalogProbe.maxSections
                ? "more than \(CatalogProbe.maxSections) sections" : "\(sections) section\(sections == 1 ? "" : "s")")
        } else {
            var first = "\(titles) title\(titles == 1 ? "" : "s") on the first page"
            if morePages { first += ", more pages" }
            if sections > 0 { first += sections > CatalogProbe.maxSections ? ", more than \(CatalogProbe.maxSections) sections" : ", \(sections) section\(sections == 1 ? "" : "s")" }
            parts.append(first)
            parts.append("crawlable feed: \(crawlable ? "yes" : "no")")
        }
        parts.append("search: \(search ? "yes" : "no")")
        parts.append("sign-in: \(signIn ?? "none")")
        return "\(name): " + parts.joined(separator: "; ")
    }
}

/// Why a URL is not a catalog shelf can add.
public enum CatalogProbeError: ShelfFailure, Equatable {
    case html(url: String)
    case notFound(url: String, status: Int)
    case notOPDS(url: String, json: Bool, reason: String)

    public var exitCode: ShelfExit { .notACatalog }

    public var description: String {
        let anyway = "(or add it anyway with --no-check)"
        return switch self {
        case .html(let url):
            "\(Redaction.url(url)) is an HTML page, not an OPDS catalog; look on the library's website for its "
                + "OPDS catalog link \(anyway)"
        case .notFound(let url, let status):
            "\(Redaction.url(url)) answered \(status) \(HTTPStatus.reason(status)): no catalog there; check the URL \(anyway)"
        case .notOPDS(let url, let json, let reason):
            "\(Redaction.url(url)) is \(json ? "JSON" : "a document") but not an OPDS catalog (\(reason)); check the "
                + "URL \(anyway)"
        }
    }
}

/// Fetches a catalog URL once and says what it is: OPDS 1 or 2, navigation or titles, how to sign in, whether
/// it can be searched and crawled; or why it is not a catalog.
public struct CatalogProbe: Sendable {
    private let http: HTTPClient
    private let scratch: URL
    /// Sections counted one by one; a root linking more (a feed of every author) is "more than" this, and its
    /// links beyond are never kept.
    public static let maxSections = 10_000

    /// A probe whose large responses spill to `scratch`.
    public init(http: HTTPClient, scratch: URL) {
        self.http = http
        self.scratch = scratch
    }

    /// Looks at `url`. Network failures (offline, TLS) throw their own `NetworkError`; a 401 is a finding, not a
    /// failure: the catalog is there, behind a sign-in.
    public func look(at url: URL) throws -> CatalogFinding {
        let address = url.absoluteString
        let response = try http.get(url, headers: ["Accept": FeedDocument.accept], spillingTo: scratch)
        defer { if let file = response.bodyFile { try? FileManager.default.removeItem(at: file) } }
        if response.status == 401 {
            var finding = CatalogFinding(url: address, kind: .signInFirst)
            finding.signIn = signIn(challenge: response)
            return finding
        }
        if response.status == 404 || response.status == 410 { throw CatalogProbeError.notFound(url: address, status: response.status) }
        guard (200..<300).contains(response.status) else {
            throw NetworkError.httpStatus(url: address, status: response.status)
        }
        let contentType = response.header("content-type")
        if response.isHTML { throw CatalogProbeError.html(url: address) }
        var titles = 0
        let info: OPDSFeedInfo
        var document = FeedDocument(baseURL: URL(string: response.url) ?? url)
        document.maxNavigation = Self.maxSections + 1
        let json = isJSON(response, contentType: contentType)
        do {
            if let file = response.bodyFile {
                info = try document.parse(file: file, contentType: contentType) { _ in titles += 1 }
            } else {
                info = try document.parse(data: response.body, contentType: contentType) { _ in titles += 1 }
            }
        } catch let error as OPDSParseError {
            if !json, case .malformed = error, looksLikeHTML(response) { throw CatalogProbeError.html(url: address) }
            throw CatalogProbeError.notOPDS(url: address, json: json, reason: Self.reason(error))
        } catch let error as ShelfFailure {
            throw error
        } catch {
            throw CatalogProbeError.notOPDS(url: address, json: json, reason: "\(error)")
        }
        var finding = CatalogFinding(url: address, kind: titles == 0 && !info.navigation.isEmpty ? .navigation : .acquisition,
                                     version: info.version)
        finding.title = info.title
        finding.sections = info.navigation.count
        finding.titles = titles
        finding.morePages = info.next != nil
        finding.crawlable = info.crawlable != nil
        finding.search = info.search != nil
        if let link = info.authDocument, let documentURL = URL(string: link.href) {
            finding.signIn = authenticationForOPDS(documentURL)
        }
        return finding
    }

    /// `HTTP Digest` (with its realm) from `WWW-Authenticate`, or the flows of an Authentication for OPDS document
    /// sent as the 401's body.
    private func signIn(challenge response: HTTPResponse) -> String? {
        let type = response.header("content-type")?.lowercased() ?? ""
        if type.contains("opds-authentication") || type.contains("authentication.v1.0"),
            let document = try? AuthenticationDocument.parse(response.body, url: URL(string: response.url)!)
        {
            return Self.describe(document)
        }
        guard let header = response.header("www-authenticate") else { return nil }
        let challenges = HTTPChallenge.parse(header)
        guard !challenges.isEmpty else { return nil }
        return challenges.map { challenge in
            "HTTP \(challenge.scheme.prefix(1).uppercased() + challenge.scheme.dropFirst().lowercased())"
                + (challenge.realm.map { ", realm \"\($0)\"" } ?? "")
        }.joined(separator: " or ")
    }

    /// The sign-in methods of the library's Authentication for OPDS document (a second, small request).
    private func authenticationForOPDS(_ url: URL) -> String {
        guard let document = try? AuthenticationDocument.fetch(url, http: http) else { return "Authentication for OPDS" }
        return Self.describe(document)
    }

    static func describe(_ document: AuthenticationDocument) -> String {
        let flows = document.flows.map { flow -> String in
            switch flow.type {
            case AuthenticationDocument.basicType: "basic"
            case AuthenticationDocument.basicTokenType: "basic token"
            default:
                switch flow.kind {
                case .browser?: flow.summary + ", in the browser"
                case .passwordGrant?: flow.summary
                default: AuthenticationDocument.displayName(of: flow.type) + ", which shelf cannot use"
                }
            }
        }
        return "Authentication for OPDS" + (flows.isEmpty ? "" : " (\(flows.joined(separator: ", ")))")
    }

    private func isJSON(_ response: HTTPResponse, contentType: String?) -> Bool {
        if let type = contentType?.lowercased(), type.contains("json") { return true }
        let head: Data
        if let file = response.bodyFile, let handle = try? FileHandle(forReadingFrom: file) {
            head = (try? handle.read(upToCount: 64)) ?? Data()
            try? handle.close()
        } else {
            head = response.body.prefix(64)
        }
        let first = head.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// An HTML page served without an HTML media type.
    private func looksLikeHTML(_ response: HTTPResponse) -> Bool { AudioTypes.looksLikeHTML(response.body) }

    private static func reason(_ error: OPDSParseError) -> String {
        switch error {
        case .malformed(let line, let column, let message): "not well-formed at line \(line), column \(column): \(message)"
        case .notAtom(let root): "its root is \(root)"
        case .entryTooLarge(let line, _): "an entry at line \(line) is too large"
        case .unreadable(let reason): reason
        case .notJSON(let reason): "not JSON: \(reason)"
        case .wrongShape(let reason): "JSON that is not an OPDS 2 feed: \(reason)"
        case .authenticationDocument: "it is an Authentication for OPDS document, not a feed"
        case .tooLarge(let limit): "larger than \(limit / 1_048_576) MB"
        case .tooDeep(let limit): "nested deeper than \(limit) levels"
        case .overLimit(let limit, let line): limit.excess(line: line) + " (shelf's limit on \(limit.name))"
        }
    }
}

/// What `shelf library add` stored, and what it found at the URL (nil with `--no-check`).
public struct LibraryAdded: Codable, Sendable {
    public var library: Library
    public var finding: CatalogFinding?
}

extension Store {
    /// Adds a library after one look at its URL (`check`), refusing a URL that is not a catalog; a catalog that
    /// asks to sign in first is added.
    public func addLibrary(
        name: String, url: URL, makeDefault: Bool, crawlDepth: Int?, crawlFeeds: Int?, check: Bool, home: Home,
        http: HTTPConfiguration
    ) throws -> LibraryAdded {
        // A name already taken is refused before any request.
        try requireNewLibraryName(name)
        var finding: CatalogFinding?
        if check {
            try home.prepare()
            let scratch = home.temporary.appendingPathComponent("probe-\(getpid()).xml")
            defer { try? FileManager.default.removeItem(at: scratch) }
            finding = try CatalogProbe(http: HTTPClient(configuration: http), scratch: scratch).look(at: url)
        }
        let library = try addLibrary(
            name: name, url: url, makeDefault: makeDefault, crawlDepth: crawlDepth, crawlFeeds: crawlFeeds)
        return LibraryAdded(library: library, finding: finding)
    }
}
