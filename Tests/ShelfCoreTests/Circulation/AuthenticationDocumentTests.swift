import Foundation
import Testing
@testable import ShelfCore

private let realAuth = PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared/fixtures-real/auth")
private let hasRealAuth = FileManager.default.fileExists(atPath: realAuth.path)

@Suite(.timeLimit(.minutes(5))) struct AuthenticationDocumentTests {
    private func document(_ name: String) throws -> AuthenticationDocument {
        try AuthenticationDocument.parse(
            Data(contentsOf: realAuth.appendingPathComponent(name)), url: URL(string: "https://lib.example/auth")!)
    }

    @Test(.enabled(if: hasRealAuth, "../shared/fixtures-real is absent; real authentication documents skipped"))
    func palaceExampleOffersBasicOAuthAndBasicToken() throws {
        let auth = try document("example.json")
        #expect(auth.title == "Public Library")
        #expect(auth.id == "http://example.com/auth.json")
        #expect(auth.flows.map(\.type) == [
            AuthenticationDocument.basicType, "http://opds-spec.org/auth/oauth/implicit",
            AuthenticationDocument.basicTokenType,
        ])
        #expect(auth.flows[0].loginLabel == "Library card" && auth.flows[0].passwordLabel == "PIN")
        // The basic-token flow here has no authenticate link, so plain basic is what shelf can use.
        #expect(auth.flows[2].isSupported == false)
        #expect(auth.preferredFlow?.type == AuthenticationDocument.basicType)
    }

    @Test(.enabled(if: hasRealAuth, "../shared/fixtures-real is absent; real authentication documents skipped"))
    func nyplLabelsComeFromTheDocument() throws {
        let auth = try document("nypl-20190603.json")
        let flow = try #require(auth.preferredFlow)
        #expect(flow.type == AuthenticationDocument.basicType)
        #expect(flow.loginLabel == "Barcode")
        #expect(flow.passwordLabel == "PIN")
        #expect(flow.description == "Library Barcode")
    }

    @Test(.enabled(if: hasRealAuth, "../shared/fixtures-real is absent; real authentication documents skipped"))
    func brokenDocumentsAreReportedOrToleratedClearly() throws {
        #expect(throws: CirculationError.malformedAuthDocument(url: "https://lib.example/auth", reason: "not JSON")) {
            try document("empty.json")
        }
        // A flow without a type is skipped with a warning; none is left to sign in with.
        let bad = try document("example_bad_authentication.json")
        #expect(bad.flows.isEmpty)
        #expect(bad.warnings == ["sign-in method 1 has no type; ignored"])
        #expect(throws: CirculationError.authDocumentLacks(library: "lib", what: "lists no sign-in method")) {
            try SignIn.flow(in: bad, library: "lib")
        }
        // A link without href and a missing id do not stop a usable basic flow.
        #expect(try document("example_bad_link.json").preferredFlow?.type == AuthenticationDocument.basicType)
        #expect(try document("example_missing_id.json").preferredFlow?.type == AuthenticationDocument.basicType)
        let minimal = try document("minimal.json")
        #expect(minimal.flows.isEmpty && minimal.title == "Public Library")
    }

    @Test func basicTokenIsPreferredWhenItHasATokenEndpoint() throws {
        let json = """
            {"id": "x", "title": "Demo", "authentication": [
              {"type": "http://opds-spec.org/auth/basic", "labels": {"login": "Card", "password": "PIN"}},
              {"type": "http://thepalaceproject.org/authtype/basic-token", "labels": {"login": "Card", "password": "PIN"},
               "links": [{"rel": "authenticate", "href": "/patrons/me/token/"}]}
            ]}
            """
        let auth = try AuthenticationDocument.parse(Data(json.utf8), url: URL(string: "http://127.0.0.1:1/auth")!)
        let flow = try #require(auth.preferredFlow)
        #expect(flow.type == AuthenticationDocument.basicTokenType)
        #expect(flow.authenticateURL == "http://127.0.0.1:1/patrons/me/token/")
    }

    @Test func onlyWebSignInIsUnsupportedAndNamed() throws {
        let json = """
            {"title": "Campus", "authentication": [{"type": "http://librarysimplified.org/authtype/SAML-2.0"}]}
            """
        let auth = try AuthenticationDocument.parse(Data(json.utf8), url: URL(string: "http://127.0.0.1:1/")!)
        #expect {
            try SignIn.flow(in: auth, library: "campus")
        } throws: { error in
            guard let error = error as? CirculationError, case .unsupportedAuth = error else { return false }
            return error.description.contains("SAML single sign-on (http://librarysimplified.org/authtype/SAML-2.0)")
                && error.exitCode == .unsupportedAuth
        }
    }

    @Test func problemDocumentsAreClassified() throws {
        let expired = try #require(ProblemDocument.parse(Data("""
            {"type": "http://palaceproject.io/terms/problem/auth/recoverable/token/expired", "title": "Expired", "status": 401}
            """.utf8)))
        #expect(expired.isRecoverableAuth)
        let limit = try #require(ProblemDocument.parse(Data("""
            {"type": "\(ProblemDocument.loanLimit)", "title": "Loan limit reached.", "detail": "Return something first."}
            """.utf8)))
        #expect(!limit.isRecoverableAuth)
        #expect(limit.text == "Loan limit reached.: Return something first.")
        #expect(ProblemDocument.parse(Data("<html></html>".utf8)) == nil)
        #expect(ProblemDocument.parse(Data("{}".utf8)) == nil)
    }
}
