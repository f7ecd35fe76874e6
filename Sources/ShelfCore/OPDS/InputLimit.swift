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
        case .jsonBytes: "JSON document size"
        case .jsonDepth: "JSON depth"
        case .annotationsPerResponse: "annotations per response"
        case .manifestParts: "parts per audiobook manifest"
        }
    }

    /// The limit with its unit, for messages and the man page: "1000", "1 MB".
    public var amount: String {
        switch self {
        case .attributeValueBytes, .jsonBytes: "\(value >> 20) MB"
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
        case .annotationsPerResponse: return "the response holds more than \(value) annotations"
        case .manifestParts: return "the manifest lists more than \(value) parts"
        }
    }

    /// What a document did to pass the limit, and the limit's name, as a clause inside a longer message.
    public func reason(line: Int? = nil) -> String {
        "\(excess(line: line)), over shelf's limit on \(name)"
    }

    /// The size and depth limit a JSON document from a server passed, if any, checked before it is parsed: one
    /// pass over the bytes, so a document nested thousands deep never reaches Foundation's recursive parser.
    public static func jsonViolation(in data: Data) -> InputLimit? {
        if data.count > jsonBytes.value { return .jsonBytes }
        let depth = data.withUnsafeBytes { JSONDepth.maximum(of: $0, stoppingAbove: jsonDepth.value) }
        return depth > jsonDepth.value ? .jsonDepth : nil
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
