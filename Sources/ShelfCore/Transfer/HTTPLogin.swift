import Foundation

/// A user name and password libcurl sends with HTTP Basic or Digest to one origin (scheme, host and port) and
/// nowhere else. Never printed or logged.
public struct HTTPLogin: Sendable, Equatable {
    /// The HTTP authentication scheme libcurl answers the server's challenge with.
    public enum Scheme: String, Sendable, Codable, CaseIterable {
        case basic, digest

        /// `HTTP Basic`, `HTTP Digest`, for messages.
        public var displayName: String { self == .basic ? "HTTP Basic" : "HTTP Digest" }

        /// The scheme of a server's challenge, when it is one shelf signs in with.
        public init?(challenge: HTTPChallenge) {
            switch challenge.scheme.lowercased() {
            case "basic": self = .basic
            case "digest": self = .digest
            default: return nil
            }
        }
    }

    public var scheme: Scheme
    public var username: String
    public var password: String
    /// Where the credentials go: the library's own scheme, host and port.
    public var origin: Origin

    /// Scheme, host and port: the unit credentials are scoped to.
    public struct Origin: Sendable, Equatable {
        public var scheme: String
        public var host: String
        public var port: Int

        /// The origin of `url`, with the scheme's default port filled in; nil for a URL without a host.
        public init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
                return nil
            }
            self.scheme = scheme
            self.host = host
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }
    }

    /// Credentials for the origin of `library`; nil when that URL has no host.
    public init?(scheme: Scheme, username: String, password: String, library url: URL) {
        guard let origin = Origin(url) else { return nil }
        self.scheme = scheme
        self.username = username
        self.password = password
        self.origin = origin
    }

    /// Whether a request for `url` may carry these credentials: only one for the very same origin.
    public func applies(to url: URL) -> Bool { Origin(url) == origin }
}

// The password never shows in `dump`, string interpolation or `-v` by accident.
extension HTTPLogin: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "HTTPLogin(\(scheme.displayName), \(origin.host):\(origin.port), secret redacted)" }
    public var debugDescription: String { description }
}

extension HTTPChallenge {
    /// `HTTP Digest, realm "calibre"`, for messages; unknown schemes as the server named them.
    public var summary: String {
        let name = HTTPLogin.Scheme(challenge: self)?.displayName ?? scheme
        return realm.map { "\(name), realm \"\($0)\"" } ?? name
    }

    /// The challenge shelf answers among a header's: Digest over Basic (the password never crosses the wire).
    public static func preferred(in header: String?) -> HTTPChallenge? {
        let challenges = header.map(parse) ?? []
        return challenges.first { HTTPLogin.Scheme(challenge: $0) == .digest }
            ?? challenges.first { HTTPLogin.Scheme(challenge: $0) == .basic }
    }
}
