import Foundation

/// The status and header fields of the response being received, read from libcurl's header lines: the one
/// header parser, for the client's responses and the downloader's parts alike.
struct ResponseHead {
    /// What one header line was.
    enum Line: Equatable {
        /// A status line: a new response begins (after a redirect, or a 100 Continue).
        case status(Int)
        /// A field, its name lower-cased and its value trimmed.
        case field(name: String, value: String)
        /// The blank line that ends the head, or a line that is not a field.
        case other
    }

    /// The status line's code; 0 before one arrives, or when it cannot be read.
    private(set) var status = 0
    /// The fields of the latest response, names lower-cased; the last value wins, but for `WWW-Authenticate`
    /// whose values are joined.
    private(set) var headers: [String: String] = [:]

    /// Takes one header line (CRLF included); a status line forgets the previous response's fields.
    @discardableResult
    mutating func take(_ line: Data) -> Line {
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
}
