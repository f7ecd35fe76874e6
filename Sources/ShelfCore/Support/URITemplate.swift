import Foundation

/// RFC 6570 URI templates: OPDS 2's templated links (`{?query}`) and ODL's `odl:tlink` (`…/loan{?id,patron_id}`).
public enum URITemplate {
    /// Whether `href` is a template: `{` and `}` never appear in a URI, so an expression is one.
    public static func isTemplate(_ href: String) -> Bool {
        // Over the bytes: asked of every link of every entry, a walk over Characters was a tenth of a sync.
        var href = href
        return href.withUTF8 { bytes in
            guard let open = bytes.firstIndex(of: UInt8(ascii: "{")) else { return false }
            return bytes[open...].contains(UInt8(ascii: "}"))
        }
    }

    /// Expands a template (levels 1 to 3, and the prefix modifier of level 4) with string values; a variable without a
    /// value is left out, as the RFC says, so `/fulfill{?id,patron_id}` with only `id` known becomes `/fulfill?id=…`.
    public static func expand(_ template: String, _ variables: [String: String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            result += expression(String(rest[rest.index(after: open)..<close]), variables)
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// One `{…}` expression: its operator says how values are joined, named and encoded.
    private static func expression(_ body: String, _ variables: [String: String]) -> String {
        var body = Substring(body)
        let op = body.first.flatMap { "+#./;?&".contains($0) ? $0 : nil }
        if op != nil { body = body.dropFirst() }
        let (first, separator, named, ifEmpty, reserved): (String, String, Bool, String, Bool) = switch op {
        case "+": ("", ",", false, "", true)
        case "#": ("#", ",", false, "", true)
        case ".": (".", ".", false, "", false)
        case "/": ("/", "/", false, "", false)
        case ";": (";", ";", true, "", false)
        case "?": ("?", "&", true, "=", false)
        case "&": ("&", "&", true, "=", false)
        default: ("", ",", false, "", false)
        }
        var parts: [String] = []
        for spec in body.split(separator: ",") {
            var name = String(spec)
            var limit: Int?
            if name.hasSuffix("*") { name.removeLast() }
            if let colon = name.firstIndex(of: ":") {
                limit = Int(name[name.index(after: colon)...])
                name = String(name[..<colon])
            }
            guard var value = variables[name] else { continue }
            if let limit { value = String(value.prefix(limit)) }
            let encoded = encode(value, allowReserved: reserved)
            parts.append(named ? name + (value.isEmpty ? ifEmpty : "=" + encoded) : encoded)
        }
        return parts.isEmpty ? "" : first + parts.joined(separator: separator)
    }

    /// Percent-encodes UTF-8 bytes outside RFC 3986's unreserved set (and, when allowed, its reserved set).
    static func encode(_ value: String, allowReserved: Bool) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let reservedSet = Set(":/?#[]@!$&'()*+,;=".utf8)
        var out = ""
        for byte in value.utf8 {
            if unreserved.contains(byte) || (allowReserved && reservedSet.contains(byte)) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
