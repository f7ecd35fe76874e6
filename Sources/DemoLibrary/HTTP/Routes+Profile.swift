import Foundation
import Hummingbird

/// The patron's profile (`/patrons/me/`), as Palace's User Profile Management Protocol serves it: who the patron
/// is and their one setting, `simplified:synchronize_annotations`, which a PUT changes.
enum DemoProfile {
    static let rel = "http://librarysimplified.org/terms/rel/user-profile"
    static let mediaType = "application/vnd.librarysimplified-user-profile+json"
    static let synchronizeKey = "simplified:synchronize_annotations"
}

enum ProfileRoutes {
    static func add(to router: Router<DemoRequestContext>, state: DemoState, configuration: DemoConfiguration) {
        let realm = configuration.libraryName
        // Hummingbird routes `/patrons/me/` here too.
        do {
            let path = "/patrons/me"
            router.get(RouterPath(path)) { request, _ in
                try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                    profile(username, await state.synchronizesAnnotations(username))
                }
            }
            router.put(RouterPath(path)) { request, context in
                var request = request
                let bytes = Array(buffer: try await request.collectBody(upTo: context.maxUploadSize))
                return try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                    guard let settings = JSONValue.parse(bytes)?.object?["settings"]?.object,
                        let value = settings[DemoProfile.synchronizeKey]
                    else {
                        return HTTPSupport.problem(
                            .badRequest, type: "http://librarysimplified.org/terms/problem/invalid-input",
                            title: "Invalid input", detail: "The profile must give settings.\(DemoProfile.synchronizeKey).")
                    }
                    switch value {
                    case .bool(let flag): await state.setSynchronizeAnnotations(flag, for: username)
                    case .null: await state.setSynchronizeAnnotations(nil, for: username)
                    default:
                        return HTTPSupport.problem(
                            .badRequest, type: "http://librarysimplified.org/terms/problem/invalid-input",
                            title: "Invalid input", detail: "\(DemoProfile.synchronizeKey) must be true, false or null.")
                    }
                    return profile(username, await state.synchronizesAnnotations(username))
                }
            }
        }
    }

    private static func profile(_ username: String, _ synchronize: Bool?) -> Response {
        let document: JSONValue = .object([
            "simplified:authorization_identifier": .string(username),
            "settings": .object([DemoProfile.synchronizeKey: synchronize.map(JSONValue.bool) ?? .null]),
        ])
        return HTTPSupport.response(ByteBuffer(data: document.encoded(pretty: true)), contentType: DemoProfile.mediaType,
                                    headers: [.cacheControl: "private, no-cache"])
    }
}

extension DemoState {
    /// The patron's `simplified:synchronize_annotations`: true unless set otherwise.
    public func synchronizesAnnotations(_ username: String) -> Bool? {
        synchronizeAnnotations[username] ?? true
    }

    /// Sets the patron's `simplified:synchronize_annotations`; false deletes their annotations, as Palace does
    /// when a patron opts out.
    public func setSynchronizeAnnotations(_ value: Bool?, for username: String) {
        synchronizeAnnotations[username] = .some(value)
        if value == false { annotationStore.removeAll { $0.username == username } }
    }
}
