import Foundation

/// A bearer token issued by `/patrons/me/token/`.
struct DemoToken: Sendable {
    var username: String
    var expires: Date
}

/// Who sent a request to a protected route, or why nobody could be recognised.
enum DemoAuthentication: Error, Equatable {
    case patron(String)
    /// No `Authorization` header at all.
    case missing
    /// A wrong card or PIN, or a scheme the library does not take.
    case invalidCredentials
    /// A token the library issued whose lifetime is over.
    case tokenExpired
    /// A token the library never issued.
    case tokenUnknown
}

extension DemoState {
    /// Recognises the patron behind an `Authorization` header, counting Basic and Bearer requests.
    func authenticate(_ authorization: String?) -> DemoAuthentication {
        guard let authorization else { return .missing }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        let scheme = parts.first?.lowercased() ?? ""
        let credentials = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        switch scheme {
        case "basic":
            stats.basicRequests += 1
            return basicPatron(credentials).map { .patron($0) } ?? .invalidCredentials
        case "bearer":
            stats.bearerRequests += 1
            guard let token = tokens[credentials] else {
                return .tokenUnknown
            }
            return token.expires > now ? .patron(token.username) : .tokenExpired
        default:
            return .invalidCredentials
        }
    }

    /// Issues a bearer token for Basic credentials: the token and its lifetime in seconds.
    func issueToken(_ authorization: String?) -> Result<(token: String, lifetime: Int), DemoAuthentication> {
        stats.tokenRequests += 1
        guard let authorization else { return .failure(.missing) }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let username = basicPatron(parts[1].trimmingCharacters(in: .whitespaces))
        else { return .failure(.invalidCredentials) }
        var random = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in
            let hex = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        let lifetime = max(0, configuration.tokenLifetime)
        tokens[token] = DemoToken(username: username, expires: now.addingTimeInterval(lifetime))
        stats.tokensIssued += 1
        return .success((token, Int(lifetime.rounded())))
    }

    /// Makes every bearer token issued so far expired, as if their lifetime had run out.
    public func expireAllTokens() {
        let now = self.now
        for token in tokens.keys { tokens[token]?.expires = now }
    }

    /// Forgets every bearer token issued so far, as a server restarted without its token store does: they are
    /// answered as never issued.
    public func forgetAllTokens() {
        tokens = [:]
    }

    /// Changes a patron's PIN (as a library desk would): the old one is refused from now on.
    public func setPassword(_ password: String, for username: String) throws(DemoCirculationError) {
        guard let index = patrons.firstIndex(where: { $0.username == username }) else { throw .unknownPatron(username) }
        patrons[index].password = password
    }

    private func basicPatron(_ encoded: String) -> String? {
        guard let data = Data(base64Encoded: encoded),
              let decoded = String(data: data, encoding: .utf8),
              let colon = decoded.firstIndex(of: ":")
        else { return nil }
        let username = String(decoded[..<colon])
        let password = String(decoded[decoded.index(after: colon)...])
        return patrons.contains { $0.username == username && $0.password == password } ? username : nil
    }
}
