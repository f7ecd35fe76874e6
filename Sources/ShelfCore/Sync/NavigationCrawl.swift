import Foundation

/// Which bound stopped a crawl of a navigation catalog.
public enum CrawlLimit: String, Codable, Sendable, Equatable {
    /// A feed at the deepest level read linked feeds deeper still.
    case depth
    /// The number of feeds read reached its bound while links waited.
    case feeds
}

/// What crawling a navigation root found.
struct CrawlReport: Sendable, Equatable {
    /// The feeds read, the root not counted.
    var feeds = 0
    /// The feeds the root links to that a crawl follows.
    var sections = 0
    /// Entries on every page read, the root's included (a title listed by two feeds counted twice).
    var entries = 0
    /// The bound that stopped the crawl before every linked feed was read; nil when none did.
    var limit: CrawlLimit?
    /// Feeds skipped because they answered an error status or HTML, each as `url: reason`.
    var skipped: [String] = []
    /// Feeds whose `next` links stopped being followed because their pages no longer brought titles not seen this
    /// sync (endless pagination), each as `feed page N (url)`.
    var stalled: [String] = []
}

extension FeedFetcher {
    /// Relations a crawl never follows: browsing aids (facets, search, groups' lanes), the way back (`up`,
    /// `start`, `self`, other pages of the same feed), the patron's own feeds (read with credentials apart), and
    /// links that are not feeds of titles.
    static let skippedRelations: Set<String> = [
        OPDSVocabulary.relFacet, OPDSVocabulary.relSearch, OPDSVocabulary.relSelf, OPDSVocabulary.relStart, "up",
        "first", "last", "previous", "prev", OPDSVocabulary.relShelf, OPDSVocabulary.relCollection,
        OPDSVocabulary.relAlternate, OPDSVocabulary.relRelated, OPDSVocabulary.relAuthDocument,
        "http://opds-spec.org/subscriptions", OPDSVocabulary.relAnnotations,
    ]

    /// The feeds a page's navigation leads to that a crawl may follow: on the root's scheme, host and port, not
    /// templated, typed as a feed when typed, without their fragment, each once, in document order; never the
    /// page's own `start`, `self` or `up` (calibre's "Library: lib" entry is its `start`).
    func crawlLinks(_ info: OPDSFeedInfo) -> [String] {
        let origin = Self.origin(of: URLComponents(url: root, resolvingAgainstBaseURL: true))
        var seen = Set([OPDSVocabulary.relStart, OPDSVocabulary.relSelf, "up"].compactMap { info.link($0)?.href })
        var links: [String] = []
        for link in info.navigation where !link.templated {
            if let rel = link.rel?.lowercased(), Self.skippedRelations.contains(rel) { continue }
            if let type = link.type?.lowercased(), !NavigationEntry.isFeedType(type) { continue }
            guard var components = URLComponents(string: link.href), origin != nil,
                Self.origin(of: components) == origin
            else { continue }
            components.fragment = nil
            guard let href = components.url?.absoluteString, seen.insert(href).inserted else { continue }
            links.append(href)
        }
        return links
    }

    /// `scheme://host:port`, lower-cased, the port spelt out; nil for a URL that is not http(s).
    /// Whether a failed feed of a crawl is skipped rather than failing the sync: it answered a 4xx or 5xx status
    /// (after the retries a 5xx gets) or HTML, before any of its pages was handed on. A server that does not
    /// answer at all, a sign-in wanted or a malformed document still fail the sync.
    static func skipsFeed(_ error: SyncError) -> Bool {
        switch error {
        case .page(_, _, _, let reason), .gaveUp(_, _, _, _, _, let reason):
            if case FeedError.html? = reason as? FeedError { return true }
            if case NetworkError.httpStatus(_, let status)? = reason as? NetworkError { return (400..<600).contains(status) }
            return false
        default:
            return false
        }
    }

    private static func reason(_ error: SyncError) -> String {
        switch error {
        case .page(_, _, _, let reason), .gaveUp(_, _, _, _, _, let reason):
            if case NetworkError.httpStatus(_, let status)? = reason as? NetworkError { return "it answered \(status)" }
            return "it answered an HTML page, not a feed"
        default:
            return error.description
        }
    }

    static func origin(of components: URLComponents?) -> String? {
        guard let components, let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        return "\(scheme)://\(host):\(components.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// Reads, breadth first, the feeds a navigation root leads to, each with its pages, within `bounds`.
    /// Returns nil when the writer has gone away.
    ///
    /// Memory stays bounded whatever the catalog links: the parser keeps at most `bounds.feeds + 1` links a page,
    /// and no more links wait than feeds may still be read.
    func crawl(rootWalk: Walk, channel: FetchChannel) throws -> CrawlReport? {
        // The root under its other names (calibre's `start` adds `?library_id=…`) is a way back, not a feed.
        var aliases = [root.absoluteString]
        for rel in [OPDSVocabulary.relStart, OPDSVocabulary.relSelf] {
            if let href = rootWalk.info?.link(rel)?.href { aliases.append(href) }
        }
        visited.withLock { $0.formUnion(aliases) }

        var report = CrawlReport(sections: rootWalk.navigation.count, entries: rootWalk.entries)
        var waiting: [(href: String, depth: Int)] = []
        var head = 0
        var queued: Set<String> = []

        func offer(_ links: [String], depth: Int) {
            for href in links {
                if queued.contains(href) || visited.withLock({ $0.contains(href) }) { continue }
                guard depth <= bounds.depth else {
                    report.limit = report.limit ?? .depth
                    continue
                }
                guard report.feeds + (waiting.count - head) < bounds.feeds else {
                    report.limit = .feeds
                    return
                }
                queued.insert(href)
                waiting.append((href, depth))
            }
        }

        offer(rootWalk.navigation, depth: 1)
        while head < waiting.count {
            let (href, depth) = waiting[head]
            head += 1
            if head >= 256 {
                waiting.removeFirst(head)
                head = 0
            }
            // Another feed may have reached it as one of its pages meanwhile.
            guard let url = URL(string: href), !visited.withLock({ $0.contains(href) }) else { continue }
            report.feeds += 1
            log?("crawling feed \(report.feeds) (at most \(bounds.feeds)), \(depth) link\(depth == 1 ? "" : "s") from the root: \(Redaction.url(href))")
            let walk: Walk
            do {
                guard let read = try chain(start: url, kind: .catalog, channel: channel, crawling: true) else { return nil }
                walk = read
            } catch let error as SyncError where Self.skipsFeed(error) {
                // One dead section of a real server (a disabled feature, a 404) must not stop the rest: its titles
                // are kept and nothing is removed this sync.
                log?("skipping \(Redaction.url(href)): \(error)")
                report.skipped.append("\(Redaction.url(href)): \(Self.reason(error))")
                continue
            }
            report.entries += walk.entries
            offer(walk.navigation, depth: depth + 1)
        }
        if let limit = report.limit {
            log?("the crawl stopped at its \(limit == .depth ? "depth bound (\(bounds.depth))" : "bound of \(bounds.feeds) feeds")")
        }
        return report
    }
}
