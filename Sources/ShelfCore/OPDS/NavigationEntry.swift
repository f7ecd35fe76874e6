import Foundation

/// Tells a navigation entry (a way to another feed: "By Authors", "New arrivals") from a publication.
///
/// OPDS 1.2 puts both in `atom:entry`. A navigation entry offers no acquisition and describes no book (no
/// author, cover, type, revoke or annotation link), and one of its links leads to a catalog feed: a
/// `subsection`, `start`, sort/featured/crawlable relation, a link typed as an OPDS feed, or an untyped link
/// without a relation (calibre, COPS and Kavita write all three kinds).
public enum NavigationEntry {
    /// Relations that lead to another catalog feed.
    static let feedRelations: Set<String> = [
        OPDSVocabulary.relSubsection, OPDSVocabulary.relStart, OPDSVocabulary.relCrawlable,
        "http://opds-spec.org/sort/new", "http://opds-spec.org/sort/popular", "http://opds-spec.org/featured",
        "http://opds-spec.org/recommended", "http://opds-spec.org/shelf", "http://opds-spec.org/subscriptions",
    ]

    /// The entry as a link to the feed it leads to (titled with the entry's title), or nil for a publication.
    public static func link(of entry: OPDSEntry) -> OPDSLink? {
        guard entry.acquisitions.isEmpty, entry.authors.isEmpty, entry.additionalType == nil, entry.coverURL == nil,
            entry.thumbnailURL == nil, entry.revokeURL == nil, entry.annotationsURL == nil
        else { return nil }
        let best = entry.links.enumerated().compactMap { offset, link -> (Int, Int, OPDSLink)? in
            rank(link).map { ($0, offset, link) }
        }.min { ($0.0, $0.1) < ($1.0, $1.1) }
        guard var link = best?.2 else { return nil }
        if !entry.title.isEmpty { link.title = entry.title }
        return link
    }

    /// How plainly a link leads to a feed (lower is plainer), or nil when it does not.
    static func rank(_ link: OPDSLink) -> Int? {
        let type = link.type?.lowercased()
        // An entry document, an HTML page or a file is not a feed.
        if let type, type.contains("type=entry") || !(isFeedType(type)) { return nil }
        switch link.rel {
        case OPDSVocabulary.relSubsection?: return 0
        case let rel? where feedRelations.contains(rel): return 1
        case nil: return type == nil ? 3 : 2
        case let rel? where rel == OPDSVocabulary.relAlternate || rel == OPDSVocabulary.relRelated: return nil
        case _? where type != nil: return 2
        default: return nil
        }
    }

    /// Media types a catalog feed is served as.
    static func isFeedType(_ type: String) -> Bool {
        type.hasPrefix("application/atom+xml") || type.hasPrefix("application/opds+json")
            || type.hasPrefix("application/json") || type.hasPrefix("application/xml") || type.hasPrefix("text/xml")
    }
}
