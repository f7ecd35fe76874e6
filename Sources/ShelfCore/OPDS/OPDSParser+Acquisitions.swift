import Foundation

/// Links and acquisitions of an entry: the acquisition tree with its availability, holds, copies and prices.
extension OPDSDocumentReader {
    func readEntryLink(into entry: inout OPDSEntry) throws {
        // Each field is moved out of the attributes rather than copied: at seven links an entry, the
        // retain and release of copied strings shows in profiles.
        var attributes = linkAttributes()
        try spend(0)
        guard let rawHref = attributes.href.take() else { return try reader.skipElement() }
        // An ODL `tlink` holds a URI template: its expressions stay as written, expanded when it is followed.
        let href = URITemplate.isTemplate(rawHref) ? LinkResolver(baseURL: baseURL).resolveTemplate(rawHref) : resolve(rawHref)
        let role = LinkRole(rel: attributes.rel)
        if case .acquisition(let kind) = role {
            var type = attributes.type.take()
            // An audio file typed `application/octet-stream` (or not at all) is audio by its name.
            if type == nil || type!.hasSuffix("octet-stream") {
                type = AudioTypes.typeByName(type: type, href: href, title: attributes.title) ?? type
            }
            var acquisition = Acquisition(kind: kind, rel: attributes.rel.take() ?? "", href: href, type: type)
            try readAcquisitionChildren(into: &acquisition)
            entry.acquisitions.append(acquisition)
            return
        }
        try reader.skipElement()
        switch role {
        case .cover: if entry.coverURL == nil { entry.coverURL = href }
        case .thumbnail: if entry.thumbnailURL == nil { entry.thumbnailURL = href }
        case .revoke: if entry.revokeURL == nil { entry.revokeURL = href }
        case .annotations: if entry.annotationsURL == nil { entry.annotationsURL = href }
        case .acquisition, .other:
            entry.links.append(
                OPDSLink(
                    href: href, rel: attributes.rel.take(), type: attributes.type.take(),
                    title: attributes.title.take(), count: attributes.count))
        }
    }

    func readAcquisitionChildren(into acquisition: inout Acquisition) throws {
        try forEachChild { namespace, local in
            guard namespace == names.opds else { return try reader.skipElement() }
            switch local {
            case names.indirectAcquisition:
                if let node = try readIndirect() { acquisition.indirect.append(node) }
            case names.availability:
                var status = ""
                var since: Date?
                var until: Date?
                reader.forEachAttribute { attribute in
                    guard attribute.namespace == .none else { return }
                    switch attribute.name {
                    case names.status: status = attributeValue(attribute)
                    case names.since: since = OPDSDate.parse(attributeValue(attribute))
                    case names.until: until = OPDSDate.parse(attributeValue(attribute))
                    default: break
                    }
                }
                acquisition.availability = Availability(status: status, since: since, until: until)
                try reader.skipElement()
            case names.holds:
                var holds = Holds()
                reader.forEachAttribute { attribute in
                    guard attribute.namespace == .none else { return }
                    switch attribute.name {
                    case names.total: holds.total = Int(attributeValue(attribute))
                    case names.position: holds.position = Int(attributeValue(attribute))
                    default: break
                    }
                }
                acquisition.holds = holds
                try reader.skipElement()
            case names.copies:
                var copies = Copies()
                reader.forEachAttribute { attribute in
                    guard attribute.namespace == .none else { return }
                    switch attribute.name {
                    case names.total: copies.total = Int(attributeValue(attribute))
                    case names.available: copies.available = Int(attributeValue(attribute))
                    default: break
                    }
                }
                acquisition.copies = copies
                try reader.skipElement()
            case names.price:
                var currency: String?
                reader.forEachAttribute { attribute in
                    if attribute.name == names.currencyCode && attribute.namespace == .none {
                        currency = attributeValue(attribute)
                    }
                }
                acquisition.price = Price(value: try text(), currency: currency)
            default:
                try reader.skipElement()
            }
        }
        try spend(0)
    }

    /// Reads an `opds:indirectAcquisition` and its nested ones; nil when it names no type.
    func readIndirect() throws -> IndirectAcquisition? {
        var type: String?
        reader.forEachAttribute { attribute in
            if attribute.name == names.type && attribute.namespace == .none { type = attributeValue(attribute) }
        }
        try spend(0)
        var node = IndirectAcquisition(type: type ?? "")
        try forEachChild { namespace, local in
            if namespace == names.opds && local == names.indirectAcquisition {
                if let child = try readIndirect() { node.children.append(child) }
            } else {
                try reader.skipElement()
            }
        }
        return type == nil ? nil : node
    }
}
