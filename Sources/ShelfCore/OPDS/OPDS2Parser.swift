import Foundation

/// Reads OPDS 2.0 (`application/opds+json`) feeds and publications into the model the OPDS 1 parser fills.
///
/// JSON has no streaming reader in Foundation, so the document is held whole, bounded: one larger than
/// `maxDocumentBytes` or nested deeper than `maxDepth` is refused before it is parsed. Publications are handed to
/// `onEntry` in document order, those of `groups` each with a `collection` link to its group (as Palace's OPDS 1
/// groups feeds carry them); `navigation` (and each group's) becomes the feed's navigation links, `facets` its
/// facet links with their group title.
public struct OPDS2Parser: Sendable {
    /// The document's own URL; relative links are resolved against it.
    public var baseURL: URL?
    /// The largest document read, in bytes.
    public var maxDocumentBytes: Int
    /// The deepest nesting of arrays and objects read.
    public var maxDepth: Int
    /// The most navigation links kept in `OPDSFeedInfo.navigation`, as `OPDSParser.maxNavigation`: a feed that
    /// links hundreds of thousands of others costs no more than the crawl can follow.
    public var maxNavigation = Int.max
    /// The most publications one page may hold before the parse fails with `overLimit`, as `OPDSParser.maxEntries`.
    public var maxEntries = InputLimit.entriesPerPage.value

    /// The default bounds: 32 MB (a Palace page of 100 publications is about 300 KB) and 64 levels (a real feed
    /// nests about 12 deep).
    public static let defaultMaxDocumentBytes = InputLimit.jsonBytes.value
    public static let defaultMaxDepth = InputLimit.jsonDepth.value

    /// A parser resolving relative links against `baseURL`, with the given bounds.
    public init(
        baseURL: URL? = nil, maxDocumentBytes: Int = Self.defaultMaxDocumentBytes, maxDepth: Int = Self.defaultMaxDepth
    ) {
        self.baseURL = baseURL
        self.maxDocumentBytes = maxDocumentBytes
        self.maxDepth = maxDepth
    }

    /// Reads a feed, or a single publication (handed to `onEntry` as the only entry).
    public func parse(data: Data, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        let root = try document(data)
        var reader = OPDS2Reader(resolver: LinkResolver(baseURL: baseURL), maxNavigation: maxNavigation)
        reader.maxEntries = maxEntries
        try reader.read(root, onEntry: onEntry)
        return reader.info
    }

    /// Reads a document held in a file, refusing one above the size limit before reading it.
    public func parse(file: URL, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        if size > maxDocumentBytes { throw OPDSParseError.tooLarge(limit: maxDocumentBytes) }
        let data: Data
        do { data = try Data(contentsOf: file) } catch { throw OPDSParseError.unreadable(error.localizedDescription) }
        return try parse(data: data, onEntry: onEntry)
    }

    /// Checks the bounds and parses the JSON; a UTF-8 byte-order mark is skipped.
    func document(_ data: Data) throws -> JSONNode {
        if data.count > maxDocumentBytes { throw OPDSParseError.tooLarge(limit: maxDocumentBytes) }
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        let depth = body.withUnsafeBytes { JSONDepth.maximum(of: $0, stoppingAbove: maxDepth) }
        if depth > maxDepth { throw OPDSParseError.tooDeep(limit: maxDepth) }
        // Read straight into native values; what that reader declines, Foundation reads (or says what is wrong).
        if let tape = body.withUnsafeBytes({ raw in try? JSONTape.read(raw) }) { return JSONNode(tape) }
        do {
            return JSONNode(foundation: try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]))
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "it does not parse"
            let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            let starts = first == UInt8(ascii: "<") ? "; it starts with '<', like an HTML or XML page" : ""
            throw OPDSParseError.notJSON(reason: Self.sentence(reason) + starts)
        }
    }

    /// Foundation's messages end with a full stop and may start with a capital; ours are one lower-case clause.
    static func sentence(_ text: String) -> String {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first else { return "it does not parse" }
        return first.lowercased() + text.dropFirst()
    }
}

/// One pass over a parsed OPDS 2 document.
struct OPDS2Reader {
    let resolver: LinkResolver
    let maxNavigation: Int
    var info = OPDSFeedInfo(version: .opds2)
    private var publicationNumber = 0
    var maxEntries = InputLimit.entriesPerPage.value

    init(resolver: LinkResolver, maxNavigation: Int = Int.max) {
        self.resolver = resolver
        self.maxNavigation = maxNavigation
    }

    private mutating func addNavigation(_ link: OPDSLink) {
        if info.navigation.count < maxNavigation { info.navigation.append(link) }
    }

    /// The collections that make an object a feed.
    static let feedCollections = ["navigation", "publications", "groups", "facets"]

    mutating func read(_ root: JSONNode, onEntry: (OPDSEntry) throws -> Void) throws {
        guard root.isObject else {
            throw OPDSParseError.wrongShape(reason: root.isArray ? "the document is a list, not an object" : "the document is not an object")
        }
        if root["authentication"].isArray { throw OPDSParseError.authenticationDocument }
        let isFeed = Self.feedCollections.contains { root[$0].isPresent }
        guard isFeed || root["metadata"].isObject else {
            throw OPDSParseError.wrongShape(reason: "no metadata, links, navigation or publications")
        }
        info.title = root["metadata"]["title"].text
        info.updated = root["metadata"]["modified"].string
        info.id = root["metadata"]["identifier"].string
        for link in try links(root["links"], in: "links") {
            info.links += link.opdsLinks(resolver: resolver)
        }
        guard isFeed else {
            // A single publication (`application/opds-publication+json`), as a borrow answers with.
            if root["readingOrder"].isPresent && !root["links"].list.contains(where: { Self.isAcquisition($0) }) {
                throw OPDSParseError.wrongShape(reason: "it is a publication manifest, not a catalog")
            }
            info.links = []
            info.title = nil
            info.id = nil
            info.updated = nil
            try publication(root, collection: nil, onEntry: onEntry)
            return
        }
        for link in try links(root["navigation"], in: "navigation") {
            addNavigation(link.navigationLink(resolver: resolver))
        }
        for facetGroup in try list(root["facets"], in: "facets") {
            let title = facetGroup["metadata"]["title"].text
            for link in try links(facetGroup["links"], in: "facets") {
                info.links.append(link.facetLink(group: title, resolver: resolver))
            }
        }
        for publication in try list(root["publications"], in: "publications") {
            try self.publication(publication, collection: nil, onEntry: onEntry)
        }
        for group in try list(root["groups"], in: "groups") {
            let title = group["metadata"]["title"].text
            let groupLinks = try links(group["links"], in: "groups")
            let own = groupLinks.first { $0.rels.contains(OPDSVocabulary.relSelf) } ?? groupLinks.first
            let collection = own.map {
                OPDSLink(
                    href: resolver.resolve($0.href), rel: OPDSVocabulary.relCollection, title: title,
                    count: group["metadata"]["numberOfItems"].int)
            }
            for link in try links(group["navigation"], in: "groups") {
                addNavigation(link.navigationLink(resolver: resolver))
            }
            for publication in try list(group["publications"], in: "groups") {
                try self.publication(publication, collection: collection, onEntry: onEntry)
            }
        }
    }

    /// Reads one publication and hands it over, or warns and skips it when it has nothing to identify it by.
    private mutating func publication(
        _ node: JSONNode, collection: OPDSLink?, onEntry: (OPDSEntry) throws -> Void
    ) throws {
        publicationNumber += 1
        if publicationNumber > maxEntries { throw OPDSParseError.overLimit(.entriesPerPage, line: nil) }
        guard node.isObject else {
            info.warnings.append("publication \(publicationNumber) is not an object; skipped")
            return
        }
        let publication = OPDS2Publication(node: node, resolver: resolver)
        var entry = publication.entry()
        if entry.id.isEmpty {
            let title = entry.title.isEmpty ? "untitled" : "\"\(entry.title)\""
            info.warnings.append("publication \(publicationNumber) (\(title)) has no identifier or self link; skipped")
            return
        }
        if entry.title.isEmpty { info.warnings.append("publication \(publicationNumber) (\(entry.id)) has no title") }
        if let collection { entry.links.append(collection) }
        info.entryCount += 1
        try onEntry(entry)
    }

    /// The elements of a collection that must be a list when present.
    private func list(_ node: JSONNode, in name: String) throws -> [JSONNode] {
        guard node.isPresent else { return [] }
        guard node.isArray else { throw OPDSParseError.wrongShape(reason: "\(name) is not a list") }
        return node.list
    }

    /// The link objects of a collection; entries without an `href` are left out.
    private func links(_ node: JSONNode, in name: String) throws -> [OPDS2Link] {
        try list(node, in: name).compactMap(OPDS2Link.init)
    }

    static func isAcquisition(_ node: JSONNode) -> Bool {
        OPDS2Link(node)?.rels.contains { AcquisitionKind(rel: $0) != nil } ?? false
    }
}

/// An OPDS 2 Link Object: `href`, one relation or several, `type`, `title`, `templated` and `properties`.
struct OPDS2Link {
    var href: String
    var rels: [String]
    var type: String?
    var title: String?
    var templated: Bool
    var properties: JSONNode
    var height: Int?

    init?(_ node: JSONNode) {
        guard let href = node["href"].string else { return nil }
        self.href = href
        rels = node["rel"].list.compactMap(\.string)
        type = node["type"].string
        title = node["title"].text
        templated = node["templated"].bool
        properties = node["properties"]
        height = node["height"].int
    }

    /// The href resolved against the document's URL (a template's expressions kept as written).
    func resolved(_ resolver: LinkResolver) -> String {
        templated ? resolver.resolveTemplate(href) : resolver.resolve(href)
    }

    /// `properties.numberOfItems`: how many items the linked feed holds.
    var count: Int? { properties["numberOfItems"].int }

    /// One model link per relation (so `next` is found whatever else the link is), or one without a relation.
    func opdsLinks(resolver: LinkResolver) -> [OPDSLink] {
        let href = resolved(resolver)
        let activeSort = properties["http://palaceproject.io/terms/properties/active-sort"].bool
        return (rels.isEmpty ? [nil] : rels.map(Optional.some)).map { rel in
            OPDSLink(
                href: href, rel: rel, type: type, title: title, activeFacet: activeSort, count: count,
                templated: templated)
        }
    }

    /// A `navigation` link: a way to another feed, titled.
    func navigationLink(resolver: LinkResolver) -> OPDSLink {
        OPDSLink(href: resolved(resolver), rel: rels.first, type: type, title: title, count: count, templated: templated)
    }

    /// A link of a facet group; the one whose relation is `self` is the active facet.
    func facetLink(group: String?, resolver: LinkResolver) -> OPDSLink {
        OPDSLink(
            href: resolved(resolver), rel: OPDSVocabulary.relFacet, type: type, title: title, facetGroup: group,
            activeFacet: rels.contains(OPDSVocabulary.relSelf), count: count, templated: templated)
    }
}
