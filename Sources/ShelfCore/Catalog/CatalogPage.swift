import Foundation

/// Something on a catalog page that leads to another feed: a navigation link, a lane, or a facet.
///
/// Items are numbered from 1 in the order a page shows them (navigation links, then lanes, then facets); the
/// numbers are what `shelf browse` paths are made of.
public struct CatalogItem: Codable, Sendable, Equatable {
    /// What the item is on its page.
    public enum Kind: String, Codable, Sendable {
        /// A navigation link (an OPDS 1 navigation entry, an OPDS 2 `navigation` link).
        case navigation
        /// A lane of a groups feed: the publications sharing one `collection` link.
        case lane
        /// A facet (`http://opds-spec.org/facet`): the same feed sorted or filtered another way.
        case facet
    }

    public var number: Int
    public var kind: Kind
    public var title: String
    /// The feed it leads to.
    public var href: String
    /// How many items the linked feed holds (`thr:count`, `numberOfItems`), when the catalog says.
    public var count: Int?
    /// The facet's group (`opds:facetGroup`).
    public var group: String?
    /// The facet is the one this page is showing (`opds:activeFacet`).
    public var active: Bool

    /// Creates the value from its parts; omitted parts are absent.
    public init(number: Int, kind: Kind, title: String, href: String, count: Int? = nil, group: String? = nil,
                active: Bool = false) {
        self.number = number
        self.kind = kind
        self.title = title
        self.href = href
        self.count = count
        self.group = group
        self.active = active
    }
}

/// A lane of a groups feed (Palace's "Fiction", "New Releases"…): its item, and the few publications shown in it.
public struct CatalogLane: Codable, Sendable, Equatable {
    public var item: CatalogItem
    public var publications: [EditionSummary]
}

/// One catalog page as `shelf browse` shows it.
public struct CatalogPage: Codable, Sendable, Equatable {
    public var library: String
    /// The page's URL (after redirects).
    public var url: String
    /// The path of numbers that leads here from the catalog's start (`2/1`); empty for the start.
    public var path: String
    public var title: String
    /// Which page of the feed this is (`--page`), from 1.
    public var page: Int
    public var navigation: [CatalogItem]
    public var lanes: [CatalogLane]
    /// The publications not in any lane (an acquisition feed's books).
    public var publications: [EditionSummary]
    public var facets: [CatalogItem]
    /// The next page's URL, when there are more pages.
    public var next: String?
    /// Whether the page links a search (`shelf search` uses the start page's).
    public var hasSearch: Bool

    /// Every item, in number order.
    public var items: [CatalogItem] { navigation + lanes.map(\.item) + facets }
}

/// A catalog document as read: where it came from, its feed-level links and its publications.
struct CatalogDocument {
    var url: URL
    var info: OPDSFeedInfo
    var entries: [OPDSEntry]

    /// The page's items, numbered: navigation links, then lanes (in order of first appearance), then facets.
    var items: [CatalogItem] {
        var items: [CatalogItem] = []
        func add(_ kind: CatalogItem.Kind, _ link: OPDSLink, title: String?) {
            items.append(CatalogItem(
                number: items.count + 1, kind: kind, title: title ?? link.title ?? link.href, href: link.href,
                count: link.count, group: link.facetGroup, active: link.activeFacet))
        }
        for link in info.navigation { add(.navigation, link, title: link.title) }
        for lane in lanes { add(.lane, lane.link, title: lane.link.title) }
        for link in info.facets { add(.facet, link, title: link.title) }
        return items
    }

    /// The lanes of a groups feed: the entries grouped by their `collection` link, in order of first appearance.
    var lanes: [(link: OPDSLink, entries: [OPDSEntry])] {
        var lanes: [(link: OPDSLink, entries: [OPDSEntry])] = []
        var index: [String: Int] = [:]
        for entry in entries {
            guard let link = Self.collection(of: entry) else { continue }
            if let position = index[link.href] {
                lanes[position].entries.append(entry)
            } else {
                index[link.href] = lanes.count
                lanes.append((link, [entry]))
            }
        }
        return lanes
    }

    /// The publications that are in no lane.
    var looseEntries: [OPDSEntry] { entries.filter { Self.collection(of: $0) == nil } }

    /// The entry's lane: its `collection` link (Palace groups feeds, and the OPDS 2 groups as read).
    static func collection(of entry: OPDSEntry) -> OPDSLink? {
        entry.links.first { $0.rel == OPDSVocabulary.relCollection && !$0.href.isEmpty }
    }
}
