import Foundation

/// Where `shelf browse` goes: a path of items from the catalog's start, or a URL of the library's catalog.
public enum CatalogLocation: Sendable, Equatable {
    /// Item numbers or title prefixes, one per level (`2/1`, `By Authors/A`); empty for the start.
    case path([String])
    case url(String)

    /// Reads what the patron typed: an `http(s)://` URL, else a path whose levels are separated by `/`.
    public init(_ text: String?) {
        let text = text?.trimmingCharacters(in: .whitespaces) ?? ""
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            self = .url(text)
        } else {
            self = .path(text.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
    }
}

/// What `shelf search` found.
public struct SearchResults: Codable, Sendable, Equatable {
    public var library: String
    public var terms: String
    /// The first results page's URL.
    public var url: String
    public var publications: [EditionSummary]
    /// Result pages read.
    public var pages: Int
    /// The results went on past the pages shelf reads (`SearchOptions.maxPages`).
    public var more: Bool
    /// Results left out by `--available`.
    public var unavailable: Int
}

/// Reads the library's own catalog, one document at a time, through the patron's session (so a signed-in
/// patron's credentials go with every request to the library's host), and stores the publications it shows.
public final class CatalogBrowser {
    private let store: Store
    private let library: Library
    private let session: LibrarySession
    private let log: (@Sendable (String) -> Void)?

    /// Result pages `search` follows through `next` links at most.
    public static let maxSearchPages = 10

    /// A browser of `library`'s catalog, signed in as the patron when credentials are stored.
    public init(store: Store, home: Home, library: Library, configuration: HTTPConfiguration) throws {
        self.store = store
        self.library = library
        self.log = configuration.log
        session = try LibrarySession(library: library, credentialStore: CredentialStore(home: home), configuration: configuration)
    }

    // MARK: browse

    /// Reads the page at `location` (its `page`th page, following `next`), and stores its publications.
    public func browse(_ location: CatalogLocation, page: Int = 1) throws -> CatalogPage {
        var document: CatalogDocument
        var path: [String] = []
        switch location {
        case .url(let text):
            guard let url = URL(string: text), url.host != nil, ["http", "https"].contains(url.scheme?.lowercased()) else {
                throw NetworkError.unsupportedURL(text)
            }
            guard isLibraryHost(url) else { throw CatalogError.offHost(url: text, host: try libraryURL.host ?? "") }
            document = try fetch(url)
            path = [url.absoluteString]
        case .path(let segments):
            document = try fetch(libraryURL)
            for segment in segments {
                let item = try Self.item(segment, in: document.items, at: path.joined(separator: "/"))
                path.append(String(item.number))
                document = try fetch(try link(item.href, from: document))
            }
        }
        let at = path.joined(separator: "/")
        var number = 1
        var visited: Set<String> = [document.url.absoluteString]
        while number < page {
            guard let next = document.info.next, let url = try? link(next.href, from: document),
                visited.insert(url.absoluteString).inserted
            else { throw CatalogError.noSuchPage(page: page, pages: number, at: at) }
            document = try fetch(url)
            number += 1
        }
        return try catalogPage(document, path: at, page: number)
    }

    /// The page as shown, its publications stored (in lanes and out of them).
    private func catalogPage(_ document: CatalogDocument, path: String, page: Int) throws -> CatalogPage {
        let items = document.items
        let stored = try store.recordFound(document.entries, in: library, by: .browse)
        var byID: [String: EditionSummary] = [:]
        for (entry, summary) in zip(document.entries, stored) { byID[entry.id] = summary }
        let laneItems = items.filter { $0.kind == .lane }
        let lanes = zip(laneItems, document.lanes).map { item, lane in
            CatalogLane(item: item, publications: lane.entries.compactMap { byID[$0.id] })
        }
        var seen = Set<String>()
        let loose = document.looseEntries.compactMap { entry in seen.insert(entry.id).inserted ? byID[entry.id] : nil }
        return CatalogPage(
            library: library.name, url: document.url.absoluteString, path: path,
            title: document.info.title ?? library.catalogTitle ?? library.name, page: page,
            navigation: items.filter { $0.kind == .navigation }, lanes: lanes, publications: loose,
            facets: items.filter { $0.kind == .facet },
            next: (try? document.info.next.map { try link($0.href, from: document).absoluteString }) ?? nil,
            hasSearch: document.info.search != nil)
    }

    /// The item a path segment names: its number, else the one title it is (or starts with), ignoring case.
    static func item(_ segment: String, in items: [CatalogItem], at path: String) throws(CatalogError) -> CatalogItem {
        if let number = Int(segment) {
            guard number >= 1, number <= items.count else {
                throw .noSuchItem(segment: segment, at: path, count: items.count)
            }
            return items[number - 1]
        }
        let wanted = segment.lowercased()
        let exact = items.filter { $0.title.lowercased() == wanted }
        let matches = exact.isEmpty ? items.filter { $0.title.lowercased().hasPrefix(wanted) } : exact
        guard let only = matches.first else { throw .noSuchItem(segment: segment, at: path, count: items.count) }
        guard matches.count == 1 else {
            throw .ambiguousItem(segment: segment, at: path, matches: matches.map { "\($0.number) \($0.title)" })
        }
        return only
    }

    // MARK: search

    /// Searches the catalog through the start page's search link, follows `next` up to `maxSearchPages`, and stores
    /// the results; `availableOnly` keeps the titles that can be had now.
    public func search(_ terms: String, availableOnly: Bool = false) throws -> SearchResults {
        let root = try fetch(libraryURL)
        guard let searchLink = root.info.search else { throw CatalogError.noSearch(library: library.name) }
        let first = try searchURL(searchLink, from: root, terms: terms)
        var entries: [OPDSEntry] = []
        var seen = Set<String>()
        var next: URL? = first
        var pages = 0
        var visited = Set<String>()
        while let url = next, pages < Self.maxSearchPages, visited.insert(url.absoluteString).inserted {
            // calibre answers a search that matches nothing with 404 "No books found".
            guard let document = try fetch(url, missingIsEmpty: true) else { break }
            pages += 1
            entries += document.entries.filter { seen.insert($0.id).inserted }
            next = document.info.next.flatMap { try? link($0.href, from: document) }
        }
        let found = try store.recordFound(entries, in: library, by: .search)
        let shown = availableOnly ? found.filter(\.isAvailableNow) : found
        return SearchResults(
            library: library.name, terms: terms, url: first.absoluteString, publications: shown, pages: pages,
            more: next != nil && pages == Self.maxSearchPages, unavailable: found.count - shown.count)
    }

    /// The first results page: the link's template filled (an OPDS 2 URI template, or an OpenSearch one written
    /// in the link itself, as calibre does), or the template of the OpenSearch description it points to.
    private func searchURL(_ link: OPDSLink, from root: CatalogDocument, terms: String) throws -> URL {
        if link.templated {
            return try self.link(SearchTemplate.expand(link.href, ["query": terms, "searchTerms": terms]), from: root)
        }
        if link.href.contains("{") {
            return try self.link(SearchTemplate.openSearch(link.href, terms: terms), from: root)
        }
        let descriptionURL = try self.link(link.href, from: root)
        log?("reading the search description \(Redaction.url(descriptionURL.absoluteString))")
        let response = try get(descriptionURL, accept: "application/opensearchdescription+xml, application/xml;q=0.9, */*;q=0.5")
        guard let description = try OpenSearchDescription.parse(response.body, url: response.url) else {
            throw CatalogError.unusableSearch(reason: "its search link leads to neither an OpenSearch description nor a template")
        }
        guard let template = description.feedTemplate else {
            let types = description.templates.map(\.type).filter { !$0.isEmpty }
            throw CatalogError.unusableSearch(
                reason: "its OpenSearch description offers no catalog feed" + (types.isEmpty ? "" : " (only \(types.joined(separator: ", ")))"))
        }
        let filled = SearchTemplate.openSearch(
            template.template, terms: terms, indexOffset: template.indexOffset, pageOffset: template.pageOffset)
        guard let url = URL(string: filled, relativeTo: URL(string: response.url) ?? descriptionURL)?.absoluteURL,
            ["http", "https"].contains(url.scheme?.lowercased())
        else { throw CatalogError.unusableSearch(reason: "its search template gives no usable URL (\(template.template))") }
        return url
    }

    // MARK: fetching

    private var libraryURL: URL {
        get throws {
            guard let url = URL(string: library.url) else { throw NetworkError.unsupportedURL(library.url) }
            return url
        }
    }

    /// Whether `url` is on the library's host: the only catalog a URL given to `browse` may come from.
    private func isLibraryHost(_ url: URL) -> Bool {
        guard let base = URL(string: library.url) else { return false }
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return url.host?.lowercased() == base.host?.lowercased() && port(url) == port(base)
    }

    /// A link of `document`, resolved against the document's own URL.
    private func link(_ href: String, from document: CatalogDocument) throws -> URL {
        guard let url = URL(string: href, relativeTo: document.url)?.absoluteURL, ["http", "https"].contains(url.scheme?.lowercased())
        else { throw NetworkError.unsupportedURL(href) }
        return url
    }

    /// Sends a GET through the patron's session; any status but 2xx (and 404 when `missingIsEmpty`) is an error.
    private func get(_ url: URL, accept: String, missingIsEmpty: Bool = false) throws -> HTTPResponse {
        log?("fetching \(Redaction.url(url.absoluteString))")
        let response = try session.send(url, headers: ["Accept": accept])
        guard (200..<300).contains(response.status) || (missingIsEmpty && response.status == 404) else {
            throw NetworkError.httpStatus(url: Redaction.url(url.absoluteString), status: response.status)
        }
        return response
    }

    /// Reads one catalog document; nil for a 404 when `missingIsEmpty`.
    private func fetch(_ url: URL, missingIsEmpty: Bool) throws -> CatalogDocument? {
        let response = try get(url, accept: FeedDocument.accept, missingIsEmpty: missingIsEmpty)
        if response.status == 404 { return nil }
        let contentType = response.header("content-type")
        if HTTPResponse.isHTML(contentType: contentType) { throw FeedError.html }
        let address = URL(string: response.url) ?? url
        var entries: [OPDSEntry] = []
        do {
            let info = try FeedDocument(baseURL: address).parse(data: response.body, contentType: contentType) {
                entries.append($0)
            }
            return CatalogDocument(url: address, info: info, entries: entries)
        } catch let error as OPDSParseError {
            throw FeedError.parse(error)
        }
    }

    private func fetch(_ url: URL) throws -> CatalogDocument {
        try fetch(url, missingIsEmpty: false)!
    }
}

extension EditionSummary {
    /// Can be had now: free, on loan, ready, a copy to borrow, or not for sale and `available` or `ready` by the
    /// catalog's word.
    public var isAvailableNow: Bool {
        canBeHadNow || (!isPaid && ["available", "ready"].contains(availability?.lowercased() ?? ""))
    }
}
