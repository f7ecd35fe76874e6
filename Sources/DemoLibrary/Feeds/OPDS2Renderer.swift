import Foundation

/// Writes the catalog as OPDS 2.0 (`application/opds+json`), from the same titles and with the same circulation
/// as the OPDS 1 feeds, the way Palace's OPDS 2 serializer shapes them (acquisition `properties`, images with
/// their OPDS 1 relations, contributors by role).
struct OPDS2Renderer: Sendable {
    /// The OPDS 1 renderer, whose base URL and library name this one shares.
    let atom: FeedRenderer

    static let feedType = "application/opds+json"
    static let publicationType = "application/opds-publication+json"
    /// Where the OPDS 2 catalog lives, relative to the server root.
    static let path = "opds2/"

    private var base: String { atom.base }
    private var root: String { base + Self.path }

    /// The root: a group of featured publications, a way to every book, and the links a client starts from.
    func rootFeed(featured: [DemoTitle], updated: Date) -> [String: Any] {
        let all = root + "crawlable"
        return [
            "metadata": ["title": atom.libraryName, "modified": DemoDates.iso8601(updated)],
            "links": [
                link(root, rel: "self", type: Self.feedType),
                link(root, rel: "start", type: Self.feedType, title: atom.libraryName),
                link(all, rel: "http://opds-spec.org/crawlable", type: Self.feedType, title: "All Books"),
            ] + commonLinks(),
            "navigation": [link(all, rel: "subsection", type: Self.feedType, title: "All Books")],
            "groups": [[
                "metadata": ["title": "Featured", "numberOfItems": featured.count],
                "links": [link(all, rel: "self", type: Self.feedType, title: "Featured")],
                "publications": featured.map(publication),
            ] as [String: Any]],
        ]
    }

    /// One page of every book, with the page links and a facet group naming the one listing there is.
    func crawlablePage(_ titles: some Collection<DemoTitle>, page: Int, next: Int?, updated: Date) -> [String: Any] {
        let all = root + "crawlable"
        var links = [
            link(all + "?page=\(page)", rel: "self", type: Self.feedType),
            link(root, rel: "start", type: Self.feedType, title: atom.libraryName),
        ]
        if let next { links.append(link(all + "?page=\(next)", rel: "next", type: Self.feedType)) }
        return [
            "metadata": ["title": "All Books", "modified": DemoDates.iso8601(updated), "currentPage": page],
            "links": links + commonLinks(),
            "facets": [[
                "metadata": ["title": "Collection"],
                "links": [link(all, rel: "self", type: Self.feedType, title: "All Books")],
            ] as [String: Any]],
            "publications": titles.map(publication),
        ]
    }

    /// The document as bytes, keys sorted so the same catalog always gives the same bytes (and entity tag).
    static func encode(_ document: [String: Any]) -> Data {
        (try? JSONSerialization.data(
            withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    // MARK: Publications

    /// A publication as the catalog offers it to anyone (loans and holds stay in the OPDS 1 loans feed).
    func publication(_ t: DemoTitle) -> [String: Any] {
        let workPath = base + "works/" + percentEncoded(t.id)
        var metadata: [String: Any] = [
            "identifier": t.id,
            "title": t.title,
            "description": t.summary,
            "language": t.language,
            "publisher": ["name": t.publisher],
            "published": DemoDates.iso8601(t.published),
            "modified": DemoDates.iso8601(t.updated),
            "subject": subjects(t),
            "author": t.authors.map { name in
                ["name": name, "links": [link(base + "contributors/" + percentEncoded(name), rel: "contributor",
                                               type: FeedRenderer.acquisitionFeedType)]] as [String: Any]
            },
        ]
        // A single audio file says what it is by its type, as in the OPDS 1 feed; only a zip needs the `@type`.
        if let file = t.singleFile {
            if file.format == .zip { metadata["@type"] = "http://bib.schema.org/Audiobook" }
        } else {
            metadata["@type"] = t.medium == .audiobook ? "http://bib.schema.org/Audiobook" : "http://schema.org/EBook"
        }
        if let subtitle = t.subtitle { metadata["subtitle"] = subtitle }
        // A plain web server's static catalog (`FeedRenderer.plainFiles`) gives neither.
        let plain = atom.plainFiles && t.singleFile != nil
        if let duration = t.duration, !plain { metadata["duration"] = duration }
        if !t.narrators.isEmpty, !plain { metadata["narrator"] = t.narrators.map { ["name": $0] } }
        if let series = t.series {
            var entry: [String: Any] = [
                "name": series.name,
                "links": [link(atom.seriesHref(series), rel: "series", type: FeedRenderer.acquisitionFeedType)],
            ]
            if let position = series.position { entry["position"] = position }
            metadata["belongsTo"] = ["series": [entry]]
        }
        let cover = t.coverPath.hasPrefix("http") ? t.coverPath : base + t.coverPath
        let links: [[String: Any]] = if let file = t.singleFile {
            // A plain download with no circulation markup at all, as calibre or COPS offer a file.
            [
                link(t.acquisitionHref.map(atom.resolve) ?? base + "files/" + percentEncoded(t.id) + "/" + file.fileName,
                     rel: "http://opds-spec.org/acquisition", type: atom.plainFiles ? "application/octet-stream" : file.format.mediaType),
                link(workPath, rel: "alternate", type: FeedRenderer.entryType),
            ]
        } else {
            [
                acquisition(t, workPath: workPath),
                link(workPath, rel: "alternate", type: FeedRenderer.entryType),
                link(base + "annotations/" + percentEncoded(t.id), rel: "http://www.w3.org/ns/oa#annotationService",
                     type: FeedRenderer.annotationType),
            ] + (t.medium == .audiobook ? [link(base + "progression/" + percentEncoded(t.id),
                                                 rel: "http://opds-spec.org/progression",
                                                 type: "application/opds-progression+json"),
                                            t.id == DemoState.manifestSampleID
                                                ? link(base + "samples/" + percentEncoded(t.id) + "/manifest",
                                                       rel: "http://opds-spec.org/acquisition/sample",
                                                       type: "application/audiobook+json")
                                                : link(base + "samples/" + percentEncoded(t.id),
                                                       rel: "http://opds-spec.org/acquisition/sample", type: "audio/mpeg")] : [])
        }
        return [
            "metadata": metadata,
            "images": [
                link(cover, rel: "http://opds-spec.org/image", type: "image/png"),
                link(cover, rel: "http://opds-spec.org/image/thumbnail", type: "image/png"),
            ],
            "links": links,
        ]
    }

    private func subjects(_ t: DemoTitle) -> [[String: Any]] {
        let genres = "http://librarysimplified.org/terms/genres/Simplified/"
        return t.categories.map { ["scheme": genres, "code": genres + percentEncoded($0), "name": $0] }
            + [["scheme": "http://schema.org/audience", "code": t.audience, "name": t.audience]]
    }

    /// The catalog's acquisition link, with what the OPDS 1 link carries as `properties`.
    private func acquisition(_ t: DemoTitle, workPath: String) -> [String: Any] {
        let pool = t.license
        let contentType = t.medium == .ebook ? "application/epub+zip"
            : t.id == atom.packagedAudiobookID ? "application/audiobook+zip" : "application/audiobook+json"
        let drmType = t.medium == .audiobook
            ? "application/vnd.librarysimplified.bearer-token+json" : "application/vnd.adobe.adept+xml"
        let href = { (path: String) in t.acquisitionHref.map(atom.resolve) ?? workPath + path }
        let copies: [String: Any] = ["total": pool.copiesTotal, "available": pool.copiesAvailable]
        if pool.openAccess {
            var open = link(href("/fulfill/open-access"), rel: "http://opds-spec.org/acquisition/open-access", type: contentType)
            open["properties"] = ["availability": ["state": "available"]]
            return open
        }
        if let price = t.price {
            var buy = link(href("/buy"), rel: "http://opds-spec.org/acquisition/buy", type: contentType)
            buy["properties"] = [
                "price": ["value": Double(price.amount) ?? 0, "currency": price.currency],
                "availability": ["state": "available"], "holds": ["total": 0], "copies": copies,
            ] as [String: Any]
            return buy
        }
        var borrow = link(href("/borrow"), rel: "http://opds-spec.org/acquisition/borrow", type: FeedRenderer.entryType)
        borrow["properties"] = [
            "indirectAcquisition": [["type": drmType, "child": [["type": contentType]]]],
            "availability": ["state": pool.copiesAvailable > 0 ? "available" : "unavailable"],
            "holds": ["total": pool.holdsTotal],
            "copies": copies,
        ] as [String: Any]
        return borrow
    }

    private func commonLinks() -> [[String: Any]] {
        [
            link(base + "loans/", rel: "http://opds-spec.org/shelf", type: FeedRenderer.acquisitionFeedType),
            link(base + "authentication_document", rel: "http://opds-spec.org/auth/document",
                 type: AuthenticationDocument.mediaType),
            link(base + "annotations/", rel: "http://www.w3.org/ns/oa#annotationService", type: FeedRenderer.annotationType),
        ]
    }

    private func link(_ href: String, rel: String, type: String? = nil, title: String? = nil) -> [String: Any] {
        var link: [String: Any] = ["href": href, "rel": rel]
        if let type { link["type"] = type }
        if let title { link["title"] = title }
        return link
    }
}
