import Foundation

/// An OPDS entry flattened into what the store keeps, with the hashes the diff compares.
package struct EntryRecord: Sendable {
    let entry: OPDSEntry
    let authors: String
    let narrators: String
    let medium: String
    /// The DRM scheme of an audiobook none of whose audio paths shelf can play, or nil.
    let protection: String?
    let entitlement: Entitlement
    let availability: Availability?
    let holds: Holds?
    let copies: Copies?
    package let contentHash: Int64
    let changeHash: Int64
    /// The id's key (`ShortID.key`): how the store finds the title, and the start of its short id.
    let key: (key: String, byPrefix: Bool)

    /// The description as the store keeps it: the summary (or, with none, the content) as plain text. Catalogs send
    /// HTML there whatever the `type` says (Palace's summaries have none), so it is always read as HTML.
    /// Worked out only for an entry that is written.
    var description: String? {
        guard let text = entry.summary ?? entry.content else { return nil }
        let plain = PlainText.fromHTML(text)
        return plain.isEmpty ? nil : plain
    }

    package init(_ entry: OPDSEntry) {
        self.entry = entry
        key = ShortID.key(of: entry.id)
        (authors, narrators) = Self.names(of: entry)
        medium = EntryRecord.medium(of: entry)
        protection = medium == "audiobook" ? EntryRecord.protection(of: entry) : nil
        entitlement = EntryRecord.entitlement(of: entry)
        availability = entry.availability
        holds = entry.holds
        copies = entry.copies

        var change = FNV1a()
        change.combine(entry.updated)
        for acquisition in entry.acquisitions {
            change.combine(acquisition.rel)
            change.combine(acquisition.href)
        }
        changeHash = change.signed

        var content = change
        content.combine(entry.title)
        content.combine(entry.subtitle)
        content.combine(authors)
        content.combine(narrators)
        content.combine(entry.summary)
        content.combine(entry.content)
        content.combine(entry.publisher)
        content.combine(entry.issued)
        content.combine(entry.language)
        content.combine(entry.distributor)
        content.combine(entry.additionalType)
        content.combine(entry.published)
        content.combine(entry.coverURL)
        content.combine(entry.thumbnailURL)
        content.combine(entry.revokeURL)
        content.combine(entry.annotationsURL)
        content.combine(entry.isDraft)
        // Only when there are any, so that entries without stay hashed as before.
        for format in entry.licenseFormats { content.combine(format) }
        for contributor in entry.authors + entry.contributors {
            content.combine(contributor.name)
            content.combine(contributor.roles.count)
            for role in contributor.roles { content.combine(role) }
            content.combine(contributor.sortName)
            content.combine(contributor.uri)
        }
        content.combine(entry.categories.count)
        for category in entry.categories {
            content.combine(category.scheme)
            content.combine(category.term)
            content.combine(category.label)
        }
        content.combine(entry.links.count)
        for link in entry.links {
            content.combine(link.href)
            content.combine(link.rel)
            content.combine(link.type)
            content.combine(link.title)
        }
        for acquisition in entry.acquisitions {
            content.combine(acquisition.type)
            EntryRecord.combine(acquisition.indirect, into: &content)
            content.combine(acquisition.availability?.status)
            content.combine(acquisition.availability?.since?.timeIntervalSince1970)
            content.combine(acquisition.availability?.until?.timeIntervalSince1970)
            content.combine(acquisition.holds?.total)
            content.combine(acquisition.holds?.position)
            content.combine(acquisition.copies?.total)
            content.combine(acquisition.copies?.available)
            content.combine(acquisition.price?.value)
            content.combine(acquisition.price?.currency)
        }
        // Combined only when present, so the hash of an entry without them is what it was before they were kept.
        if let duration = entry.duration { content.combine(duration) }
        if let series = entry.series {
            content.combine(series.name)
            content.combine(series.position)
            content.combine(series.href)
        }
        contentHash = content.signed
    }

    private static func combine(_ nodes: [IndirectAcquisition], into hash: inout FNV1a) {
        hash.combine(nodes.count)
        for node in nodes {
            hash.combine(node.type)
            combine(node.children, into: &hash)
        }
    }

    /// The scheme that protects every audio path of the entry, or nil when one path is open.
    static func protection(of entry: OPDSEntry) -> String? {
        var scheme: ProtectionScheme?
        for acquisition in entry.acquisitions where acquisition.kind != .buy && acquisition.kind != .sample {
            for path in acquisition.paths {
                if let found = path.lazy.compactMap(ProtectionScheme.recognise).first {
                    scheme = scheme ?? found
                } else if path.contains(where: { AudioTypes.isAudiobookType($0) }) {
                    return nil
                }
            }
        }
        return scheme?.rawValue
    }

    /// `audiobook`, `ebook` or `other`.
    static func medium(of entry: OPDSEntry) -> String {
        if entry.isAudiobook { return "audiobook" }
        // An ODL licence feed's audiobook may be typed `schema.org/Book`: its licence format, a narrator or a running
        // time says what it is.
        if entry.licenseFormats.contains(where: AudioTypes.isAudiobookType) || !entry.narrators.isEmpty
            || (entry.duration ?? 0) > 0
        {
            return "audiobook"
        }
        if let type = entry.additionalType?.lowercased(), type.hasSuffix("/ebook") || type.hasSuffix("/book") {
            return "ebook"
        }
        // A single audio file (calibre, COPS, Kavita serve books this way); samples and previews say nothing.
        let offersAudio = entry.acquisitions.contains { acquisition in
            acquisition.kind != .sample && acquisition.kind != .preview
                && acquisition.paths.contains { path in path.contains(where: AudioTypes.isAudio) }
        }
        if offersAudio { return "audiobook" }
        let isEbook = entry.acquisitions.contains { acquisition in
            acquisition.paths.contains { path in
                path.contains { type in
                    type.containsBytes("epub") || type.containsBytes("pdf") || type.containsBytes("adobe.adept")
                        || type.containsBytes("mobi")
                }
            }
        }
        return isEbook ? "ebook" : "other"
    }

    /// The patron's right to the title as the feed states it.
    static func entitlement(of entry: OPDSEntry) -> Entitlement {
        let status = entry.availability?.status.lowercased()
        let hasGeneric = entry.acquisitions.contains { $0.kind == .generic }
        if status == "reserved" { return .hold }
        // Palace's OPDS 2 feeds mark a loan's generic acquisition "ready" where its OPDS 1 feeds say "available"; a
        // hold that is ready is offered through a borrow link, never the generic one.
        if status == "ready" && hasGeneric && !entry.acquisitions.contains(where: { $0.kind == .borrow }) { return .loan }
        if status == "ready" { return .holdReady }
        // A loan is offered through the generic acquisition rel (Palace), and can be revoked.
        if hasGeneric && (status == "available" || (status == nil && entry.revokeURL != nil)) { return .loan }
        if entry.acquisitions.contains(where: { $0.kind == .openAccess }) { return .free }
        // A catalog with no circulation at all (calibre, COPS): its plain download links are there to be taken.
        if hasGeneric && !hasCirculationMarkup(entry) { return .free }
        return .none
    }

    /// The edition's `authors` and `narrators` columns: each one's names, joined by ", ". The detail's writer and
    /// reader start from these (`DetailCodec`).
    package static func names(of entry: OPDSEntry) -> (authors: String, narrators: String) {
        (entry.authors.map(\.name).joined(separator: ", "), entry.narrators.map(\.name).joined(separator: ", "))
    }

    /// Whether the entry says anything about loans: availability, holds, copies, a borrow, buy or revoke link.
    static func hasCirculationMarkup(_ entry: OPDSEntry) -> Bool {
        entry.revokeURL != nil || entry.isPaid || entry.acquisitions.contains { acquisition in
            acquisition.kind == .borrow || acquisition.availability != nil || acquisition.holds != nil
                || acquisition.copies != nil
        }
    }
}

/// The detail column, decoded for `shelf show`.
package struct EditionDetailJSON: Codable {
    package var authors: [Contributor]
    package var contributors: [Contributor]
    package var categories: [Category]
    package var links: [OPDSLink]
    /// Kept in the detail since its version 2 (`DetailCodec`); before, in the edition's columns of those names
    /// (until migration v27).
    package var coverURL: String?
    package var thumbnailURL: String?
    package var revokeURL: String?
    package var annotationsURL: String?
    /// Kept in the detail since its version 3 (`DetailCodec`); before, in the table `acquisition`.
    package var acquisitions: [Acquisition]?
    /// Kept in the detail since its version 4 (`DetailCodec`); before, in the edition's columns of those names (until
    /// migration v28).
    package var publisher: String?
    package var issued: String?
    package var language: String?
    package var distributor: String?
    package var additionalType: String?
    package var updated: String?
    package var published: String?

    /// An entry holding what the detail holds, to write it again (`DetailCodec.detail(of:)`).
    package func entry(id: String) -> OPDSEntry {
        var entry = OPDSEntry(id: id, title: "")
        (entry.authors, entry.contributors, entry.categories, entry.links) = (authors, contributors, categories, links)
        (entry.coverURL, entry.thumbnailURL, entry.revokeURL, entry.annotationsURL) =
            (coverURL, thumbnailURL, revokeURL, annotationsURL)
        entry.acquisitions = acquisitions ?? []
        (entry.publisher, entry.issued, entry.language, entry.distributor) = (publisher, issued, language, distributor)
        (entry.additionalType, entry.updated, entry.published) = (additionalType, updated, published)
        return entry
    }
}
