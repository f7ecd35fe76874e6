import Foundation

/// The demo's library registry documents, written as Palace's library registry writes them
/// (`src/palace/registry/opds.py`, `OPDSCatalog`): `json.dumps` of dicts built in a fixed order, so keys come in
/// that order, separated by `", "` and `": "`, non-ASCII escaped, times as `%Y-%m-%dT%H:%M:%SZ%z`.
struct RegistryRenderer {
    /// Server root with a trailing slash.
    let base: String
    /// When each library last changed: the demo's start.
    let modified: Date

    static let catalogsType = "application/opds+json"
    static let directoryProfile = "application/opds+json;profile=https://librarysimplified.org/rel/profile/directory"
    static let libraryRel = "http://librarysimplified.org/rel/registry/library"

    /// An ordered JSON value, as Python's dicts keep insertion order.
    indirect enum Value {
        case object([(String, Value)])
        case array([Value])
        case string(String)
        case bool(Bool)
        case int(Int)

        /// `json.dumps` with its default separators and `ensure_ascii`.
        func write(into out: inout String) {
            switch self {
            case .object(let members):
                out += "{"
                for (index, member) in members.enumerated() {
                    if index > 0 { out += ", " }
                    Value.string(member.0).write(into: &out)
                    out += ": "
                    member.1.write(into: &out)
                }
                out += "}"
            case .array(let items):
                out += "["
                for (index, item) in items.enumerated() {
                    if index > 0 { out += ", " }
                    item.write(into: &out)
                }
                out += "]"
            case .string(let text):
                out += "\""
                for unit in text.utf16 {
                    switch unit {
                    case 0x22: out += "\\\""
                    case 0x5C: out += "\\\\"
                    case 0x0A: out += "\\n"
                    case 0x0D: out += "\\r"
                    case 0x09: out += "\\t"
                    case 0x08: out += "\\b"
                    case 0x0C: out += "\\f"
                    case 0x20..<0x7F: out += String(UnicodeScalar(UInt8(unit)))
                    default: out += String(format: "\\u%04x", unit)
                    }
                }
                out += "\""
            case .bool(let flag): out += flag ? "true" : "false"
            case .int(let number): out += String(number)
            }
        }
    }

    var registryRoot: String { base + "registry" }
    var librariesURL: String { registryRoot + "/libraries" }

    /// `TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ%z"` of a timezone-aware time: `2025-01-15T18:22:05Z+0000`.
    var time: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z+0000'"
        return formatter.string(from: modified)
    }

    /// One library's catalog entry (`OPDSCatalog.library_catalog`); `distance` in metres when a place was given.
    func entry(_ branch: DemoBranch, distance: Double?) -> Value {
        var metadata: [(String, Value)] = [
            ("id", .string(branch.id)), ("title", .string(branch.name)), ("modified", .string(time)),
            ("updated", .string(time)),
        ]
        if let distance {
            let text = "\(Int(distance / 1000)) km."
            metadata += [("schema:distance", .string(text)), ("distance", .string(text))]
        }
        metadata.append(("description", .string(branch.description)))
        metadata.append(("schema:areaServed", .string(branch.areaServed)))
        let names = ["local": "Local library", "county": "County library", "state": "State library",
                     "universal": "Online library"]
        metadata.append(("subject", .array([.object([
            ("code", .string(branch.kind)), ("name", .string(names[branch.kind] ?? branch.kind)),
            ("scheme", .string("http://librarysimplified.org/terms/library-types")),
        ])])))
        let query = branch.slug.map { "?branch=" + $0 } ?? ""
        let registryLibrary = registryRoot + "/library/" + branch.id
        let links: [Value] = [
            .object([("rel", .string("http://opds-spec.org/catalog")), ("href", .string(base + query)),
                     ("type", .string("application/atom+xml;profile=opds-catalog;kind=acquisition"))]),
            // The registry's code gives the Authentication document's link no rel (its test asserts there is none).
            .object([("href", .string(base + "authentication_document" + query)),
                     ("type", .string("application/vnd.opds.authentication.v1.0+json"))]),
            .object([("rel", .string("http://librarysimplified.org/rel/registry/eligibility")),
                     ("href", .string(registryLibrary + "/eligibility")), ("type", .string("application/geo+json"))]),
            .object([("rel", .string("http://librarysimplified.org/rel/registry/focus")),
                     ("href", .string(registryLibrary + "/focus")), ("type", .string("application/geo+json"))]),
            .object([("rel", .string("help")), ("href", .string("mailto:help@example.org")),
                     ("properties", .object([("https://schema.org/reservationStatus",
                                             .string("https://schema.org/ReservationConfirmed"))]))]),
        ]
        return .object([
            ("metadata", .object(metadata)), ("links", .array(links)),
            ("images", .array([.object([
                ("rel", .string("http://opds-spec.org/image/thumbnail")),
                ("href", .string(registryRoot + "/logo/" + branch.id + ".png")), ("type", .string("image/png")),
            ])])),
        ])
    }

    /// A catalogs feed: `OPDSCatalog.__init__` (metadata, catalogs, then the self link and the annotator's links).
    func feed(title: String, selfURL: String, libraries: [(DemoBranch, Double?)]) -> String {
        let document = Value.object([
            ("metadata", .object([("title", .string(title)), ("adobe_vendor_id", .string("ShelfDemo"))])),
            ("catalogs", .array(libraries.map { entry($0.0, distance: $0.1) })),
            ("links", .array([
                .object([("rel", .string("self")), ("href", .string(selfURL)), ("type", .string(Self.catalogsType))]),
                .object([("href", .string(registryRoot + "/register")), ("rel", .string("register")),
                         ("type", .string(Self.directoryProfile))]),
                .object([("href", .string(registryRoot + "/search")), ("rel", .string("search")),
                         ("type", .string("application/opensearchdescription+xml"))]),
                .object([("href", .string(registryRoot + "/library/{uuid}")), ("rel", .string(Self.libraryRel)),
                         ("type", .string(Self.catalogsType)), ("templated", .bool(true))]),
            ])),
        ])
        var out = ""
        document.write(into: &out)
        return out
    }

    /// The OpenSearch description `/search` answers without `q`.
    var openSearch: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
          <ShortName>Find your library</ShortName>
          <Description>Search by name, location, or postal code</Description>
          <Tags>libraries</Tags>
          <Url type="application/atom+xml;profile=opds-catalog" template="\(registryRoot)/search?q={searchTerms}"/>
        </OpenSearchDescription>
        """
    }
}

extension DemoBranch {
    /// Whether a registry search for `terms` finds it: its name, place or description holds each word.
    func matches(_ terms: String) -> Bool {
        let text = [name, areaServed, description].joined(separator: " ").lowercased()
        let words = terms.lowercased().split(whereSeparator: { $0 == " " || $0 == "," })
        return !words.isEmpty && words.allSatisfy { text.contains($0) }
    }
}
