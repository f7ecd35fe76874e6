import Foundation

/// What a patron browses: the start page's lanes, each lane's pages with their facets, and search.
extension DemoState {
    /// Works a lane or search page holds: small, so the built-in catalog's lanes run to several pages.
    public static let browsePageSize = 5
    /// Lanes on the start page, and works featured in each.
    static let laneCount = 5
    static let featuredPerLane = 3
    /// Works the start page looks at to pick its lanes: enough for the built-in catalog, cheap for huge ones.
    static let laneSample = 200

    /// The start page: the biggest categories among the first works, as lanes of a few works each.
    func rootFeed(entrypoint: DemoEntryPoint = .all) -> String {
        let sample = (0..<min(catalog.count, Self.laneSample)).map { catalog[$0] }
            .filter { !$0.draft && entrypoint.admits($0) }
        var counts: [String: (count: Int, first: Int)] = [:]
        for (position, title) in sample.enumerated() {
            for category in title.categories {
                counts[category, default: (0, position)].count += 1
            }
        }
        // The most works first; then the category met first, then by name, so the lanes never change order.
        let chosen = counts.sorted { a, b in
            (a.value.count, b.value.first, b.key) > (b.value.count, a.value.first, a.key)
        }.prefix(Self.laneCount).map(\.key)
        let lanes = chosen.map { category in
            DemoLane(title: category, featured: Array(sample.filter { $0.categories.contains(category) }.prefix(Self.featuredPerLane)))
        }
        return renderer.groupsRoot(lanes: lanes, entrypoint: entrypoint, updated: lastStamp)
    }

    /// One page of the lane whose slug is given; nil when no category has that slug or the page is past the end.
    func laneFeed(slug: String, facets: DemoLaneFacets, page: Int) -> String? {
        settle()
        var name: String?
        var titles: [DemoTitle] = []
        for position in 0..<catalog.count {
            let title = catalog[position]
            guard !title.draft, facets.entrypoint.admits(title),
                let category = title.categories.first(where: { DemoLane.slug($0) == slug })
            else { continue }
            name = name ?? category
            if facets.available == .now && !(title.license.openAccess || title.license.copiesAvailable > 0) { continue }
            titles.append(title)
        }
        guard let name else { return nil }
        if facets.order == .author {
            titles.sort { ($0.authors.first ?? "", $0.title) < ($1.authors.first ?? "", $1.title) }
        } else {
            titles.sort { $0.title.localizedStandardCompare($1.title) == .orderedAscending }
        }
        guard let (slice, next) = Self.page(page, of: titles) else { return nil }
        return renderer.laneFeed(lane: name, titles: slice, facets: facets, page: page, next: next, updated: lastStamp)
    }

    /// One page of the works whose title, subtitle, authors or narrators hold every term (ignoring case and
    /// accents); nil when the page is past the end.
    func searchFeed(terms: String, page: Int) -> String? {
        settle()
        let words = terms.split(whereSeparator: \.isWhitespace).map(String.init)
        var titles: [DemoTitle] = []
        for position in 0..<catalog.count {
            let title = catalog[position]
            guard !title.draft else { continue }
            let text = ([title.title, title.subtitle ?? ""] + title.authors + title.narrators).joined(separator: " ")
            if words.allSatisfy({ text.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }) {
                titles.append(title)
            }
        }
        guard let (slice, next) = Self.page(page, of: titles) else { return nil }
        return renderer.searchFeed(terms: terms, titles: slice, page: page, next: next, updated: lastStamp)
    }

    /// The OpenSearch description of the search.
    func openSearchDescription() -> String { renderer.openSearchDescription() }

    /// The works of page `page` (from 1) and the next page's number; page 1 of nothing is an empty page.
    private static func page(_ page: Int, of titles: [DemoTitle]) -> (ArraySlice<DemoTitle>, Int?)? {
        let start = (page - 1) * browsePageSize
        guard page >= 1, start < titles.count || (page == 1 && titles.isEmpty) else { return nil }
        let end = min(titles.count, start + browsePageSize)
        return (titles[start..<end], end < titles.count ? page + 1 : nil)
    }
}
