import Foundation

/// Link relations and namespaces that shelf understands, matched by URI.
public enum OPDSVocabulary {
    public static let atomNS = "http://www.w3.org/2005/Atom"
    public static let opdsNS = "http://opds-spec.org/2010/catalog"
    public static let dctermsNS = "http://purl.org/dc/terms/"
    public static let schemaNS = "http://schema.org/"
    public static let opfNS = "http://www.idpf.org/2007/opf"
    public static let bibframeNS = "http://bibframe.org/vocab/"
    public static let appNS = "http://www.w3.org/2007/app"
    public static let simplifiedNS = "http://librarysimplified.org/terms/"
    public static let drmNS = "http://librarysimplified.org/terms/drm"
    public static let xmlNS = "http://www.w3.org/XML/1998/namespace"

    public static let relNext = "next"
    public static let relSelf = "self"
    public static let relStart = "start"
    public static let relAlternate = "alternate"
    public static let relRelated = "related"
    public static let relShelf = "http://opds-spec.org/shelf"
    public static let relCrawlable = "http://opds-spec.org/crawlable"
    public static let relAuthDocument = "http://opds-spec.org/auth/document"
    public static let relImage = "http://opds-spec.org/image"
    public static let relThumbnail = "http://opds-spec.org/image/thumbnail"
    public static let relAcquisitionPrefix = "http://opds-spec.org/acquisition"
    public static let relRevoke = "http://librarysimplified.org/terms/rel/revoke"
    public static let relAnnotations = "http://www.w3.org/ns/oa#annotationService"
    public static let relFacet = "http://opds-spec.org/facet"
    public static let relSearch = "search"
    public static let relSubsection = "subsection"
    public static let relCollection = "collection"
    public static let threadNS = "http://purl.org/syndication/thread/1.0"
    public static let odlNS = "http://drafts.opds.io/odl-1.0#"
}

/// The kind of an acquisition link, from its `rel`.
public enum AcquisitionKind: String, Codable, Sendable, CaseIterable {
    /// `http://opds-spec.org/acquisition`: the generic link, used for loans already held.
    case generic = "acquisition"
    /// `…/acquisition/borrow`
    case borrow
    /// `…/acquisition/open-access`
    case openAccess = "open-access"
    /// `…/acquisition/buy`
    case buy
    /// `…/acquisition/sample`
    case sample
    /// `…/acquisition/preview`
    case preview
    /// `…/acquisition/subscribe`
    case subscribe

    /// The kind named by a link relation, or nil when the relation is not an acquisition.
    public init?(rel: String) {
        let prefix = OPDSVocabulary.relAcquisitionPrefix
        if rel == prefix { self = .generic; return }
        guard rel.hasPrefix(prefix + "/") else { return nil }
        switch rel.dropFirst(prefix.count + 1) {
        case "borrow": self = .borrow
        case "open-access": self = .openAccess
        case "buy": self = .buy
        case "sample": self = .sample
        case "preview": self = .preview
        case "subscribe": self = .subscribe
        default: return nil
        }
    }
}

/// An `opds:availability` element.
public struct Availability: Codable, Sendable, Equatable {
    /// `available`, `ready`, `reserved` or `unavailable` (other values are kept as given).
    public var status: String
    public var since: Date?
    public var until: Date?

    /// Creates the value from its parts; omitted parts are absent.
    public init(status: String, since: Date? = nil, until: Date? = nil) {
        self.status = status
        self.since = since
        self.until = until
    }
}

/// An `opds:holds` element.
public struct Holds: Codable, Sendable, Equatable {
    public var total: Int?
    public var position: Int?

    /// Creates the value from its parts; omitted parts are absent.
    public init(total: Int? = nil, position: Int? = nil) {
        self.total = total
        self.position = position
    }
}

/// An `opds:copies` element.
public struct Copies: Codable, Sendable, Equatable {
    public var total: Int?
    public var available: Int?

    /// Creates the value from its parts; omitted parts are absent.
    public init(total: Int? = nil, available: Int? = nil) {
        self.total = total
        self.available = available
    }
}

/// An `opds:price` element.
public struct Price: Codable, Sendable, Equatable {
    public var value: String
    public var currency: String?

    /// Creates the value from its parts; omitted parts are absent.
    public init(value: String, currency: String? = nil) {
        self.value = value
        self.currency = currency
    }
}

/// One node of an `opds:indirectAcquisition` tree.
public struct IndirectAcquisition: Codable, Sendable, Equatable {
    public var type: String
    public var children: [IndirectAcquisition]

    /// Creates the value from its parts; omitted parts are absent.
    public init(type: String, children: [IndirectAcquisition] = []) {
        self.type = type
        self.children = children
    }
}

/// A plain Atom link (or an OPDS 2 link object).
public struct OPDSLink: Codable, Sendable, Equatable {
    /// The link target, resolved against the document's URL when one was given.
    public var href: String
    public var rel: String?
    public var type: String?
    public var title: String?
    /// `opds:facetGroup` (OPDS 1) or the facet's group title (OPDS 2).
    public var facetGroup: String?
    /// `opds:activeFacet="true"`, or the OPDS 2 link is the facet group's `self`.
    public var activeFacet: Bool
    /// `thr:count` (OPDS 1) or `properties.numberOfItems` (OPDS 2): how many items the linked feed holds.
    public var count: Int?
    /// An OPDS 2 `templated` link (`{searchTerms}`, `{?query}`): `href` is a URI template.
    public var templated: Bool

    /// Creates the value from its parts; omitted parts are absent.
    public init(
        href: String, rel: String? = nil, type: String? = nil, title: String? = nil, facetGroup: String? = nil,
        activeFacet: Bool = false, count: Int? = nil, templated: Bool = false
    ) {
        self.href = href
        self.rel = rel
        self.type = type
        self.title = title
        self.facetGroup = facetGroup
        self.activeFacet = activeFacet
        self.count = count
        self.templated = templated
    }
}

/// A `schema:Series` (or OPDS 2 `belongsTo.series`) an entry is part of.
public struct Series: Codable, Sendable, Equatable {
    public var name: String
    /// `schema:position`, as written (`3`, `2.5`).
    public var position: String?
    /// A feed of the series' titles, when the catalog links one.
    public var href: String?

    /// Creates the value from its parts; omitted parts are absent.
    public init(name: String, position: String? = nil, href: String? = nil) {
        self.name = name
        self.position = position
        self.href = href
    }
}

/// An acquisition link with its circulation markup.
public struct Acquisition: Codable, Sendable, Equatable {
    public var kind: AcquisitionKind
    /// The relation as written in the feed.
    public var rel: String
    public var href: String
    public var type: String?
    public var indirect: [IndirectAcquisition]
    public var availability: Availability?
    public var holds: Holds?
    public var copies: Copies?
    public var price: Price?

    /// Creates the value from its parts; omitted parts are absent.
    public init(
        kind: AcquisitionKind, rel: String, href: String, type: String? = nil,
        indirect: [IndirectAcquisition] = [], availability: Availability? = nil,
        holds: Holds? = nil, copies: Copies? = nil, price: Price? = nil
    ) {
        self.kind = kind
        self.rel = rel
        self.href = href
        self.type = type
        self.indirect = indirect
        self.availability = availability
        self.holds = holds
        self.copies = copies
        self.price = price
    }

    /// Every chain of media types from the link's own type down to a leaf of the indirect tree.
    ///
    /// A link without indirect acquisitions has one path holding only its own type.
    public var paths: [[String]] {
        let root = type.map { [$0] } ?? []
        if indirect.isEmpty { return [root] }
        var result: [[String]] = []
        func walk(_ node: IndirectAcquisition, _ prefix: [String]) {
            let path = prefix + [node.type]
            if node.children.isEmpty {
                result.append(path)
            } else {
                for child in node.children { walk(child, path) }
            }
        }
        for node in indirect { walk(node, root) }
        return result
    }
}

/// An author or other contributor.
public struct Contributor: Codable, Sendable, Equatable {
    public var name: String
    /// MARC relator codes from `opf:role` (`aut`, `nrt`, …); empty for a plain `atom:author`.
    public var roles: [String]
    public var sortName: String?
    /// A link to the contributor's works, or their `uri`.
    public var uri: String?

    /// Creates the value from its parts; omitted parts are absent.
    public init(name: String, roles: [String] = [], sortName: String? = nil, uri: String? = nil) {
        self.name = name
        self.roles = roles
        self.sortName = sortName
        self.uri = uri
    }
}

/// An Atom category.
public struct Category: Codable, Sendable, Equatable {
    public var scheme: String?
    public var term: String
    public var label: String?

    /// Creates the value from its parts; omitted parts are absent.
    public init(scheme: String? = nil, term: String, label: String? = nil) {
        self.scheme = scheme
        self.term = term
        self.label = label
    }
}

/// One OPDS entry: a publication with its links and circulation state.
public struct OPDSEntry: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var subtitle: String?
    public var authors: [Contributor]
    /// `atom:contributor` elements (narrators are role `nrt`).
    public var contributors: [Contributor]
    public var summary: String?
    public var content: String?
    public var publisher: String?
    /// `dcterms:issued`, as written (often a bare date or year).
    public var issued: String?
    public var language: String?
    public var categories: [Category]
    /// `bibframe:distribution/@bibframe:ProviderName`.
    public var distributor: String?
    /// `schema:additionalType` on the entry (e.g. `http://bib.schema.org/Audiobook`).
    public var additionalType: String?
    /// `atom:updated`, as written.
    public var updated: String?
    /// `atom:published`, as written.
    public var published: String?
    public var coverURL: String?
    public var thumbnailURL: String?
    public var acquisitions: [Acquisition]
    /// Links that are neither acquisitions nor images nor revoke/annotations (alternate, related, …).
    public var links: [OPDSLink]
    public var revokeURL: String?
    public var annotationsURL: String?
    /// `app:control/app:draft` is `yes`.
    public var isDraft: Bool
    /// `dcterms:duration` (OPDS 1) or `metadata.duration` (OPDS 2), in seconds.
    public var duration: Double?
    /// The series the entry belongs to, with its position in it.
    public var series: Series?
    /// The formats an ODL licence feed licenses the entry in (`odl:license/dcterms:format`, OPDS 2's
    /// `licenses[].metadata.format`), e.g. `application/audiobook+json`.
    public var licenseFormats: [String] = []

    /// Creates the value from its parts; omitted parts are absent.
    public init(
        id: String, title: String, subtitle: String? = nil, authors: [Contributor] = [],
        contributors: [Contributor] = [], summary: String? = nil, content: String? = nil,
        publisher: String? = nil, issued: String? = nil, language: String? = nil,
        categories: [Category] = [], distributor: String? = nil, additionalType: String? = nil,
        updated: String? = nil, published: String? = nil, coverURL: String? = nil,
        thumbnailURL: String? = nil, acquisitions: [Acquisition] = [], links: [OPDSLink] = [],
        revokeURL: String? = nil, annotationsURL: String? = nil, isDraft: Bool = false, duration: Double? = nil,
        series: Series? = nil
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.authors = authors
        self.contributors = contributors
        self.summary = summary
        self.content = content
        self.publisher = publisher
        self.issued = issued
        self.language = language
        self.categories = categories
        self.distributor = distributor
        self.additionalType = additionalType
        self.updated = updated
        self.published = published
        self.coverURL = coverURL
        self.thumbnailURL = thumbnailURL
        self.acquisitions = acquisitions
        self.links = links
        self.revokeURL = revokeURL
        self.annotationsURL = annotationsURL
        self.isDraft = isDraft
        self.duration = duration
        self.series = series
    }

    /// Contributors whose role is narrator (`nrt`).
    public var narrators: [Contributor] { contributors.filter { $0.roles.contains("nrt") } }

    /// True when the entry describes an audiobook (by `schema:additionalType` or an audiobook media type).
    public var isAudiobook: Bool {
        if let type = additionalType?.lowercased(), type.hasSuffix("/audiobook") { return true }
        return acquisitions.contains { acq in
            acq.paths.contains { path in path.contains { $0.containsIgnoringASCIICase("audiobook") } }
        }
    }

    /// The availability given on the entry's acquisition links (the first one that has any).
    public var availability: Availability? { acquisitions.lazy.compactMap(\.availability).first }
    /// The holds queue given on the entry's acquisition links.
    public var holds: Holds? { acquisitions.lazy.compactMap(\.holds).first }
    /// The copies given on the entry's acquisition links.
    public var copies: Copies? { acquisitions.lazy.compactMap(\.copies).first }
    /// True when the entry has a `buy` acquisition or a price.
    public var isPaid: Bool { acquisitions.contains { $0.kind == .buy || $0.price != nil } }
}

/// Which OPDS a document was written in.
public enum OPDSVersion: String, Codable, Sendable, Equatable {
    /// OPDS 1.2: Atom XML.
    case opds1 = "OPDS 1"
    /// OPDS 2.0: JSON (`application/opds+json`).
    case opds2 = "OPDS 2"
}

/// Feed-level metadata, known once the whole document has been read.
public struct OPDSFeedInfo: Codable, Sendable, Equatable {
    public var id: String?
    public var title: String?
    public var updated: String?
    /// The feed's own links (`next`, `search`, `start`, facets, the shelf, …).
    public var links: [OPDSLink]
    /// How many entries (publications) were handed to the caller.
    public var entryCount: Int
    /// Problems that did not stop the parse (an entry without id, …), one line each.
    public var warnings: [String]
    /// Links to other feeds, in document order: OPDS 1 navigation entries (an entry without acquisitions whose
    /// link leads to another catalog feed: its title is the entry's) and the OPDS 2 `navigation` collection.
    /// These are never handed to `onEntry`.
    public var navigation: [OPDSLink]
    public var version: OPDSVersion

    /// Creates the value from its parts; omitted parts are absent.
    public init(
        id: String? = nil, title: String? = nil, updated: String? = nil, links: [OPDSLink] = [],
        entryCount: Int = 0, warnings: [String] = [], navigation: [OPDSLink] = [], version: OPDSVersion = .opds1
    ) {
        self.id = id
        self.title = title
        self.updated = updated
        self.links = links
        self.entryCount = entryCount
        self.warnings = warnings
        self.navigation = navigation
        self.version = version
    }

    /// A navigation feed: links to other feeds and no publications.
    public var isNavigation: Bool { entryCount == 0 && !navigation.isEmpty }
    /// Facet links (`http://opds-spec.org/facet`), in document order, with their groups.
    public var facets: [OPDSLink] { links.filter { $0.rel == OPDSVocabulary.relFacet } }
    /// The search link: an OpenSearch description (OPDS 1) or a templated OPDS 2 link.
    public var search: OPDSLink? { link(OPDSVocabulary.relSearch) }

    /// The first link with this relation.
    public func link(_ rel: String) -> OPDSLink? { links.first { $0.rel == rel } }
    /// The next page of the feed (`rel="next"`).
    public var next: OPDSLink? { link(OPDSVocabulary.relNext) }
    /// The patron's loans and holds (`http://opds-spec.org/shelf`).
    public var shelf: OPDSLink? { link(OPDSVocabulary.relShelf) }
    /// The complete, unfaceted listing (`http://opds-spec.org/crawlable`).
    public var crawlable: OPDSLink? { link(OPDSVocabulary.relCrawlable) }
    /// The library's authentication document (`http://opds-spec.org/auth/document`).
    public var authDocument: OPDSLink? { link(OPDSVocabulary.relAuthDocument) }
}

extension OPDSLink {
    private enum CodingKeys: String, CodingKey {
        case href, rel, type, title, facetGroup, activeFacet, count, templated
    }

    /// Reads a link stored before facets, counts and templates were kept: those parts are absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            href: try container.decode(String.self, forKey: .href),
            rel: try container.decodeIfPresent(String.self, forKey: .rel),
            type: try container.decodeIfPresent(String.self, forKey: .type),
            title: try container.decodeIfPresent(String.self, forKey: .title),
            facetGroup: try container.decodeIfPresent(String.self, forKey: .facetGroup),
            activeFacet: try container.decodeIfPresent(Bool.self, forKey: .activeFacet) ?? false,
            count: try container.decodeIfPresent(Int.self, forKey: .count),
            templated: try container.decodeIfPresent(Bool.self, forKey: .templated) ?? false)
    }
}
