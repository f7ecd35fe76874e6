import Foundation
import Hummingbird

/// Sign-in and circulation, as a Palace Project circulation manager serves them: the token
/// endpoint, the patron's shelf, borrow and revoke.
enum LoansRoutes {
    static func add(to router: Router<DemoRequestContext>, state: DemoState, configuration: DemoConfiguration) {
        let realm = configuration.libraryName
        if configuration.authFlows.contains(.basicToken) {
            router.post("/patrons/me/token") { request, _ in
                switch await state.issueToken(request.headers[.authorization]) {
                case .success(let issued):
                    return try HTTPSupport.json(
                        TokenResponse(access_token: issued.token, token_type: "Bearer", expires_in: issued.lifetime)
                    )
                case .failure(let failure):
                    return await refusal(failure, state: state, realm: realm)
                }
            }
        }
        router.get("/loans") { request, context in
            let faults = await state.takeFaults(\.loans)
            if faults.expiredToken { return await refusal(.tokenExpired, state: state, realm: realm) }
            return try await authorized(request, state: state, realm: realm) { username in
                let (body, lastModified) = await state.loansFeed(for: username)
                if let faulted = await FaultedResponse.answer(
                    faults, body: ByteBuffer(string: body), contentType: HTTPSupport.atomAcquisition,
                    headers: [.cacheControl: "private, no-cache"], request: request, context: context
                ) {
                    return faulted
                }
                return HTTPSupport.validatedXML(body, lastModified: lastModified, request: request)
            }
        }
        for method in [HTTPRequest.Method.get, .put] {
            router.on("/works/{id}/borrow", method: method) { request, context in
                try await authorized(request, state: state, realm: realm) { username in
                    try await borrow(id(context), username: username, state: state)
                }
            }
            router.on("/loans/{id}/revoke", method: method) { request, context in
                try await authorized(request, state: state, realm: realm) { username in
                    try await revoke(id(context), username: username, state: state)
                }
            }
        }
    }

    struct TokenResponse: Codable {
        var access_token: String
        var token_type: String
        var expires_in: Int
    }

    static func id(_ context: DemoRequestContext) -> String {
        (context.parameters.get("id") ?? "").removingPercentEncoding ?? ""
    }

    static func borrow(_ id: String, username: String, state: DemoState) async throws -> Response {
        let switches = await state.switches
        if switches.borrowFails {
            return HTTPSupport.problem(
                .internalServerError, type: "http://librarysimplified.org/terms/problem/cannot-issue-loan",
                title: "Could not issue loan.", detail: "The borrow switch is set to fail."
            )
        }
        if switches.borrowHTML {
            return HTTPSupport.response(ByteBuffer(string: CatalogRoutes.captivePortalHTML),
                                        contentType: "text/html; charset=utf-8")
        }
        do {
            let result = try await state.borrow(id, as: username)
            return await entry(id, username: username, status: result.created ? .created : .ok, state: state)
        } catch let error as DemoCirculationError {
            return problem(error)
        }
    }

    static func revoke(_ id: String, username: String, state: DemoState) async throws -> Response {
        if await state.switches.revokeFails {
            return HTTPSupport.problem(
                .internalServerError, type: "http://librarysimplified.org/terms/problem/remote-integration-failed",
                title: "Third-party service failed.", detail: "The revoke switch is set to fail."
            )
        }
        do {
            try await state.revoke(id, as: username)
            return await entry(id, username: username, status: .ok, state: state)
        } catch let error as DemoCirculationError {
            return problem(error)
        }
    }

    private static func entry(_ id: String, username: String, status: HTTPResponse.Status, state: DemoState) async -> Response {
        guard let document = await state.entryDocument(id: id, for: username) else {
            return problem(.notFound(id))
        }
        return HTTPSupport.response(ByteBuffer(string: document), status: status, contentType: HTTPSupport.atomEntry,
                                    headers: [.cacheControl: "private, no-cache"])
    }

    static func problem(_ error: DemoCirculationError) -> Response {
        HTTPSupport.problem(.init(code: error.status), type: error.problemType, title: error.title,
                            detail: error.localizedDescription)
    }

    /// Runs `body` for the patron behind the request, or answers 401 as Palace does.
    static func authorized(
        _ request: Request, state: DemoState, realm: String, _ body: (String) async throws -> Response
    ) async throws -> Response {
        switch await state.authenticate(request.headers[.authorization]) {
        case .patron(let username): try await body(username)
        case let failure: await refusal(failure, state: state, realm: realm)
        }
    }

    /// The 401 for a failed sign-in: the authentication document when no credentials came,
    /// otherwise a problem document saying what was wrong with them.
    static func refusal(_ failure: DemoAuthentication, state: DemoState, realm: String) async -> Response {
        let challenge: HTTPFields = [.wwwAuthenticate: "Basic realm=\"\(realm)\""]
        switch failure {
        case .missing, .patron:
            return await CatalogRoutes.authenticationDocument(state: state, status: .unauthorized, headers: challenge)
        case .invalidCredentials:
            return HTTPSupport.problem(
                .unauthorized, type: "http://librarysimplified.org/terms/problem/credentials-invalid",
                title: "Invalid credentials", detail: "A valid library card barcode number and PIN are required.",
                headers: challenge
            )
        case .tokenExpired:
            return HTTPSupport.problem(
                .unauthorized, type: "http://palaceproject.io/terms/problem/auth/recoverable/token/expired",
                title: "Expired bearer token.", detail: "The bearer token has expired; sign in again for a new one.",
                headers: challenge
            )
        case .tokenUnknown:
            return HTTPSupport.problem(
                .unauthorized, type: "http://palaceproject.io/terms/problem/auth/unrecoverable/invalid-credentials",
                title: "Invalid bearer token.", detail: "The bearer token was not issued by this library.",
                headers: challenge
            )
        }
    }
}
