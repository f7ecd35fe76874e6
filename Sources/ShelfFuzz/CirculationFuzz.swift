import Foundation

import ShelfCore

/// The circulation documents: bearer tokens, Authentication for OPDS and problem documents.
enum CirculationFuzz {
    static let url = URL(string: "https://library.example/works/1/fulfil")!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func bearerToken(_ data: Data) {
        let token: BearerToken
        do {
            token = try BearerToken.parse(data, url: url, now: now)
        } catch {
            require(!error.description.isEmpty, "a refused token has no message")
            return
        }
        require(!token.accessToken.isEmpty, "a token was accepted with an empty access_token")
        let location = URL(string: token.location)
        require(location?.scheme == "https" || location?.scheme == "http",
                "the token's location \(token.location.debugDescription) is not an http(s) URL")
        require(!token.expiresAt.timeIntervalSince1970.isNaN, "the token's expiry is not a number")
        _ = token.isUsable(at: now)
        // The description (what logs and errors show) does not depend on the token at all.
        var other = token
        other.accessToken = token.accessToken == "x" ? "y" : "x"
        require(other.description == token.description, "the token's description shows the token")
    }

    static func authentication(_ data: Data) {
        let document: AuthenticationDocument
        do {
            document = try AuthenticationDocument.parse(data, url: url)
        } catch {
            require(!error.description.isEmpty, "a refused authentication document has no message")
            return
        }
        for flow in document.flows {
            require(!flow.type.isEmpty, "a sign-in flow has an empty type")
            require(!flow.loginLabel.isEmpty && !flow.passwordLabel.isEmpty, "a sign-in flow has an empty label")
            if let authenticate = flow.authenticateURL {
                require(URL(string: authenticate)?.scheme != nil,
                        "the authenticate link \(authenticate.debugDescription) is not an absolute URL")
            }
            _ = AuthenticationDocument.displayName(of: flow.type)
        }
        if let preferred = document.preferredFlow {
            require(document.flows.contains(preferred), "the preferred flow is not one of the document's flows")
        }
        for announcement in document.announcements {
            require(!announcement.id.isEmpty && !announcement.content.isEmpty, "an announcement has no id or no content")
        }
    }

    static func problem(_ data: Data) {
        guard let problem = ProblemDocument.parse(data) else { return }
        require(problem.type != nil || problem.title != nil || problem.detail != nil,
                "a problem document was read with no type, title or detail")
        require(!problem.text.isEmpty, "a problem document's text is empty")
        _ = problem.isRecoverableAuth
    }
}
