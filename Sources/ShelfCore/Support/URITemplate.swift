import Foundation

/// Expands an RFC 6570 URI template (levels 1 to 3, and level 4's prefix modifier) with string values: `{var}`,
/// `{+var}`, `{#var}`, `{.var}`, `{/var}`, `{;var}`, `{?var}`, `{&var}`, each with a comma-separated list of
/// variables. A variable without a value is left out, as the RFC says, so `/fulfill{?id,patron_id}` with only `id`
/// known becomes `/fulfill?id=…`.
public enum URITemplate {
    /// Whether `href` is a template: `{` and `}` never appear in a URI, so an expression is one.
    public static func isTemplate(_ href: String) -> Bool {
        guard let open = href.firstIndex(of: "{") else { return false }
        return href[open...].contains("}")
    }

    public static func expand(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                out += rest[open...]
                return out
            }
            out += expression(rest[rest.index(after: open)..<close], values)
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// One `{…}` expression's expansion.
    private static func expression(_ body: Substring, _ values: [String: String]) -> String {
        var body = body
        let operators: Set<Character> = ["+", "#", ".", "/", ";", "?", "&"]
        let op = body.first.flatMap { operators.contains($0) ? $0 : nil }
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
            var prefix: Int?
            if name.hasSuffix("*") { name.removeLast() }
            if let colon = name.firstIndex(of: ":") {
                prefix = Int(name[name.index(after: colon)...])
                name = String(name[..<colon])
            }
            guard var value = values[name] else { continue }
            if let prefix { value = String(value.prefix(prefix)) }
            let encoded = encode(value, reserved: reserved)
            if named {
                parts.append(value.isEmpty ? name + ifEmpty : name + "=" + encoded)
            } else {
                parts.append(encoded)
            }
        }
        return parts.isEmpty ? "" : first + parts.joined(separator: separator)
    }

    /// Percent-encodes all but the unreserved characters (and, for `+` and `#`, the reserved ones too).
    private static func encode(_ value: String, reserved: Bool) -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        if reserved { allowed.formUnion(CharacterSet(charactersIn: ":/?#[]@!$&'()*+,;=%")) }
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
