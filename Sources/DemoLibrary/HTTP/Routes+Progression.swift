import Foundation
import Hummingbird

/// One patron's progression document of one title, as last put.
public struct DemoProgression: Sendable, Equatable {
    public var modified: Date
    /// The document as put.
    public var body: Data

    public init(modified: Date, body: Data) {
        self.modified = modified
        self.body = body
    }
}

/// The OPDS Progression draft's endpoint for each audiobook (`/progression/{id}`): GET answers the patron's document
/// (204 when there is none), PUT replaces it unless it carries a `modified` older than the one kept (409 Conflict,
/// as the draft and Codex answer).
enum ProgressionRoutes {
    static let mediaType = "application/opds-progression+json"

    static func add(to router: Router<DemoRequestContext>, state: DemoState, configuration: DemoConfiguration) {
        let realm = configuration.libraryName
        router.get("/progression/{id}") { request, context in
            let workID = LoansRoutes.id(context)
            return try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                guard await state.title(id: workID) != nil else { return HTTPSupport.notFound("No title \(workID).") }
                guard let kept = await state.progression(username: username, workID: workID) else {
                    return Response(status: .noContent)
                }
                return HTTPSupport.response(ByteBuffer(data: kept.body), contentType: mediaType,
                                            headers: [.cacheControl: "private, no-cache"])
            }
        }
        router.put("/progression/{id}") { request, context in
            var request = request
            let bytes = Array(buffer: try await request.collectBody(upTo: context.maxUploadSize))
            let workID = LoansRoutes.id(context)
            return try await LoansRoutes.authorized(request, state: state, realm: realm) { username in
                guard await state.title(id: workID) != nil else { return HTTPSupport.notFound("No title \(workID).") }
                guard let text = JSONValue.parse(bytes)?.object?["modified"]?.string,
                    let modified = ISO8601DateFormatter().date(from: text) ?? fractional(text)
                else {
                    return HTTPSupport.problem(.badRequest, type: "http://librarysimplified.org/terms/problem/invalid-input",
                                               title: "Invalid input", detail: "The progression needs a modified time.")
                }
                if let kept = await state.progression(username: username, workID: workID), kept.modified > modified {
                    return HTTPSupport.problem(.conflict, type: "http://librarysimplified.org/terms/problem/conflict",
                                               title: "Conflict", detail: "The progression kept was modified later.")
                }
                await state.setProgression(DemoProgression(modified: modified, body: Data(bytes)), username: username,
                                           workID: workID)
                return Response(status: .ok, headers: [.contentLength: "0"])
            }
        }
    }

    private static func fractional(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

extension DemoState {
    /// The patron's progression document of a title, as last put.
    public func progression(username: String, workID: String) -> DemoProgression? {
        progressionStore[username + "\n" + workID]
    }

    /// Keeps a patron's progression document of a title, as another device would put it.
    public func setProgression(_ progression: DemoProgression, username: String, workID: String) {
        progressionStore[username + "\n" + workID] = progression
    }
}
