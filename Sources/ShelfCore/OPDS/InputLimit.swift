import Foundation

/// A bound on how much work one document from a server may ask of shelf, named in errors and in the man page.
///
/// Each is far above what any real catalog, manifest or annotation response holds (the largest seen are noted
/// beside each value), and low enough that a hostile document is refused in well under a second: libxml2 is
/// quadratic in the attributes of one element (200,000 of them take minutes of CPU), so shelf counts them itself
/// before libxml2 sees the bytes.
public enum InputLimit: String, CaseIterable, Sendable {
    case attributesPerElement
    case elementDepth
    case nameBytes
    case attributeValueBytes
    case entriesPerPage
    case jsonBytes
    case jsonDepth
    case documentBytes
    case jsonItems
    case jsonValues
    case annotationsPerResponse
    case manifestParts

    /// The limit itself.
    public var value: Int {
        switch self {
        // Real elements carry under 20, a feed root's namespace declarations included.
        case .attributesPerElement: 1_000
        // Real feeds nest under 10 levels, XHTML content included; libxml2's own limit is 256.
        case .elementDepth: 128
        case .nameBytes: 1_000
        // A cover given inline as a data: URL is the longest value seen (tens of KB).
        case .attributeValueBytes: 1 << 20
        // A large real page holds 5,000 entries; a whole 100,000-title catalog on one page still fits.
        case .entriesPerPage: 1_000_000
        // A Palace page of 100 publications is about 300 KB.
        case .jsonBytes: 32 << 20
        // A real OPDS 2 feed nests about 12 deep.
        case .jsonDepth: 64
        // A manifest of 10,000 parts with long signed URLs and a table of contents is about 8 MB.
        case .documentBytes: 16 << 20
        // The longest lists are a manifest's parts and an annotation page's items.
        case .jsonItems: 10_000
        // A manifest of 10,000 parts with a chapter for each holds about 100,000.
        case .jsonValues: 200_000
        // A server keeps one position and a few hundred bookmarks per title.
        case .annotationsPerResponse: 10_000
        // The longest real audiobooks have a few hundred parts.
        case .manifestParts: 10_000
        }
    }

    /// What the limit bounds, as the man page and the errors name it.
    public var name: String {
        switch self {
        case .attributesPerElement: "attributes per XML element"
        case .elementDepth: "XML element depth"
        case .nameBytes: "XML name length"
        case .attributeValueBytes: "XML attribute value length"
        case .entriesPerPage: "entries per catalog page"
        case .jsonBytes: "JSON catalog page size"
        case .jsonDepth: "JSON depth"
        case .documentBytes: "JSON document size (manifests, tokens, annotations, sign-in documents)"
        case .jsonItems: "items per JSON list or object"
        case .jsonValues: "values per JSON document"
        case .annotationsPerResponse: "annotations per response"
        case .manifestParts: "parts per audiobook manifest"
        }
    }

    /// The limit with its unit, for messages and the man page: "1000", "1 MB".
    public var amount: String {
        switch self {
        case .attributeValueBytes, .jsonBytes, .documentBytes: "\(value >> 20) MB"
        case .nameBytes: "\(value) bytes"
        case .elementDepth, .jsonDepth: "\(value) levels"
        default: "\(value)"
        }
    }

    /// What a document did to pass the limit, as the start of an error message.
    func excess(line: Int?) -> String {
        let at = line.map { " at line \($0)" } ?? ""
        switch self {
        case .attributesPerElement: return "an element\(at) has more than \(value) attributes"
        case .elementDepth: return "elements\(at) nest deeper than \(value) levels"
        case .nameBytes: return "a name\(at) is longer than \(value) bytes"
        case .attributeValueBytes: return "an attribute value\(at) is longer than \(amount)"
        case .entriesPerPage: return "the page has more than \(value) entries"
        case .jsonBytes: return "the document is larger than \(amount)"
        case .jsonDepth: return "the document nests deeper than \(value) levels"
        case .documentBytes: return "the document is larger than \(amount)"
        case .jsonItems: return "a list or object holds more than \(value) items"
        case .jsonValues: return "the document holds more than \(value) values"
        case .annotationsPerResponse: return "the response holds more than \(value) annotations"
        case .manifestParts: return "the manifest lists more than \(value) parts"
        }
    }

    /// What a document did to pass the limit, and the limit's name, as a clause inside a longer message.
    public func reason(line: Int? = nil) -> String {
        "\(excess(line: line)), over shelf's limit on \(name)"
    }

    /// The limit a JSON document from a server (not a catalog page) passed, if any, checked in one pass over its
    /// bytes before it is parsed: its size, depth, the items of each list and object and all of them together. So
    /// a document nested thousands deep never reaches Foundation's recursive parser, and one of 400,000 parts never
    /// becomes a tree. `lists` names the limit a list holding too many items passed, by the member name it is the
    /// value of ("" for the document itself), e.g. `["readingOrder": .manifestParts]`; any other passes `jsonItems`.
    public static func jsonViolation(in data: Data, lists: [String: InputLimit] = [:]) -> InputLimit? {
        if data.count > documentBytes.value { return .documentBytes }
        let bounds = JSONShape.Bounds(depth: jsonDepth.value, items: jsonValues.value, perContainer: jsonItems.value)
        // A UTF-16 or UTF-32 document (which Foundation reads) is measured as UTF-8: its bytes hold quotes and
        // brackets that are halves of other characters.
        let bytes = JSONShape.utf8(of: data) ?? data
        let shape = bytes.withUnsafeBytes { JSONShape.measure($0, stoppingAbove: bounds) }
        if shape.depth > bounds.depth { return .jsonDepth }
        if shape.largest > bounds.perContainer { return lists[shape.largestKey ?? ""] ?? .jsonItems }
        return shape.items > bounds.items ? .jsonValues : nil
    }

    /// The one-line message for a document that passed this limit: what, the limit, and what to do.
    public func message(line: Int? = nil) -> String {
        "\(excess(line: line)) (shelf's limit on \(name)); the document looks broken or hostile and was not used: "
            + "report it to the library"
    }

    /// The man page's LIMITS section: one line per limit.
    public static var manualText: String {
        allCases.map { "  \($0.name): \($0.amount)" }.joined(separator: "\n")
    }
}
