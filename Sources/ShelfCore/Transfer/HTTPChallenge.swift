import Foundation

/// One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1): the scheme a server asks for and its realm.
public struct HTTPChallenge: Sendable, Equatable {
    /// The scheme as written (`Basic`, `Digest`); compare it case-insensitively.
    public var scheme: String
    /// The `realm` parameter, unquoted, when given.
    public var realm: String?

    /// Creates the value from its parts.
    public init(scheme: String, realm: String? = nil) {
        self.scheme = scheme
        self.realm = realm
    }

    /// Reads every challenge of a header value, e.g. `Basic realm="x"` or
    /// `Digest realm="calibre", nonce="…", algorithm="MD5", qop="auth"`; parameters other than the realm are skipped.
    public static func parse(_ header: String) -> [HTTPChallenge] {
        var scanner = Scanner(Array(header.utf8))
        var challenges: [HTTPChallenge] = []
        while true {
            scanner.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
            guard let token = scanner.token() else {
                // Something that is not a token (a stray quote): nothing more can be read reliably.
                break
            }
            scanner.skipSpace()
            if scanner.peek == UInt8(ascii: "="), !challenges.isEmpty {
                // `name=value`: a parameter of the challenge being read.
                scanner.advance()
                scanner.skipSpace()
                let value = scanner.peek == UInt8(ascii: "\"") ? scanner.quoted() : scanner.token(allowingEquals: true)
                if token.lowercased() == "realm" { challenges[challenges.count - 1].realm = value }
            } else if scanner.peek == UInt8(ascii: "=") {
                // A parameter before any scheme: not a challenge; skip its value.
                scanner.advance()
                _ = scanner.peek == UInt8(ascii: "\"") ? scanner.quoted() : scanner.token(allowingEquals: true)
            } else {
                challenges.append(HTTPChallenge(scheme: token))
                // A token68 credential (`Negotiate abc==`) may follow the scheme; it is not a parameter.
                if let next = scanner.peekToken68(), next.count > 0 { scanner.skipToken68() }
            }
            if scanner.isAtEnd { break }
        }
        return challenges
    }

    /// A byte scanner over the header value.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index >= bytes.count }
        var peek: UInt8? { isAtEnd ? nil : bytes[index] }
        mutating func advance() { index += 1 }

        mutating func skip(while predicate: (UInt8) -> Bool) {
            while let byte = peek, predicate(byte) { index += 1 }
        }

        mutating func skipSpace() { skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } }

        /// RFC 9110 `tchar`s.
        static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: punctuation.contains(byte)
            }
        }

        private static let punctuation = Set("!#$%&'*+-.^_`|~".utf8)

        mutating func token(allowingEquals: Bool = false) -> String? {
            let start = index
            skip { Self.isTokenByte($0) || (allowingEquals && $0 == UInt8(ascii: "=")) }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A quoted string with its backslash escapes undone; an unterminated one runs to the end.
        mutating func quoted() -> String {
            advance()
            var value: [UInt8] = []
            while let byte = peek {
                advance()
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\"), let escaped = peek {
                    value.append(escaped)
                    advance()
                } else {
                    value.append(byte)
                }
            }
            return String(decoding: value, as: UTF8.self)
        }

        /// The token68 starting here, if the text here is one (token characters, `/`, then `=` padding, then a
        /// comma or the end) rather than the name of a parameter.
        func peekToken68() -> Substring? {
            var end = index
            while end < bytes.count, Self.isTokenByte(bytes[end]) || bytes[end] == UInt8(ascii: "/") { end += 1 }
            let body = end
            while end < bytes.count, bytes[end] == UInt8(ascii: "=") { end += 1 }
            var after = end
            while after < bytes.count, bytes[after] == UInt8(ascii: " ") { after += 1 }
            guard body > index, after == bytes.count || bytes[after] == UInt8(ascii: ",") else { return nil }
            // `name=value` has text after the `=`: that case never reaches here with `after` at a comma or the end,
            // except `name=` with an empty value, which is read as token68 and skipped either way.
            return Substring(String(decoding: bytes[index..<end], as: UTF8.self))
        }

        mutating func skipToken68() {
            skip { Self.isTokenByte($0) || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=") }
        }
    }
}
