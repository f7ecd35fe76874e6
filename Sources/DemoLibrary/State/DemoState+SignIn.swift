import Foundation

/// A sign-in begun at the library and not yet come back from the identity provider.
struct DemoPendingSignIn: Sendable {
    /// Where the patron's client asked to be sent back (`redirect_uri`).
    var redirectURI: String
    /// The SAML identity provider chosen (`idp_entity_id`), for SAML.
    var identityProvider: String?
}

/// The identity providers' and OAuth server's side of the demo's browser sign-ins (Palace's SAML and OpenID Connect
/// controllers, and Authentication for OPDS's OAuth flows): each ends in a bearer token the protected routes take
/// like the basic-token flow's, for the patron the provider's account names (the demo's accounts: card and PIN).
extension DemoState {
    /// The patron a card and PIN (an identity provider's user name and password) belong to.
    func patron(username: String, password: String) -> String? {
        patrons.contains { $0.username == username && $0.password == password } ? username : nil
    }

    /// A random value for states, codes and relay states.
    static func randomToken(bytes: Int = 16) -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", random.next() as UInt8) }.joined()
    }

    /// Starts a sign-in at the identity provider: the value (a SAML RelayState, an OpenID Connect state) that
    /// brings the patron back to it.
    func beginSignIn(redirectURI: String, identityProvider: String? = nil) -> String {
        let key = Self.randomToken()
        pendingSignIns[key] = DemoPendingSignIn(redirectURI: redirectURI, identityProvider: identityProvider)
        stats.signInsBegun += 1
        return key
    }

    /// The sign-in a RelayState or state names, taken (each comes back once).
    func finishSignIn(_ key: String) -> DemoPendingSignIn? {
        pendingSignIns.removeValue(forKey: key)
    }

    /// An OpenID Connect authorisation code for the patron, for the sign-in `state` names.
    func issueCode(for username: String, state: String) -> String {
        let code = Self.randomToken()
        codes[code] = (username, state)
        return code
    }

    /// The patron and state an authorisation code was issued for, taken.
    func redeemCode(_ code: String) -> (username: String, state: String)? {
        codes.removeValue(forKey: code)
    }

    /// A bearer token for a patron signed in through a browser or the OAuth password grant: shaped as Palace's
    /// SAML and OpenID Connect tokens (a JWT's three base64url segments) when `jwt`, else random; looked up, never
    /// verified, as the demo's basic-token tokens are. Lasts `configuration.tokenLifetime`.
    func issueBearer(for username: String, issuer: String, jwt: Bool) -> (token: String, lifetime: Int) {
        func segment(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let token = jwt
            ? segment(#"{"alg":"HS256","typ":"JWT"}"#) + "." + segment(#"{"token":"\#(Self.randomToken())","iss":"\#(issuer)"}"#)
                + "." + segment(Self.randomToken(bytes: 32))
            : Self.randomToken(bytes: 32)
        let lifetime = max(0, configuration.tokenLifetime)
        tokens[token] = DemoToken(username: username, expires: now.addingTimeInterval(lifetime))
        stats.tokensIssued += 1
        return (token, Int(lifetime.rounded()))
    }

    /// A refresh token for the OAuth password grant.
    func issueRefreshToken(for username: String) -> String {
        let token = Self.randomToken(bytes: 32)
        refreshTokens[token] = username
        return token
    }

    /// Forgets every refresh token issued, as a server that revoked them (the patron changed their PIN…) would.
    public func forgetRefreshTokens() {
        refreshTokens = [:]
    }

    /// The patron a refresh token was issued to.
    func refreshTokenOwner(_ token: String) -> String? { refreshTokens[token] }

    /// Ends a bearer token (OpenID Connect logout): answered as never issued from now on.
    func revokeBearer(_ authorization: String?) -> Bool {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return false }
        return tokens.removeValue(forKey: String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)) != nil
    }
}
