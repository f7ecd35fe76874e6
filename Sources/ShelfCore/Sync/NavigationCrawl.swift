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
    /// The feed of every title the catalog was read through (`"By Newest" (url)`), when it had one that held every
    /// title the check found; nil when every section was crawled.
    var route: String?
    /// Why a feed of every title was not trusted and every section was crawled instead, in one line.
    var fallback: String?
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

    /// The titles (lower-cased, a leading "by " or "all " dropped) of a navigation root's links to a feed of every
    /// title, best first: calibre's "By Newest" and "By Title", COPS's "All books", and their kind.
    static let completeFeedTitles = [
        "books", "titles", "publications", "everything", "newest", "new", "latest", "latest books",
        "recently added", "recent additions", "title",
    ]
    /// Relations of a link to a feed of every title, best first (`crawlable` itself is read without a check).
    static let completeFeedRelations = ["http://opds-spec.org/sort/new"]
    /// The link of a navigation root that leads to a feed of every title, among the feeds a crawl may follow; nil
    /// when it has none.
    static func completeFeed(of info: OPDSFeedInfo, among links: [String]) -> OPDSLink? {
        let followed = Set(links)
        let candidates = info.navigation.filter { followed.contains($0.href) }
        return candidates.compactMap { link in completeFeedRank(link).map { (link, $0) } }.min { $0.1 < $1.1 }?.0
    }

    /// How good a sign a link gives of leading to a feed of every title (0 best); nil when it gives none.
    static func completeFeedRank(_ link: OPDSLink) -> Int? {
        if let rel = link.rel?.lowercased(), let index = completeFeedRelations.firstIndex(of: rel) { return index }
        guard var title = link.title?.lowercased().trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        for prefix in ["by ", "all "] where title.hasPrefix(prefix) { title.removeFirst(prefix.count) }
        if title == "all" { return completeFeedRelations.count }
        return completeFeedTitles.firstIndex(of: title).map { $0 + completeFeedRelations.count + 1 }
    }

    /// Reads a navigation root's titles by the cheapest complete route. When the root links a feed of every title
    /// (`completeFeed`), that feed is read, page by page, and checked against a sample of the root's other
    /// sections: for up to `CrawlBounds.routeCheckSections` of them, the first page, then one of its links (a different one each
    /// sync), down to a page of titles, in at most `CrawlBounds.routeCheckPages` pages. When every title the sample found is in the
    /// feed, the crawl ends there: a 2,000-book calibre library is 67 pages of 30, not the 400 feeds of its author,
    /// series and tag sections. When a sampled page changed since the last sync, the feed is read whole (no 304) so
    /// the check sees every title it holds; when none did, neither changed since the last sync checked them. A
    /// title the feed lacks means it does not hold the catalog: every section is crawled (`crawl`), and the report
    /// says why. Without such a feed, every section is crawled.
    func crawlNavigation(rootWalk: Walk, channel: FetchChannel) throws -> CrawlReport? {
        guard let info = rootWalk.info, let route = Self.completeFeed(of: info, among: rootWalk.navigation),
            let routeURL = URL(string: route.href)
        else { return try crawl(rootWalk: rootWalk, channel: channel) }
        markRootAliases(rootWalk)
        let name = "\"\(route.title ?? route.href)\" (\(Redaction.url(route.href)))"
        if routeLacked { return try crawlAfterLack(rootWalk: rootWalk, route: routeURL, name: name, channel: channel) }
        // The root's other links to feeds of every title are no sections to check it against.
        let candidates = Set(info.navigation.filter { Self.completeFeedRank($0) != nil }.map(\.href))
        let sections = rootWalk.navigation.filter { !candidates.contains($0) }

        // The sample: pages of titles from the root's other sections.
        var sampled: [String] = []
        var changed = false
        // The feed itself is one of the crawl's feeds: the check takes what the bound leaves, up to its own.
        var budget = min(CrawlBounds.routeCheckPages, bounds.feeds - 1)
        let (_, sampleIDs) = try collecting {
            for (index, section) in sections.prefix(CrawlBounds.routeCheckSections).enumerated() {
                var href = section
                while budget > 0, let url = URL(string: href), visited.withLock({ $0.insert(href).inserted }) {
                    budget -= 1
                    sampled.append(href)
                    log?("checking the feed of every title against \(Redaction.url(href))")
                    guard let page = try fetch(url: url, kind: .catalog, position: 1, judgesStale: false, channel: channel)
                    else { return }
                    if page.entries > 0 || page.navigation.isEmpty {
                        changed = changed || !page.notModified
                        break
                    }
                    let links = page.navigation.filter { link in !visited.withLock { $0.contains(link) } }
                    guard !links.isEmpty else { break }
                    href = links[(sampleSeed + index) % links.count]
                }
            }
        }
        log?("reading the feed of every title, \(name)\(changed ? ", whole, as the sampled sections changed" : "")")
        let (walk, routeIDs) = try collecting(whole: changed, only: sampleIDs) {
            try chain(start: routeURL, kind: .catalog, channel: channel)
        }
        guard let walk else { return nil }
        var report = CrawlReport(
            feeds: 1 + sampled.count, sections: rootWalk.navigation.count, entries: rootWalk.entries + walk.entries)
        let missing = sampleIDs.subtracting(routeIDs).count
        guard missing > 0 else {
            report.route = name
            log?("read every title through \(name): \(walk.pages) page\(walk.pages == 1 ? "" : "s"), and \(sampled.count) to check it")
            return report
        }
        // Not the whole catalog: every section is crawled, the sampled pages again (with their links and pages).
        let fallback = "the feed \(name) lacks \(missing) of the \(sampleIDs.count) titles of the sections checked, so every section was crawled"
        log?(fallback)
        visited.withLock { $0.subtract(sampled) }
        guard var crawled = try crawl(rootWalk: rootWalk, channel: channel) else { return nil }
        crawled.feeds += report.feeds
        crawled.entries += walk.entries
        crawled.fallback = fallback
        return crawled
    }

    /// Every section, after a sync found the feed of every title lacking: the feed first, then the rest, every page
    /// read whole. When the sections hold no title the feed lacks (and the crawl was not cut short), the feed is
    /// whole again and the next sync reads it alone; otherwise the report still says why every section was crawled.
    private func crawlAfterLack(rootWalk: Walk, route: URL, name: String, channel: FetchChannel) throws -> CrawlReport? {
        log?("the feed of every title, \(name), lacked titles at the last sync: crawling every section")
        // Read whole (no 304), so the two sets of ids compared are whole.
        let (read, routeIDs) = try collecting(whole: true) { try chain(start: route, kind: .catalog, channel: channel) }
        guard let walk = read else { return nil }
        let (crawled, sectionIDs) = try collecting(whole: true) { try crawl(rootWalk: rootWalk, channel: channel) }
        guard var report = crawled else { return nil }
        report.feeds += 1
        report.entries += walk.entries
        let missing = sectionIDs.subtracting(routeIDs).count
        if missing == 0 && report.limit == nil && report.skipped.isEmpty {
            log?("the feed \(name) holds every title the sections do again")
            report.route = name
        } else {
            report.fallback = missing > 0
                ? "the feed \(name) lacks \(missing) titles its sections hold, so every section was crawled"
                : "the feed \(name) lacked titles its sections held, so every section was crawled"
        }
        return report
    }

    /// The root under its other names (calibre's `start` adds `?library_id=…`) is a way back, not a feed.
    private func markRootAliases(_ rootWalk: Walk) {
        var aliases = [root.absoluteString]
        for rel in [OPDSVocabulary.relStart, OPDSVocabulary.relSelf] {
            if let href = rootWalk.info?.link(rel)?.href { aliases.append(href) }
        }
        visited.withLock { $0.formUnion(aliases) }
    }

    /// Reads, breadth first, the feeds a navigation root leads to, each with its pages, within `bounds`.
    /// Returns nil when the writer has gone away.
    ///
    /// Memory stays bounded whatever the catalog links: the parser keeps at most `bounds.feeds + 1` links a page,
    /// and no more links wait than feeds may still be read.
    func crawl(rootWalk: Walk, channel: FetchChannel) throws -> CrawlReport? {
        markRootAliases(rootWalk)

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
