import Foundation

/// Resolving an entry's references against the document's URL.
extension OPDSDocumentReader {
    /// Resolves a relative reference against the document's URL (see `LinkResolver`).
    func resolve(_ href: String) -> String { LinkResolver(baseURL: baseURL).resolve(href) }
}

/// Resolves a document's references against its URL, for the OPDS 1 and OPDS 2 readers alike.
package struct LinkResolver {
    let baseURL: URL?

    /// Resolves against `baseURL` (none: every reference stays as written).
    package init(baseURL: URL?) { self.baseURL = baseURL }

    /// Resolves a relative reference against the base URL; absolute and unresolvable ones stay as written.
    ///
    /// Foundation would "repair" an invalid reference by percent-encoding it (turning `a%zz b` into
    /// `a%25zz%20b`), inventing a link the server never meant; keeping the text as written leaves the
    /// problem visible instead. Non-ASCII characters are fine: Atom links are IRIs.
    package func resolve(_ href: String) -> String {
        guard let baseURL, !hasScheme(href), isValidReference(href) else { return href }
        guard let url = URL(string: href, relativeTo: baseURL) else { return href }
        return url.absoluteString
    }

    /// Resolves a URI template (`/search{?query}`): the part before the first expression is resolved, the
    /// expressions are kept as written.
    func resolveTemplate(_ href: String) -> String {
        guard let brace = href.utf8.firstIndex(of: UInt8(ascii: "{")), brace != href.startIndex else { return resolve(href) }
        return resolve(String(href[..<brace])) + href[brace...]
    }

    /// True when every ASCII character of `href` may appear in an RFC 3986 reference and each `%` starts
    /// a percent-escape.
    package func isValidReference(_ href: String) -> Bool {
        var utf8 = href.utf8.makeIterator()
        while let byte = utf8.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = utf8.next(), let low = utf8.next(), isHexDigit(high), isHexDigit(low) else {
                    return false
                }
            case 0..<0x21, 0x7F, UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
                UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                return false
            default:
                break
            }
        }
        return true
    }

    func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    /// True when `href` starts with an RFC 3986 scheme, which makes it absolute: it is left untouched even
    /// when the rest does not parse, so a broken link stays visible as the server wrote it.
    func hasScheme(_ href: String) -> Bool {
        var first = true
        for byte in href.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                break
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if first { return false }
            case UInt8(ascii: ":"):
                return !first
            default:
                return false
            }
            first = false
        }
        return false
    }
}
