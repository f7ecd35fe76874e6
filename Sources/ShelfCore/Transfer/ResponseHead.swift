import Foundation

/// The status and header fields of the response being received, read from libcurl's header lines: the one
/// header parser, for the client's responses and the downloader's parts alike.
package struct ResponseHead {
    /// What one header line was.
    package enum Line: Equatable {
        /// A status line: a new response begins (after a redirect, or a 100 Continue).
        case status(Int)
        /// A field, its name lower-cased and its value trimmed.
        case field(name: String, value: String)
        /// The blank line that ends the head, or a line that is not a field.
        case other
    }

    /// The status line's code; 0 before one arrives, or when it cannot be read.
    package private(set) var status = 0
    /// The fields of the latest response, names lower-cased; the last value wins, but for `WWW-Authenticate`
    /// whose values are joined.
    package private(set) var headers: [String: String] = [:]

    /// A head before any line.
    package init() {}

    /// Takes one header line (CRLF included); a status line forgets the previous response's fields.
    @discardableResult
    package mutating func take(_ line: Data) -> Line {
        // Header bytes that are not UTF-8 are read as Latin-1, which every byte sequence is.
        guard let text = String(data: line, encoding: .utf8) ?? String(data: line, encoding: .isoLatin1) else {
            return .other
        }
        if text.hasPrefix("HTTP/") {
            let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers = [:]
            return .status(status)
        }
        guard let colon = text.firstIndex(of: ":") else { return .other }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if name == "www-authenticate", let earlier = headers[name] {
            // Several challenges may come as several fields: keep them all, as one list (RFC 9110 §5.3).
            headers[name] = earlier + ", " + value
        } else {
            headers[name] = value
        }
        return .field(name: name, value: value)
    }

    /// The `Content-Range` of a partial response (`bytes 100-199/1000`, `bytes */1000`), when there is one.
    package var contentRange: ContentRange? { headers["content-range"].map(ContentRange.init) }
}

/// A `Content-Range` field's value (RFC 9110 §14.4), as the downloader reads it: each part nil when absent (`*`) or
/// when the value cannot be read.
///
/// Read strictly: `bytes 0-1/-5` once gave a total of -5 and `bytes -5-10/20` a first byte of 5. A range that is not
/// one (`9-3`, or ending past the total) is no range at all.
package struct ContentRange: Equatable {
    /// The first byte the response holds.
    package var first: Int64?
    /// The last byte the response holds.
    package var last: Int64?
    /// The size of the whole file (`*` when the server does not know it).
    package var total: Int64?

    init(first: Int64? = nil, last: Int64? = nil, total: Int64? = nil) {
        self.first = first
        self.last = last
        self.total = total
    }

    init(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes "),
            let slash = text.firstIndex(of: "/")
        else { return }
        let range = text[text.index(text.startIndex, offsetBy: 6)..<slash].trimmingCharacters(in: .whitespaces)
        // A total that is neither `*` nor a number makes the whole value unreadable.
        let totalText = text[text.index(after: slash)...]
        let total = Self.number(totalText)
        guard total != nil || totalText == "*" else { return }
        self.total = total
        let bounds = range.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last,
            total.map({ last < $0 }) ?? true
        else { return }
        self.first = first
        self.last = last
    }

    /// Decimal digits only: no sign, no space, nothing past Int64.
    private static func number(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int64(text)
    }
}
