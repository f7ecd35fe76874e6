import Foundation

/// One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1): the scheme a server asks for and its realm.
public struct HTTPChallenge: Sendable, Equatable {
    /// The auth scheme as the server wrote it (`Basic`, `Digest`, `Bearer`…); compare it case-insensitively.
    public var scheme: String
    /// The `realm` parameter, unquoted, when there is one.
    public var realm: String?

    /// A challenge with a scheme and, optionally, a realm.
    public init(scheme: String, realm: String? = nil) {
        self.scheme = scheme
        self.realm = realm
    }

    /// Reads every challenge of a header value: `Basic realm="x"`, `Digest realm="calibre", nonce="…", qop="auth"`,
    /// several challenges separated by commas, quoted strings holding commas or escaped quotes. Malformed parts
    /// are skipped, never guessed at.
    public static func parse(_ header: String) -> [HTTPChallenge] {
        var reader = Reader(Array(header.unicodeScalars))
        var challenges: [HTTPChallenge] = []
        while !reader.atEnd {
            reader.skip { $0 == " " || $0 == "\t" || $0 == "," }
            let token = reader.token()
            if token.isEmpty {
                // Not a token character where one must start: skip it rather than stop reading.
                reader.advance()
                continue
            }
            reader.skip { $0 == " " || $0 == "\t" }
            guard reader.peek == "=" else {
                // A token not followed by "=" starts a new challenge.
                challenges.append(HTTPChallenge(scheme: token))
                continue
            }
            reader.advance()
            reader.skip { $0 == " " || $0 == "\t" }
            if reader.atEnd || reader.peek == "," || reader.peek == "=" {
                // token68 (`Negotiate abc==`): its padding, not a parameter.
                reader.skip { $0 == "=" }
                continue
            }
            let value = reader.peek == "\"" ? reader.quoted() : reader.token()
            guard !challenges.isEmpty else { continue }
            if token.lowercased() == "realm", challenges[challenges.count - 1].realm == nil {
                challenges[challenges.count - 1].realm = value
            }
        }
        return challenges
    }

    /// Walks a header value one scalar at a time.
    private struct Reader {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var atEnd: Bool { index >= scalars.count }
        var peek: Unicode.Scalar? { atEnd ? nil : scalars[index] }
        mutating func advance() { index += 1 }

        mutating func skip(while matches: (Unicode.Scalar) -> Bool) {
            while let scalar = peek, matches(scalar) { index += 1 }
        }

        /// RFC 9110 tchar: what a scheme, a parameter name or an unquoted value is made of.
        static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.properties.isASCIIHexDigit || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) {
                return true
            }
            return "!#$%&'*+-.^_`|~0123456789/".unicodeScalars.contains(scalar)
        }

        mutating func token() -> String {
            var text = String.UnicodeScalarView()
            while let scalar = peek, Self.isTokenCharacter(scalar) {
                text.append(scalar)
                index += 1
            }
            return String(text)
        }

        /// A quoted string, its backslash escapes undone; an unterminated one ends with the header.
        mutating func quoted() -> String {
            var text = String.UnicodeScalarView()
            index += 1
            while let scalar = peek {
                index += 1
                if scalar == "\"" { break }
                if scalar == "\\", let escaped = peek {
                    text.append(escaped)
                    index += 1
                } else {
                    text.append(scalar)
                }
            }
            return String(text)
        }
    }
}
