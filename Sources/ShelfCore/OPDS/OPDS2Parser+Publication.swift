import Foundation

/// One OPDS 2 publication read into an `OPDSEntry`, field for field as the OPDS 1 parser fills it.
struct OPDS2Publication {
    let node: JSONNode
    let resolver: LinkResolver

    /// Contributor roles of the Readium Web Publication Manifest, with the MARC relator code OPDS 1 feeds write
    /// (`opf:role`); roles MARC has no code for keep their name.
    static let roles: [(key: String, code: String)] = [
        ("translator", "trl"), ("editor", "edt"), ("artist", "art"), ("illustrator", "ill"), ("letterer", "letterer"),
        ("penciler", "penciler"), ("colorist", "clr"), ("inker", "inker"), ("narrator", "nrt"),
    ]

    /// The publication's own URL, resolved: without an identifier, what stays the same from one sync to the next.
    private func selfLink() -> String {
        node["links"].list.compactMap(OPDS2Link.init)
            .first { $0.rels.contains(OPDSVocabulary.relSelf) }.map { $0.resolved(resolver) } ?? ""
    }

    func entry() -> OPDSEntry {
        let metadata = node["metadata"]
        var entry = OPDSEntry(id: metadata["identifier"].string ?? "", title: metadata["title"].text ?? "")
        entry.subtitle = metadata["subtitle"].text
        entry.summary = metadata["description"].text
        entry.publisher = names(metadata["publisher"]).joined(separator: ", ").nonEmpty
        entry.language = metadata["language"].list.compactMap(\.string).joined(separator: ", ").nonEmpty
        entry.additionalType = metadata["@type"].string
        entry.updated = metadata["modified"].string
        entry.published = metadata["published"].string
        entry.duration = metadata["duration"].double.flatMap(OPDSDuration.seconds)
            ?? metadata["duration"].string.flatMap(OPDSDuration.parse)
        entry.series = series(metadata["belongsTo"].isPresent ? metadata["belongsTo"] : metadata["belongs_to"])
        entry.authors = contributors(metadata["author"], roles: [])
        for (key, code) in Self.roles { entry.contributors += contributors(metadata[key], roles: [code]) }
        entry.contributors += contributors(metadata["contributor"], roles: nil)
        entry.categories = metadata["subject"].list.compactMap(category)
        readImages(into: &entry)
        // An ODL licence feed's publications say what they are licensed as (`licenses[].metadata.format`).
        for license in metadataLicenses() { entry.licenseFormats += license }
        for link in node["links"].list.compactMap(OPDS2Link.init) { add(link, to: &entry) }
        if entry.id.isEmpty { entry.id = selfLink() }
        return entry
    }

    // MARK: Metadata

    /// The names of a contributor-like value: a string, an object with a `name`, or a list of either.
    private func names(_ node: JSONNode) -> [String] {
        node.list.compactMap { $0.text ?? $0["name"].text }
    }

    /// Contributors from a string, an object or a list of them; `roles` nil takes each one's own `role`.
    private func contributors(_ node: JSONNode, roles: [String]?) -> [Contributor] {
        node.list.compactMap { value in
            if let name = value.string { return Contributor(name: name, roles: roles ?? []) }
            guard value.isObject, let name = value["name"].text else { return nil }
            let uri = value["links"].list.compactMap(OPDS2Link.init).first.map { $0.resolved(resolver) }
            return Contributor(
                name: name, roles: roles ?? value["role"].list.compactMap(\.string), sortName: value["sortAs"].text,
                uri: uri ?? value["identifier"].string)
        }
    }

    /// A subject: a string, or an object with `name`, `code` and `scheme`.
    private func category(_ node: JSONNode) -> Category? {
        if let name = node.string { return Category(term: name, label: name) }
        let label = node["name"].text
        guard let term = node["code"].string ?? label else { return nil }
        return Category(scheme: node["scheme"].string, term: term, label: label)
    }

    /// `belongsTo.series` (a string, an object or a list), or Palace's `belongsTo` holding the series itself.
    private func series(_ belongsTo: JSONNode) -> Series? {
        var candidates = belongsTo["series"].list
        if candidates.isEmpty, belongsTo["name"].isPresent { candidates = [belongsTo] }
        if candidates.isEmpty, belongsTo.string != nil { candidates = [belongsTo] }
        for candidate in candidates {
            if let name = candidate.string { return Series(name: name) }
            guard let name = candidate["name"].text else { continue }
            let href = candidate["links"].list.compactMap(OPDS2Link.init).first.map { $0.resolved(resolver) }
            return Series(name: name, position: candidate["position"].numberText, href: href)
        }
        return nil
    }

    // MARK: Links

    /// Images by relation when they have one (Palace keeps OPDS 1's); otherwise the first is the cover and the
    /// smallest other one, by height, the thumbnail.
    private func readImages(into entry: inout OPDSEntry) {
        var plain: [OPDS2Link] = []
        for image in node["images"].list.compactMap(OPDS2Link.init) {
            switch image.rels.lazy.map({ LinkRole(rel: $0) }).first(where: { if case .other = $0 { false } else { true } }) {
            case .cover?: if entry.coverURL == nil { entry.coverURL = image.resolved(resolver) }
            case .thumbnail?: if entry.thumbnailURL == nil { entry.thumbnailURL = image.resolved(resolver) }
            default: plain.append(image)
            }
        }
        guard let first = plain.first else { return }
        if entry.coverURL == nil { entry.coverURL = first.resolved(resolver) }
        let smaller = plain.dropFirst().filter { ($0.height ?? .max) < (first.height ?? .max) }
        if entry.thumbnailURL == nil, let smallest = smaller.min(by: { $0.height! < $1.height! }) {
            entry.thumbnailURL = smallest.resolved(resolver)
        }
    }

    /// Files one link where the OPDS 1 parser would: an acquisition, an image, revoke, annotations or another link.
    private func add(_ link: OPDS2Link, to entry: inout OPDSEntry) {
        let href = link.resolved(resolver)
        let roles = link.rels.map { (rel: $0, role: LinkRole(rel: $0)) }
        if let (rel, role) = roles.first(where: { if case .acquisition = $0.role { true } else { false } }),
            case .acquisition(let kind) = role
        {
            entry.acquisitions.append(acquisition(link, kind: kind, rel: rel, href: href))
            return
        }
        let known = roles.first { if case .other = $0.role { false } else { true } }
        switch known?.role {
        case .cover?: if entry.coverURL == nil { entry.coverURL = href }
        case .thumbnail?: if entry.thumbnailURL == nil { entry.thumbnailURL = href }
        case .revoke?: if entry.revokeURL == nil { entry.revokeURL = href }
        case .annotations?: if entry.annotationsURL == nil { entry.annotationsURL = href }
        default:
            entry.links.append(
                OPDSLink(href: href, rel: link.rels.first, type: link.type, title: link.title, templated: link.templated))
        }
    }

    /// The formats of each of the publication's ODL licences.
    private func metadataLicenses() -> [[String]] {
        node["licenses"].list.map { license in
            let format = license["metadata"]["format"]
            return format.string.map { [$0] } ?? format.list.compactMap(\.string)
        }
    }

    /// An acquisition link with its `properties`: indirect acquisitions, availability, holds, copies and price.
    private func acquisition(_ link: OPDS2Link, kind: AcquisitionKind, rel: String, href: String) -> Acquisition {
        let properties = link.properties
        let type = AudioTypes.typeByName(type: link.type, href: href, title: link.title) ?? link.type
        var acquisition = Acquisition(
            kind: kind, rel: rel, href: href, type: type,
            indirect: properties["indirectAcquisition"].list.compactMap(indirect))
        let availability = properties["availability"]
        if let state = availability["state"].string {
            acquisition.availability = Availability(
                status: state, since: OPDSDate.parse(availability["since"].string),
                until: OPDSDate.parse(availability["until"].string))
        }
        let holds = properties["holds"]
        if holds.isObject { acquisition.holds = Holds(total: holds["total"].int, position: holds["position"].int) }
        let copies = properties["copies"]
        if copies.isObject { acquisition.copies = Copies(total: copies["total"].int, available: copies["available"].int) }
        let price = properties["price"]
        if let value = price["value"].numberText {
            acquisition.price = Price(value: value, currency: price["currency"].string)
        }
        return acquisition
    }

    /// One node of `indirectAcquisition` with its `child` nodes; nil without a type. The document's depth is
    /// already bounded, so the recursion is too.
    private func indirect(_ node: JSONNode) -> IndirectAcquisition? {
        guard let type = node["type"].string else { return nil }
        return IndirectAcquisition(type: type, children: node["child"].list.compactMap(indirect))
    }
}

fileprivate extension String {
    /// nil for the empty string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
