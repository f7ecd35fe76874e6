import Testing
@testable import ShelfCore

/// `WWW-Authenticate` values as servers send them, read into their schemes and realms.
struct HTTPChallengeTests {
    @Test(arguments: [
        (#"Basic realm="x""#, [HTTPChallenge(scheme: "Basic", realm: "x")]),
        (#"Digest realm="calibre", nonce="a1b2:c3", algorithm="MD5", qop="auth""#,
         [HTTPChallenge(scheme: "Digest", realm: "calibre")]),
        // Two challenges in one value, a token realm, and a quoted comma and escaped quote in a realm.
        (#"Digest nonce="n", realm="a, \"b\"", Basic realm=plain"#,
         [HTTPChallenge(scheme: "Digest", realm: #"a, "b""#), HTTPChallenge(scheme: "Basic", realm: "plain")]),
        ("Negotiate abc123==, Basic", [HTTPChallenge(scheme: "Negotiate"), HTTPChallenge(scheme: "Basic")]),
        (#"bearer REALM="api""#, [HTTPChallenge(scheme: "bearer", realm: "api")]),
        ("", []),
        (#""unterminated"#, []),
    ])
    func readsSchemesAndRealms(header: String, expected: [HTTPChallenge]) {
        #expect(HTTPChallenge.parse(header) == expected)
    }
}
