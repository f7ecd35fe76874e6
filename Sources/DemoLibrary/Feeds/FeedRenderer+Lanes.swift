import Foundation

/// A lane of the demo's groups feed: the titles of one category, a few of them featured on the start page.
struct DemoLane: Sendable {
    /// The category's name, the lane's title.
    var title: String
    var featured: [DemoTitle]

    /// The category as a path segment: `Science Fiction` → `science-fiction`.
    static func slug(_ category: String) -> String {
        category.lowercased().split { !$0.isLetter && !$0.isNumber }.joined(separator: "-")
    }
}

/// Palace's entry points, the "Formats" facets of its start page: everything, ebooks only, audiobooks only.
enum DemoEntryPoint: String, CaseIterable, Sendable {
    case all = "All"
    case book = "Book"
    case audio = "Audio"

    var title: String {
        switch self {
        case .all: "All"
        case .book: "eBooks"
        case .audio: "Audiobooks"
        }
    }

    func admits(_ title: DemoTitle) -> Bool {
        switch self {
        case .all: true
        case .book: title.medium == .ebook
        case .audio: title.medium == .audiobook
        }
    }
}

/// How a lane's feed is sorted and filtered: Palace's "Sort by" and "Availability" facet groups.
struct DemoLaneFacets: Sendable, Equatable {
    enum Order: String, CaseIterable, Sendable {
        case title, author
        var label: String { self == .title ? "Title" : "Author" }
    }

    enum Available: String, CaseIterable, Sendable {
        case now, all
        var label: String { self == .now ? "Available now" : "All" }
    }

    var order: Order = .title
    var available: Available = .all
    var entrypoint: DemoEntryPoint = .all

    /// The query string that selects these facets (and a page, from 2 on).
    func query(page: Int = 1) -> String {
        var items = ["order=\(order.rawValue)", "available=\(available.rawValue)"]
        if entrypoint != .all { items.append("entrypoint=\(entrypoint.rawValue)") }
        if page > 1 { items.append("page=\(page)") }
        return items.joined(separator: "&")
    }
}

/// The Palace documents for browsing: the groups feed at the root, lane feeds with facets, search.
extension FeedRenderer {
    static let openSearchType = "application/opensearchdescription+xml"

    func laneHref(_ lane: String, facets: DemoLaneFacets = DemoLaneFacets(), page: Int = 1) -> String {
        base + "lanes/" + DemoLane.slug(lane) + "?" + facets.query(page: page)
    }

    /// The start page as Palace writes it: lanes of featured works (each entry with its lane's `collection` link),
    /// the entry-point facets, the search description and the crawlable feed of everything.
    func groupsRoot(lanes: [DemoLane], entrypoint: DemoEntryPoint, updated: Date) -> String {
        var out = ""
        openFeed(id: base, title: libraryName, updated: updated, into: &out)
        let facets = DemoLaneFacets(entrypoint: entrypoint)
        for lane in lanes {
            let href = laneHref(lane.title, facets: facets)
            for title in lane.featured { entry(title, context: .catalog, lane: (href, lane.title), into: &out) }
        }
        let own = entrypoint == .all ? base : base + "?entrypoint=\(entrypoint.rawValue)"
        link(href: own, rel: "self", type: Self.acquisitionFeedType, into: &out)
        link(href: base, rel: "start", type: Self.acquisitionFeedType, title: libraryName, into: &out)
        link(href: base + "crawlable", rel: "http://opds-spec.org/crawlable", type: Self.acquisitionFeedType,
             title: "All Books", into: &out)
        link(href: base + "search", rel: "search", type: Self.openSearchType, into: &out)
        for point in DemoEntryPoint.allCases {
            facet(href: point == .all ? base : base + "?entrypoint=\(point.rawValue)", title: point.title,
                  group: "Formats", active: point == entrypoint, into: &out)
        }
        commonFeedLinks(into: &out)
        out += "</feed>\n"
        return out
    }

    /// One page of a lane: its works, then Palace's links (self, start, up, next, search) and its facets.
    func laneFeed(
        lane: String, titles: some Collection<DemoTitle>, facets: DemoLaneFacets, page: Int, next: Int?, updated: Date
    ) -> String {
        var out = ""
        openFeed(id: laneHref(lane), title: lane, updated: updated, into: &out)
        for title in titles { entry(title, context: .catalog, into: &out) }
        link(href: laneHref(lane, facets: facets, page: page), rel: "self", type: Self.acquisitionFeedType, into: &out)
        link(href: base, rel: "start", type: Self.acquisitionFeedType, title: libraryName, into: &out)
        link(href: base, rel: "up", type: Self.acquisitionFeedType, title: libraryName, into: &out)
        if let next {
            link(href: laneHref(lane, facets: facets, page: next), rel: "next", type: Self.acquisitionFeedType, into: &out)
        }
        link(href: base + "search", rel: "search", type: Self.openSearchType, into: &out)
        for order in DemoLaneFacets.Order.allCases {
            var other = facets
            other.order = order
            facet(href: laneHref(lane, facets: other), title: order.label, group: "Sort by",
                  active: order == facets.order, into: &out)
        }
        for available in DemoLaneFacets.Available.allCases {
            var other = facets
            other.available = available
            facet(href: laneHref(lane, facets: other), title: available.label, group: "Availability",
                  active: available == facets.available, into: &out)
        }
        commonFeedLinks(into: &out)
        out += "</feed>\n"
        return out
    }

    /// A page of search results: an acquisition feed, empty when nothing matches (as Palace answers).
    func searchFeed(terms: String, titles: some Collection<DemoTitle>, page: Int, next: Int?, updated: Date) -> String {
        var out = ""
        let own = base + "search?q=" + percentEncoded(terms)
        openFeed(id: own, title: "Search results for \"\(terms)\"", updated: updated, into: &out)
        for title in titles { entry(title, context: .catalog, into: &out) }
        link(href: own + (page > 1 ? "&page=\(page)" : ""), rel: "self", type: Self.acquisitionFeedType, into: &out)
        link(href: base, rel: "start", type: Self.acquisitionFeedType, title: libraryName, into: &out)
        if let next { link(href: own + "&page=\(next)", rel: "next", type: Self.acquisitionFeedType, into: &out) }
        link(href: base + "search", rel: "search", type: Self.openSearchType, into: &out)
        out += "</feed>\n"
        return out
    }

    /// The OpenSearch description `/search` answers without a query, in Palace's form (one OPDS `Url`), with
    /// the optional page parameter OpenSearch allows.
    func openSearchDescription() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<OpenSearchDescription xmlns=\"http://a9.com/-/spec/opensearch/1.1/\">\n"
        out += "  <ShortName>Search</ShortName>\n  <Description>Search "
        appendEscaped(libraryName, to: &out)
        out += "</Description>\n  <Tags>audiobooks ebooks</Tags>\n"
        out += "  <Url type=\"\(Self.acquisitionFeedType)\" template=\""
        appendEscaped(base + "search?q={searchTerms}&page={startPage?}", to: &out)
        out += "\"/>\n</OpenSearchDescription>\n"
        return out
    }

    private func facet(href: String, title: String, group: String, active: Bool, into out: inout String) {
        out += "  <link href=\""
        appendEscaped(href, to: &out)
        out += "\" rel=\"http://opds-spec.org/facet\" title=\""
        appendEscaped(title, to: &out)
        out += "\" opds:facetGroup=\""
        appendEscaped(group, to: &out)
        out += "\"" + (active ? " opds:activeFacet=\"true\"" : "") + "/>\n"
    }
}
