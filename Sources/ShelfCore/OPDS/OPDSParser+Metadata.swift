import Foundation

/// Entry metadata beyond Atom's own: the series an entry belongs to.
extension OPDSDocumentReader {
    /// Reads `schema:series` (or `schema:Series`): its name and position as attributes (`name`, `schema:name`,
    /// `schema:position`) or child elements (Palace writes `<position>3</position>` in whatever namespace is in
    /// scope), and the first link, to the series' feed. Nil when it names no series.
    func readSeries() throws -> Series? {
        var name: String?
        var position: String?
        reader.forEachAttribute { attribute in
            guard attribute.namespace == .none || attribute.namespace == names.schema else { return }
            switch attribute.name {
            case names.name: name = attributeValue(attribute)
            case names.position: position = attributeValue(attribute)
            default: break
            }
        }
        var href: String?
        try forEachChild { namespace, local in
            if local == names.position && position == nil {
                position = try text()
            } else if local == names.name && namespace == names.schema && name == nil {
                name = try text()
            } else if local == names.link && namespace == names.atom {
                if href == nil { href = linkAttributes().href }
                try reader.skipElement()
            } else {
                try reader.skipElement()
            }
        }
        try spend(0)
        guard let name = name?.trimmingWhitespace(), !name.isEmpty else { return nil }
        let place = position?.trimmingWhitespace()
        return Series(name: name, position: place?.isEmpty == false ? place : nil, href: href.map(resolve))
    }
}

extension Contributor {
    /// The contributor, or nil when it has no name to show.
    var named: Contributor? {
        name.isBlank ? nil : self
    }
}
