import Foundation

/// Turns a catalog's search template and the patron's terms into a URL: OpenSearch 1.1 templates
/// (`{searchTerms}`, optional `{startPage?}`) and RFC 6570 URI templates (OPDS 2's `{?query}`).
public enum SearchTemplate {
    /// Fills an OpenSearch 1.1 URL template.
    ///
    /// `{searchTerms}` gets the terms, percent-encoded; an optional parameter (`{name?}`) is left out, with its
    /// `name=` when it is a query parameter of its own; a required one gets a sensible value (`count` 50, the
    /// first index or page, any language, UTF-8) or, when shelf does not know it, nothing.
    public static func openSearch(_ template: String, terms: String, indexOffset: Int = 1, pageOffset: Int = 1) -> String {
        // Optional parameters become a marker first, so a query pair that carried only one can be dropped whole.
        let marker = "\u{1}"
        var filled = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            filled += rest[..<open]
            var name = String(rest[rest.index(after: open)..<close])
            let optional = name.hasSuffix("?")
            if optional { name.removeLast() }
            // A namespaced parameter (`{time:start?}`) is not one of OpenSearch's own.
            let local = name.contains(":") ? "" : name
            switch local {
            case "searchTerms": filled += encode(terms, allowReserved: false)
            case _ where optional: filled += marker
            case "count": filled += "50"
            case "startIndex": filled += String(indexOffset)
            case "startPage": filled += String(pageOffset)
            case "language": filled += "*"
            case "inputEncoding", "outputEncoding": filled += "UTF-8"
            default: filled += ""
            }
            rest = rest[rest.index(after: close)...]
        }
        filled += rest
        guard filled.contains(marker) else { return filled }
        guard let query = filled.firstIndex(of: "?") else { return filled.replacingOccurrences(of: marker, with: "") }
        let pairs = filled[filled.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
            .compactMap { pair -> String? in
                let value = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).last ?? pair
                return value == Substring(marker) ? nil : pair.replacingOccurrences(of: marker, with: "")
            }
        let kept = pairs.filter { !$0.isEmpty }
        let path = filled[..<query].replacingOccurrences(of: marker, with: "")
        return path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }

    /// Expands an RFC 6570 URI template (OPDS 2's `{?query}`): `URITemplate.expand`.
    public static func expand(_ template: String, _ variables: [String: String]) -> String {
        URITemplate.expand(template, variables)
    }

    static func encode(_ value: String, allowReserved: Bool) -> String {
        URITemplate.encode(value, allowReserved: allowReserved)
    }
}
