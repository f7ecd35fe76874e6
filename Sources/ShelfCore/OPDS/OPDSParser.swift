import Foundation

/// Streaming OPDS 1.2 reader on libxml2's xmlTextReader.
///
/// Entries are handed over one at a time as each one ends, so a feed of any length is read in constant
/// memory. Namespaces are matched by URI, never by prefix. No DTD, external entity or network resource is
/// ever loaded, and entity references are left unexpanded. Text is trimmed; escaped HTML (`type="html"`)
/// is kept as given, while XHTML content (`type="xhtml"`) is reduced to its text.
public struct OPDSParser: Sendable {
    /// The document's own URL; relative links are resolved against it.
    public var baseURL: URL?
    /// The most text one entry may hold before the parse fails with `entryTooLarge`.
    public var maxEntryBytes: Int
    /// The most navigation links kept in `OPDSFeedInfo.navigation`; later ones are dropped, so a feed linking
    /// hundreds of thousands of other feeds is read in bounded memory by a caller that follows only a few.
    public var maxNavigation = Int.max
    /// The most entries one page may hold (navigation entries included) before the parse fails with `overLimit`.
    public var maxEntries = InputLimit.entriesPerPage.value

    /// A parser resolving relative links against `baseURL` and refusing entries above `maxEntryBytes`.
    public init(baseURL: URL? = nil, maxEntryBytes: Int = 8 << 20) {
        self.baseURL = baseURL
        self.maxEntryBytes = maxEntryBytes
    }

    /// Reads a feed (or a single-entry document) from a file, handing each entry to `onEntry` as it ends.
    public func parse(file: URL, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        guard file.isFileURL else { throw OPDSParseError.unreadable("\(file) is not a file URL") }
        let reader = try XMLReader(path: file.path)
        return try OPDSDocumentReader(reader: reader, parser: self).read(onEntry: onEntry)
    }

    /// Reads a feed (or a single-entry document) held in memory.
    public func parse(data: Data, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        try XMLReader.withReader(data: data, url: baseURL?.absoluteString) { reader in
            try OPDSDocumentReader(reader: reader, parser: self).read(onEntry: onEntry)
        }
    }

    /// Reads the one entry a borrow, revoke or entry-URL response holds (the first, if it is a feed).
    ///
    /// A feed without any usable entry, or an entry without an id, fails with `notAtom`.
    public func parseEntry(data: Data) throws -> OPDSEntry {
        try XMLReader.withReader(data: data, url: baseURL?.absoluteString) { reader in
            let document = OPDSDocumentReader(reader: reader, parser: self)
            var first: OPDSEntry?
            _ = try document.read { entry in
                if first == nil { first = entry }
            }
            if let first { return first }
            throw OPDSParseError.notAtom(root: document.rootIsFeed ? "a feed with no entry" : "an entry without an id")
        }
    }
}

/// Element and attribute names the parser looks for, interned once per reader.
struct Vocabulary {
    let atom, opds, dcterms, schema, opf, bibframe, app, simplified: XMLName
    let feed, entry, id, title, updated, published, link, author, contributor, name, uri: XMLName
    let summary, content, category: XMLName
    let href, rel, type, term, scheme, label: XMLName
    let alternativeHeadline, additionalType, publisher, issued, language, distribution, providerName: XMLName
    let indirectAcquisition, availability, holds, copies, price: XMLName
    let status, since, until, total, position, available, currencyCode: XMLName
    let role, sortName, control, draft: XMLName
    let thread, facetGroup, activeFacet, count: XMLName
    let odl, tlink, license, format, duration, series, seriesType: XMLName

    init(_ reader: XMLReader) {
        let n = reader.intern
        atom = n(OPDSVocabulary.atomNS)
        opds = n(OPDSVocabulary.opdsNS)
        dcterms = n(OPDSVocabulary.dctermsNS)
        schema = n(OPDSVocabulary.schemaNS)
        opf = n(OPDSVocabulary.opfNS)
        bibframe = n(OPDSVocabulary.bibframeNS)
        app = n(OPDSVocabulary.appNS)
        simplified = n(OPDSVocabulary.simplifiedNS)
        feed = n("feed")
        entry = n("entry")
        id = n("id")
        title = n("title")
        updated = n("updated")
        published = n("published")
        link = n("link")
        author = n("author")
        contributor = n("contributor")
        name = n("name")
        uri = n("uri")
        summary = n("summary")
        content = n("content")
        category = n("category")
        href = n("href")
        rel = n("rel")
        type = n("type")
        term = n("term")
        scheme = n("scheme")
        label = n("label")
        alternativeHeadline = n("alternativeHeadline")
        additionalType = n("additionalType")
        publisher = n("publisher")
        issued = n("issued")
        language = n("language")
        distribution = n("distribution")
        providerName = n("ProviderName")
        indirectAcquisition = n("indirectAcquisition")
        availability = n("availability")
        holds = n("holds")
        copies = n("copies")
        price = n("price")
        status = n("status")
        since = n("since")
        until = n("until")
        total = n("total")
        position = n("position")
        available = n("available")
        currencyCode = n("currencycode")
        role = n("role")
        sortName = n("sort_name")
        control = n("control")
        draft = n("draft")
        thread = n(OPDSVocabulary.threadNS)
        facetGroup = n("facetGroup")
        activeFacet = n("activeFacet")
        count = n("count")
        odl = n(OPDSVocabulary.odlNS)
        tlink = n("tlink")
        license = n("license")
        format = n("format")
        duration = n("duration")
        series = n("series")
        seriesType = n("Series")
    }
}

/// Where an entry link goes in the model, decided from its `rel`.
enum LinkRole {
    case acquisition(AcquisitionKind)
    case cover, thumbnail, revoke, annotations, other

    private static let borrow = OPDSVocabulary.relAcquisitionPrefix + "/borrow"
    private static let openAccess = OPDSVocabulary.relAcquisitionPrefix + "/open-access"

    /// Compares against the common relations first: `AcquisitionKind(rel:)` builds strings on every call,
    /// which shows at tens of thousands of entries per second.
    init(rel: String?) {
        guard let rel else {
            self = .other
            return
        }
        switch rel {
        case Self.borrow: self = .acquisition(.borrow)
        case Self.openAccess: self = .acquisition(.openAccess)
        case OPDSVocabulary.relAcquisitionPrefix: self = .acquisition(.generic)
        case OPDSVocabulary.relImage, "http://opds-spec.org/cover", "x-stanza-cover-image": self = .cover
        case OPDSVocabulary.relThumbnail, "http://opds-spec.org/thumbnail", "x-stanza-cover-image-thumbnail":
            self = .thumbnail
        case OPDSVocabulary.relRevoke: self = .revoke
        case OPDSVocabulary.relAnnotations: self = .annotations
        default:
            if rel.hasPrefix(OPDSVocabulary.relAcquisitionPrefix), let kind = AcquisitionKind(rel: rel) {
                self = .acquisition(kind)
            } else {
                self = .other
            }
        }
    }
}

/// The attributes of an Atom link.
struct LinkAttributes {
    var href: String?
    var rel: String?
    var type: String?
    var title: String?
    /// `opds:facetGroup`, `opds:activeFacet` and `thr:count`, read on feed-level links only.
    var facetGroup: String?
    var activeFacet = false
    var count: Int?
}

/// One pass over one document: owns the reader and the state of the entry being read.
final class OPDSDocumentReader {
    let reader: XMLReader
    let names: Vocabulary
    let baseURL: URL?
    let maxEntryBytes: Int
    let maxNavigation: Int
    // Unchecked exclusivity: these are touched for every element, and a single-threaded reader cannot
    // overlap accesses; the dynamic checks cost several percent of the parse.
    @exclusivity(unchecked) var info = OPDSFeedInfo()
    /// Text bytes the current entry may still take.
    @exclusivity(unchecked) var budget = 0
    @exclusivity(unchecked) var entryLine = 0
    /// Entry elements met so far, navigation entries and those without an id included.
    @exclusivity(unchecked) var entries = 0
    let maxEntries: Int
    /// Whether the root element was a feed rather than a single entry.
    private(set) var rootIsFeed = false

    init(reader: XMLReader, parser: OPDSParser) {
        self.reader = reader
        self.names = Vocabulary(reader)
        self.baseURL = parser.baseURL
        self.maxEntryBytes = parser.maxEntryBytes
        self.maxNavigation = parser.maxNavigation
        self.maxEntries = parser.maxEntries
    }

    func read(onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        var foundRoot = false
        while try reader.read() {
            if reader.kind == .element {
                foundRoot = true
                break
            }
        }
        guard foundRoot else { throw OPDSParseError.notAtom(root: "a document with no root element") }
        reader.rememberRootNamespaces()
        let namespace = reader.namespaceURI
        let local = reader.localName
        if namespace == names.atom && local == names.feed {
            rootIsFeed = true
            try readFeed(onEntry: onEntry)
        } else if namespace == names.atom && local == names.entry {
            if let entry = try readEntry() {
                info.entryCount += 1
                try onEntry(entry)
            }
        } else {
            let ns = reader.namespaceURIString.map { "{\($0)}" } ?? ""
            throw OPDSParseError.notAtom(root: "<\(ns)\(reader.localNameString)>")
        }
        // Reading on to the end catches content after the root element, which makes the document malformed.
        while try reader.read() {}
        info.warnings.append(contentsOf: reader.diagnostics)
        return info
    }

    func readFeed(onEntry: (OPDSEntry) throws -> Void) throws {
        try forEachChild { namespace, local in
            guard namespace == names.atom else { return try reader.skipElement() }
            switch local {
            case names.entry:
                entries += 1
                if entries > maxEntries { throw OPDSParseError.overLimit(.entriesPerPage, line: reader.line) }
                guard let entry = try readEntry() else { return }
                if let navigation = NavigationEntry.link(of: entry) {
                    if info.navigation.count < maxNavigation { info.navigation.append(navigation) }
                } else {
                    info.entryCount += 1
                    try onEntry(entry)
                }
            case names.id: info.id = try feedText()
            case names.title: info.title = try feedText()
            case names.updated: info.updated = try feedText()
            case names.link:
                let attributes = linkAttributes(feedLevel: true)
                try reader.skipElement()
                if let href = attributes.href {
                    info.links.append(
                        OPDSLink(
                            href: resolve(href), rel: attributes.rel, type: attributes.type,
                            title: attributes.title, facetGroup: attributes.facetGroup,
                            activeFacet: attributes.activeFacet, count: attributes.count))
                }
            default: try reader.skipElement()
            }
        }
    }

    func feedText() throws -> String {
        guard let text = try reader.readText(maxBytes: maxEntryBytes) else {
            throw OPDSParseError.entryTooLarge(line: reader.line, limit: maxEntryBytes)
        }
        return text
    }

    /// Calls `body` for each child element of the current element; `body` must consume the child.
    @inline(__always)
    func forEachChild(_ body: (_ namespace: XMLName, _ local: XMLName) throws -> Void) throws {
        if reader.isEmptyElement { return }
        let depth = reader.depth
        while try reader.read() {
            switch reader.kind {
            case .element: try body(reader.namespaceURI, reader.localName)
            case .endElement: if reader.depth == depth { return }
            default: break
            }
        }
    }

    // MARK: Entries

    /// Reads the entry the reader is on; nil (with a warning) when it has no id.
    func readEntry() throws -> OPDSEntry? {
        entryLine = reader.line
        budget = maxEntryBytes
        let startOffset = reader.bytesConsumed
        do {
            return try readEntryBody()
        } catch OPDSParseError.malformed(let line, let column, let message) {
            // libxml2 refuses a single text node above 10 MB with its own error; when the entry has already
            // run past our limit, that error is really this entry being too large.
            if reader.bytesConsumed - startOffset > maxEntryBytes {
                throw OPDSParseError.entryTooLarge(line: entryLine, limit: maxEntryBytes)
            }
            throw OPDSParseError.malformed(line: line, column: column, message: message)
        }
    }

    func readEntryBody() throws -> OPDSEntry? {
        var entry = OPDSEntry(id: "", title: "")
        reader.forEachAttribute { attribute in
            if attribute.name == names.additionalType && attribute.namespace == names.schema {
                entry.additionalType = attribute.value
            }
        }
        try forEachChild { namespace, local in
            try readEntryChild(namespace, local, into: &entry)
            // Attribute values are charged without a check; checking after each child bounds what is held.
            try spend(0)
        }
        if entry.id.isEmpty {
            let title = entry.title.isEmpty ? "untitled" : "\"\(entry.title)\""
            info.warnings.append("entry at line \(entryLine) (\(title)) has no id; skipped")
            return nil
        }
        return entry
    }

    func readEntryChild(_ namespace: XMLName, _ local: XMLName, into entry: inout OPDSEntry) throws {
        switch namespace {
        case names.atom:
            switch local {
            case names.id: entry.id = try text()
            case names.title: entry.title = try text()
            case names.summary: entry.summary = try text()
            case names.content: entry.content = try text()
            case names.updated: entry.updated = try text()
            case names.published: entry.published = try text()
            case names.link: try readEntryLink(into: &entry)
            // A person without a name (`<author/>`, `<name></name>`) says nothing; it is left out.
            case names.author: if let person = try readPerson().named { entry.authors.append(person) }
            case names.contributor: if let person = try readPerson().named { entry.contributors.append(person) }
            case names.category:
                if let category = categoryAttributes() { entry.categories.append(category) }
                try reader.skipElement()
            default: try reader.skipElement()
            }
        case names.dcterms:
            switch local {
            case names.publisher: entry.publisher = try text()
            case names.issued: entry.issued = try text()
            case names.language: entry.language = try text()
            case names.duration: entry.duration = OPDSDuration.parse(try text())
            default: try reader.skipElement()
            }
        case names.schema where local == names.alternativeHeadline:
            entry.subtitle = try text()
        case names.schema where local == names.series || local == names.seriesType:
            entry.series = try readSeries() ?? entry.series
        // ODL's templated link (`odl:tlink`) is an acquisition like any other, with its availability.
        case names.odl where local == names.tlink:
            try readEntryLink(into: &entry)
        // An ODL licence feed's entry says what it is licensed as (`odl:license/dcterms:format`).
        case names.odl where local == names.license:
            try forEachChild { namespace, local in
                if namespace == names.dcterms && local == names.format {
                    entry.licenseFormats.append(try text())
                } else {
                    try reader.skipElement()
                }
            }
        case names.bibframe where local == names.distribution:
            reader.forEachAttribute { attribute in
                if attribute.name == names.providerName
                    && (attribute.namespace == names.bibframe || attribute.namespace == .none)
                {
                    entry.distributor = attributeValue(attribute)
                }
            }
            try reader.skipElement()
        case names.app where local == names.control:
            try forEachChild { namespace, local in
                if namespace == names.app && local == names.draft {
                    entry.isDraft = try text().lowercased() == "yes"
                } else {
                    try reader.skipElement()
                }
            }
        default:
            try reader.skipElement()
        }
    }

    /// Reads the current element's text, charging it to the entry's budget.
    func text() throws -> String {
        guard let text = try reader.readText(maxBytes: budget) else {
            throw OPDSParseError.entryTooLarge(line: entryLine, limit: maxEntryBytes)
        }
        try spend(text.utf8.count)
        return text
    }

    func spend(_ bytes: Int) throws {
        budget -= bytes
        if budget < 0 { throw OPDSParseError.entryTooLarge(line: entryLine, limit: maxEntryBytes) }
    }

    func attributeValue(_ attribute: XMLAttribute) -> String {
        let value = attribute.value
        budget -= value.utf8.count
        return value
    }

    /// The link's attributes; `feedLevel` also reads the facet and count extensions, which entries'
    /// links (navigation entries aside) do not carry.
    func linkAttributes(feedLevel: Bool = false) -> LinkAttributes {
        var link = LinkAttributes()
        reader.forEachAttribute { attribute in
            guard attribute.namespace == .none else {
                guard feedLevel || attribute.namespace == names.thread else { return }
                if attribute.namespace == names.opds && attribute.name == names.facetGroup {
                    link.facetGroup = attributeValue(attribute)
                } else if attribute.namespace == names.opds && attribute.name == names.activeFacet {
                    link.activeFacet = attributeValue(attribute).lowercased() == "true"
                } else if attribute.namespace == names.thread && attribute.name == names.count {
                    link.count = Int(attributeValue(attribute))
                }
                return
            }
            switch attribute.name {
            case names.href: link.href = attributeValue(attribute)
            case names.rel: link.rel = attributeValue(attribute)
            case names.type: link.type = attributeValue(attribute)
            case names.title: link.title = attributeValue(attribute)
            default: break
            }
        }
        return link
    }

    func categoryAttributes() -> Category? {
        var term: String?
        var scheme: String?
        var label: String?
        reader.forEachAttribute { attribute in
            guard attribute.namespace == .none else { return }
            switch attribute.name {
            case names.term: term = attributeValue(attribute)
            case names.scheme: scheme = attributeValue(attribute)
            case names.label: label = attributeValue(attribute)
            default: break
            }
        }
        return term.map { Category(scheme: scheme, term: $0, label: label) }
    }

    func readPerson() throws -> Contributor {
        var person = Contributor(name: "")
        var uri: String?
        var linkHref: String?
        reader.forEachAttribute { attribute in
            if attribute.name == names.role && attribute.namespace == names.opf {
                person.roles = attributeValue(attribute).split(separator: " ").map(String.init)
            }
        }
        try forEachChild { namespace, local in
            if namespace == names.atom && local == names.name {
                person.name = try text()
            } else if namespace == names.atom && local == names.uri {
                uri = try text()
            } else if namespace == names.simplified && local == names.sortName {
                person.sortName = try text()
            } else if namespace == names.atom && local == names.link {
                if linkHref == nil { linkHref = linkAttributes().href }
                try reader.skipElement()
            } else {
                try reader.skipElement()
            }
        }
        person.uri = (linkHref ?? uri).map(resolve)
        try spend(0)
        return person
    }

}
