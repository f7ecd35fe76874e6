import Foundation

/// Writes OPDS 1.2 Atom documents with the circulation markup of a Palace Project circulation manager.
struct FeedRenderer: Sendable {
    /// Server root with a trailing slash, e.g. `http://127.0.0.1:54321/`.
    let base: String
    let libraryName: String
    /// The work fulfilled as `application/audiobook+zip` instead of a manifest.
    var packagedAudiobookID: String?
    /// How a loan's fulfil link is written: plain, an ODL templated link, or both (`DemoState.setFulfilLinks`).
    var fulfilLinks = DemoFulfilLinks.plain
    /// Single files are linked as a plain web server's static catalog links them (`DemoState.setPlainFiles`).
    var plainFiles = false

    /// How an entry is offered: in the catalog, on the patron's shelf as a loan, or as a hold.
    enum EntryContext {
        case catalog
        case loan(DemoLoan)
        case hold(DemoLoan)
    }

    static let acquisitionFeedType = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    static let entryType = "application/atom+xml;type=entry;profile=opds-catalog"
    static let annotationType = #"application/ld+json; profile="http://www.w3.org/ns/anno.jsonld""#

    static let namespaces = #"xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog""#
        + #" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:schema="http://schema.org/""#
        + #" xmlns:opf="http://www.idpf.org/2007/opf" xmlns:bibframe="http://bibframe.org/vocab/""#
        + #" xmlns:simplified="http://librarysimplified.org/terms/" xmlns:app="http://www.w3.org/2007/app""#
        + ##" xmlns:odl="http://drafts.opds.io/odl-1.0#""##

    private static let prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

    // MARK: Documents

    /// One page of the crawlable feed; feed-level links come after the entries, as Palace writes them.
    func crawlablePage(
        _ titles: some Collection<DemoTitle>, page: Int, next: Int?, updated: Date
    ) -> String {
        var out = ""
        out.reserveCapacity(titles.count * 2_200 + 1_500)
        openFeed(id: base + "crawlable", title: "All Books", updated: updated, into: &out)
        for title in titles { entry(title, context: .catalog, into: &out) }
        link(href: base + "crawlable?page=\(page)", rel: "self", type: Self.acquisitionFeedType, into: &out)
        link(href: base, rel: "start", type: Self.acquisitionFeedType, title: libraryName, into: &out)
        if let next {
            link(href: base + "crawlable?page=\(next)", rel: "next", type: Self.acquisitionFeedType, into: &out)
        }
        commonFeedLinks(into: &out)
        out += "</feed>\n"
        return out
    }

    /// The patron's shelf: loans and holds.
    func loans(_ items: [(DemoTitle, DemoLoan)], updated: Date) -> String {
        var out = ""
        openFeed(id: base + "loans/", title: "Active loans and holds", updated: updated, into: &out)
        for (title, loan) in items {
            entry(title, context: loan.kind == .loan ? .loan(loan) : .hold(loan), into: &out)
        }
        link(href: base + "loans/", rel: "self", type: Self.acquisitionFeedType, into: &out)
        link(href: base, rel: "start", type: Self.acquisitionFeedType, title: libraryName, into: &out)
        commonFeedLinks(into: &out)
        out += "</feed>\n"
        return out
    }

    /// A single entry document (`/works/{id}`), its root the entry itself.
    func entryDocument(_ title: DemoTitle, context: EntryContext = .catalog) -> String {
        var out = Self.prolog
        entry(title, context: context, namespaces: true, into: &out)
        return out
    }

    // MARK: Pieces

    func openFeed(id: String, title: String, updated: Date, into out: inout String) {
        out += Self.prolog
        out += "<feed \(Self.namespaces)>\n  <id>"
        appendEscaped(id, to: &out)
        out += "</id>\n  <title>"
        appendEscaped(title, to: &out)
        out += "</title>\n  <updated>\(DemoDates.iso8601(updated))</updated>\n"
    }

    func commonFeedLinks(into out: inout String) {
        link(href: base + "loans/", rel: "http://opds-spec.org/shelf", type: Self.acquisitionFeedType, into: &out)
        link(href: base + "authentication_document", rel: "http://opds-spec.org/auth/document",
             type: AuthenticationDocument.mediaType, into: &out)
        link(href: base + "annotations/", rel: "http://www.w3.org/ns/oa#annotationService",
             type: Self.annotationType, into: &out)
    }

    func link(href: String, rel: String, type: String? = nil, title: String? = nil,
                      indent: String = "  ", into out: inout String) {
        out += indent + "<link href=\""
        appendEscaped(href, to: &out)
        out += "\" rel=\""
        appendEscaped(rel, to: &out)
        out += "\""
        if let type {
            out += " type=\""
            appendEscaped(type, to: &out)
            out += "\""
        }
        if let title {
            out += " title=\""
            appendEscaped(title, to: &out)
            out += "\""
        }
        out += "/>\n"
    }

    private func element(_ name: String, _ text: String, into out: inout String) {
        out += "    <\(name)>"
        appendEscaped(text, to: &out)
        out += "</\(name)>\n"
    }

    func resolve(_ href: String) -> String {
        href.hasPrefix("http://") || href.hasPrefix("https://") ? href : base + href
    }

    /// A feed of a series' works, as Palace links one from `schema:series`.
    func seriesHref(_ series: DemoTitle.Series) -> String { base + "series/" + percentEncoded(series.name) }

    /// Writes one `<entry>`.
    ///
    /// `lane` adds the `collection` link by which a groups feed puts the entry in a lane.
    func entry(
        _ t: DemoTitle, context: EntryContext, namespaces: Bool = false, lane: (href: String, title: String)? = nil,
        into out: inout String
    ) {
        let workPath = base + "works/" + percentEncoded(t.id)
        // A single audio file says what it is by its type, as calibre's entries do; only a zip needs the entry to.
        let additionalType: String? = if let file = t.singleFile {
            file.format == .zip ? "http://bib.schema.org/Audiobook" : nil
        } else {
            t.medium == .audiobook ? "http://bib.schema.org/Audiobook" : "http://schema.org/EBook"
        }
        let typeAttribute = additionalType.map { " schema:additionalType=\"\($0)\"" } ?? ""
        out += namespaces ? "<entry \(Self.namespaces)\(typeAttribute)>\n" : "  <entry\(typeAttribute)>\n"
        element("title", t.title, into: &out)
        if let subtitle = t.subtitle { element("schema:alternativeHeadline", subtitle, into: &out) }
        if let duration = t.duration, !(plainFiles && t.singleFile != nil) {
            out += "    <dcterms:duration>\(duration)</dcterms:duration>\n"
        }
        if let series = t.series {
            // As Palace writes it: the name an attribute, the position a child element, then the series' feed.
            out += "    <schema:series name=\"\(xmlEscaped(series.name))\">\n"
            if let position = series.position { out += "      <position>\(xmlEscaped(position))</position>\n" }
            link(href: seriesHref(series), rel: "series", type: Self.acquisitionFeedType, title: series.name,
                 indent: "      ", into: &out)
            out += "    </schema:series>\n"
        }
        out += "    <summary type=\"html\">"
        appendEscaped(t.summary, to: &out)
        out += "</summary>\n"
        element("dcterms:language", t.language, into: &out)
        element("dcterms:publisher", t.publisher, into: &out)
        element("dcterms:issued", t.issued, into: &out)
        element("id", t.id, into: &out)
        out += "    <bibframe:distribution bibframe:ProviderName=\""
        appendEscaped(t.distributor, to: &out)
        out += "\"/>\n"
        out += "    <published>\(DemoDates.iso8601(t.published))</published>\n"
        out += "    <updated>\(DemoDates.iso8601(t.updated))</updated>\n"
        if t.draft { out += "    <app:control><app:draft>yes</app:draft></app:control>\n" }
        let genres = "http://librarysimplified.org/terms/genres/Simplified/"
        for category in t.categories {
            out += "    <category scheme=\"\(genres)\" term=\"\(genres)"
            appendEscaped(percentEncoded(category), to: &out)
            out += "\" label=\""
            appendEscaped(category, to: &out)
            out += "\"/>\n"
        }
        out += "    <category scheme=\"http://schema.org/audience\" term=\""
        appendEscaped(t.audience, to: &out)
        out += "\" label=\""
        appendEscaped(t.audience, to: &out)
        out += "\"/>\n"
        for author in t.authors {
            out += "    <author>\n      <name>"
            appendEscaped(author, to: &out)
            out += "</name>\n"
            link(href: base + "contributors/" + percentEncoded(author), rel: "contributor",
                 type: Self.acquisitionFeedType, title: author, indent: "      ", into: &out)
            out += "    </author>\n"
        }
        for narrator in (plainFiles && t.singleFile != nil ? [] : t.narrators) {
            out += "    <contributor opf:role=\"nrt\">\n      <name>"
            appendEscaped(narrator, to: &out)
            out += "</name>\n    </contributor>\n"
        }
        let cover = resolve(t.coverPath)
        link(href: cover, rel: "http://opds-spec.org/image", type: "image/png", indent: "    ", into: &out)
        link(href: cover, rel: "http://opds-spec.org/image/thumbnail", type: "image/png", indent: "    ", into: &out)
        if let file = t.singleFile {
            // A plain download with no circulation markup at all: free to take, as on calibre or COPS.
            let href = t.acquisitionHref.map(resolve) ?? base + "files/" + percentEncoded(t.id) + "/" + file.fileName
            let type = plainFiles ? "application/octet-stream" : file.format.mediaType
            link(href: href, rel: "http://opds-spec.org/acquisition", type: type, indent: "    ", into: &out)
            link(href: workPath, rel: "alternate", type: Self.entryType, indent: "    ", into: &out)
            if let lane { link(href: lane.href, rel: "collection", title: lane.title, indent: "    ", into: &out) }
            out += namespaces ? "</entry>\n" : "  </entry>\n"
            return
        }
        acquisition(t, context: context, workPath: workPath, into: &out)
        // A sample to hear before borrowing, as publishers give libraries.
        if t.medium == .audiobook {
            let manifest = t.id == DemoState.manifestSampleID
            link(href: base + "samples/" + percentEncoded(t.id) + (manifest ? "/manifest" : ""),
                 rel: "http://opds-spec.org/acquisition/sample", type: manifest ? "application/audiobook+json" : "audio/mpeg",
                 indent: "    ", into: &out)
        }
        link(href: workPath, rel: "alternate", type: Self.entryType, indent: "    ", into: &out)
        link(href: base + "annotations/" + percentEncoded(t.id), rel: "http://www.w3.org/ns/oa#annotationService",
             type: Self.annotationType, indent: "    ", into: &out)
        switch context {
        case .catalog: break
        case .loan, .hold:
            link(href: base + "loans/" + percentEncoded(t.id) + "/revoke",
                 rel: "http://librarysimplified.org/terms/rel/revoke", indent: "    ", into: &out)
        }
        // Where the patron's place in an audiobook is read and written (the OPDS Progression draft).
        if t.medium == .audiobook {
            link(href: base + "progression/" + percentEncoded(t.id), rel: "http://opds-spec.org/progression",
                 type: "application/opds-progression+json", indent: "    ", into: &out)
        }
        // Palace links where its apps report the minutes an audiobook on loan is heard.
        if case .loan = context, t.medium == .audiobook {
            link(href: base + "playtimes/" + percentEncoded(t.id), rel: "http://palaceproject.io/terms/timeTracking",
                 indent: "    ", into: &out)
        }
        if let lane { link(href: lane.href, rel: "collection", title: lane.title, indent: "    ", into: &out) }
        out += namespaces ? "</entry>\n" : "  </entry>\n"
    }

    private func acquisition(_ t: DemoTitle, context: EntryContext, workPath: String, into out: inout String) {
        let pool = t.license
        let contentType = t.medium == .ebook ? "application/epub+zip"
            : t.id == packagedAudiobookID ? "application/audiobook+zip" : "application/audiobook+json"
        let drmType = t.medium == .audiobook
            ? "application/vnd.librarysimplified.bearer-token+json" : "application/vnd.adobe.adept+xml"
        switch context {
        case .catalog where pool.openAccess:
            let href = t.acquisitionHref.map(resolve) ?? workPath + "/fulfill/open-access"
            out += "    <link href=\"\(xmlEscaped(href))\" rel=\"http://opds-spec.org/acquisition/open-access\""
                + " type=\"\(contentType)\""
                + " dcterms:rights=\"http://librarysimplified.org/terms/rights-status/public-domain-usa\">\n"
            out += "      <opds:availability status=\"available\"/>\n    </link>\n"
        case .catalog where t.price != nil:
            let price = t.price!
            let href = t.acquisitionHref.map(resolve) ?? workPath + "/buy"
            out += "    <link href=\"\(xmlEscaped(href))\" rel=\"http://opds-spec.org/acquisition/buy\""
                + " type=\"\(contentType)\">\n"
            out += "      <opds:price currencycode=\"\(xmlEscaped(price.currency))\">\(xmlEscaped(price.amount))</opds:price>\n"
            out += "      <opds:availability status=\"available\"/>\n"
            out += "      <opds:holds total=\"0\"/>\n"
            out += "      <opds:copies total=\"\(pool.copiesTotal)\" available=\"\(pool.copiesAvailable)\"/>\n    </link>\n"
        case .catalog:
            let href = t.acquisitionHref.map(resolve) ?? workPath + "/borrow"
            out += "    <link href=\"\(xmlEscaped(href))\" rel=\"http://opds-spec.org/acquisition/borrow\""
                + " type=\"\(Self.entryType)\">\n"
            indirect(drmType, contentType, into: &out)
            out += "      <opds:availability status=\"\(pool.copiesAvailable > 0 ? "available" : "unavailable")\"/>\n"
            out += "      <opds:holds total=\"\(pool.holdsTotal)\"/>\n"
            out += "      <opds:copies total=\"\(pool.copiesTotal)\" available=\"\(pool.copiesAvailable)\"/>\n    </link>\n"
        case .loan(let loan):
            let plain = t.acquisitionHref.map(resolve) ?? workPath + "/fulfill"
            let templated = t.acquisitionHref.map(resolve) ?? workPath + "/fulfill{?id,checkout_id,patron_id,client_id}"
            // With both, the template comes first: a client that follows the first link it meets takes the template.
            let links: [(element: String, href: String)] = switch fulfilLinks {
            case .plain: [("link", plain)]
            case .templated: [("odl:tlink", templated)]
            case .templatedAndPlain: [("odl:tlink", templated), ("link", plain)]
            }
            for (element, href) in links {
                out += "    <\(element) href=\"\(xmlEscaped(href))\" rel=\"http://opds-spec.org/acquisition\""
                    + " type=\"\(pool.openAccess ? contentType : drmType)\">\n"
                if !pool.openAccess { out += "      <opds:indirectAcquisition type=\"\(contentType)\"/>\n" }
                out += "      <opds:availability status=\"available\"" + period(loan) + "/>\n"
                out += "      <opds:holds total=\"\(pool.holdsTotal)\"/>\n"
                out += "      <opds:copies total=\"\(pool.copiesTotal)\" available=\"\(pool.copiesAvailable)\"/>\n    </\(element)>\n"
            }
        case .hold(let loan):
            let href = t.acquisitionHref.map(resolve) ?? workPath + "/borrow"
            out += "    <link href=\"\(xmlEscaped(href))\" rel=\"http://opds-spec.org/acquisition/borrow\""
                + " type=\"\(Self.entryType)\">\n"
            indirect(drmType, contentType, into: &out)
            if loan.isReady {
                // A copy waits for the patron until `until`; Palace writes no queue position then.
                out += "      <opds:availability status=\"ready\"" + period(loan) + "/>\n"
                out += "      <opds:holds total=\"\(pool.holdsTotal)\"/>\n"
            } else {
                let position = loan.position ?? 1
                out += "      <opds:availability status=\"reserved\"" + period(loan) + "/>\n"
                out += "      <opds:holds total=\"\(max(pool.holdsTotal, position))\" position=\"\(position)\"/>\n"
            }
            out += "      <opds:copies total=\"\(pool.copiesTotal)\" available=\"\(pool.copiesAvailable)\"/>\n    </link>\n"
        }
    }

    private func indirect(_ outer: String, _ inner: String, into out: inout String) {
        out += "      <opds:indirectAcquisition type=\"\(outer)\">\n"
        out += "        <opds:indirectAcquisition type=\"\(inner)\"/>\n"
        out += "      </opds:indirectAcquisition>\n"
    }

    private func period(_ loan: DemoLoan) -> String {
        var attributes = " since=\"\(DemoDates.iso8601(loan.start))\""
        if let end = loan.end { attributes += " until=\"\(DemoDates.iso8601(end))\"" }
        return attributes
    }
}
