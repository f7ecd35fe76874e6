import Foundation
import Hummingbird

/// `/_demo/` routes: flip switches and change the catalog from scripts and benchmarks (loopback only).
enum AdminRoutes {
    struct MutateRequest: Codable {
        var fraction: Double
        var seed: UInt64?
        /// Render the changed pages before answering, so a benchmark times the client, not the server.
        var prerender: Bool?
    }

    struct MutateResponse: Codable {
        var changedEntries: Int
        var hrefChanged: Int
        var changedPages: [Int]
    }

    struct TouchRequest: Codable {
        var updated: Date?
    }

    struct HrefRequest: Codable {
        var href: String?
    }

    struct AddRequest: Codable {
        var title: DemoTitle
        var position: Int?
    }

    struct Status: Codable {
        var ok: Bool
        var pageCount: Int
        var entries: Int
    }

    static func add(to router: Router<DemoRequestContext>, state: DemoState) {
        let admin = router.group("_demo").add(middleware: LoopbackOnly())
        admin.get("switches") { _, _ in try HTTPSupport.json(await state.switches) }
        // Redirects for the client's tests: `redirect?to=PATH` answers 302 to PATH; `redirect-loop` to itself.
        admin.get("redirect") { request, _ in
            let target = request.uri.queryParameters["to"].map(String.init) ?? "/"
            return Response(status: .found, headers: [.location: target])
        }
        admin.get("redirect-loop") { _, _ in
            Response(status: .found, headers: [.location: "/_demo/redirect-loop"])
        }
        admin.post("switches") { request, context in
            await state.setSwitches(try await decode(DemoSwitches.self, request, context))
            return try HTTPSupport.json(await state.switches)
        }
        admin.post("pages/{page}/faults") { request, context in
            guard let page = context.parameters.get("page", as: Int.self) else {
                return HTTPSupport.notFound("page must be a number")
            }
            await state.setFaults(try await decode(PageFaults.self, request, context), page: page)
            return try HTTPSupport.json(await state.switches)
        }
        admin.post("reset") { _, _ in
            await state.clearSwitches()
            await state.resetStats()
            return try HTTPSupport.json(await state.switches)
        }
        admin.get("stats") { _, _ in try HTTPSupport.json(await state.stats) }
        admin.get("status") { _, _ in
            try HTTPSupport.json(Status(ok: true, pageCount: await state.pageCount, entries: await state.catalog.count))
        }
        admin.post("mutate") { request, context in
            let body = try await decode(MutateRequest.self, request, context)
            let mutation = try await state.mutate(fraction: body.fraction, seed: body.seed ?? 1)
            if body.prerender ?? true { try await state.prerender(pages: mutation.changedPages) }
            return try HTTPSupport.json(MutateResponse(
                changedEntries: mutation.changedIDs.count,
                hrefChanged: mutation.hrefChangedIDs.count,
                changedPages: mutation.changedPages
            ))
        }
        admin.post("titles") { request, context in
            let body = try await decode(AddRequest.self, request, context)
            try await state.add(body.title, at: body.position)
            return try HTTPSupport.json(body.title, status: .created)
        }
        admin.post("titles/{id}/touch") { request, context in
            let body = try await decode(TouchRequest.self, request, context, allowEmpty: true)
            return try HTTPSupport.json(try await state.touch(id: id(context), updated: body?.updated))
        }
        admin.post("titles/{id}/href") { request, context in
            let body = try await decode(HrefRequest.self, request, context)
            return try HTTPSupport.json(try await state.setAcquisitionHref(id: id(context), href: body.href))
        }
        admin.delete("titles/{id}") { _, context in
            try await state.remove(id: id(context))
            return Response(status: .noContent)
        }
        admin.get("titles/{id}") { _, context in
            guard let title = await state.title(id: id(context)) else { throw DemoLibraryError.unknownTitle(id(context)) }
            return try HTTPSupport.json(title)
        }
        addCirculation(to: admin, state: state)
    }

    struct PatronStatus: Codable {
        var username: String
        var loans: [DemoLoan]
    }

    struct ClockRequest: Codable {
        var advanceSeconds: Double
    }

    struct PasswordRequest: Codable {
        var password: String
    }

    struct ClockStatus: Codable {
        var offsetSeconds: Double
        var now: Date
    }

    /// Acting as any patron, moving the clock and expiring tokens, for scripts and the client's tests.
    private static func addCirculation(to admin: RouterGroup<DemoRequestContext>, state: DemoState) {
        admin.get("patrons") { _, _ in
            let patrons = await state.patronsSettled()
            return try HTTPSupport.json(patrons.map { PatronStatus(username: $0.username, loans: $0.loans) })
        }
        admin.get("patrons/{username}") { _, context in
            let username = context.parameters.get("username") ?? ""
            guard let patron = await state.patron(named: username) else {
                return LoansRoutes.problem(.unknownPatron(username))
            }
            return try HTTPSupport.json(PatronStatus(username: patron.username, loans: patron.loans))
        }
        admin.post("patrons/{username}/borrow/{id}") { _, context in
            let username = context.parameters.get("username") ?? ""
            do {
                let result = try await state.borrow(id(context), as: username)
                return try HTTPSupport.json(result, status: result.created ? .created : .ok)
            } catch let error as DemoCirculationError {
                return LoansRoutes.problem(error)
            }
        }
        admin.post("patrons/{username}/revoke/{id}") { _, context in
            let username = context.parameters.get("username") ?? ""
            do {
                return try HTTPSupport.json(try await state.revoke(id(context), as: username))
            } catch let error as DemoCirculationError {
                return LoansRoutes.problem(error)
            }
        }
        admin.get("clock") { _, _ in
            try HTTPSupport.json(ClockStatus(offsetSeconds: await state.clockOffset, now: await state.now))
        }
        admin.post("clock") { request, context in
            let body = try await decode(ClockRequest.self, request, context)
            guard body.advanceSeconds.isFinite, body.advanceSeconds >= 0 else {
                throw DemoLibraryError.invalidArgument("advanceSeconds must be a number of seconds, zero or more")
            }
            await state.advanceClock(by: body.advanceSeconds)
            return try HTTPSupport.json(ClockStatus(offsetSeconds: await state.clockOffset, now: await state.now))
        }
        admin.post("tokens/expire") { _, _ in
            await state.expireAllTokens()
            return Response(status: .noContent)
        }
        admin.post("tokens/forget") { _, _ in
            await state.forgetAllTokens()
            return Response(status: .noContent)
        }
        admin.post("patrons/{username}/password") { request, context in
            let username = context.parameters.get("username") ?? ""
            let body = try await decode(PasswordRequest.self, request, context)
            do {
                try await state.setPassword(body.password, for: username)
            } catch let error as DemoCirculationError {
                return LoansRoutes.problem(error)
            }
            return Response(status: .noContent)
        }
        admin.post("fulfilment/expire") { _, _ in
            await state.expireFulfilment()
            return Response(status: .noContent)
        }
        admin.post("announcements") { request, context in
            await state.setAnnouncements(try await decode([DemoAnnouncement].self, request, context))
            return try HTTPSupport.json(await state.announcements)
        }
        admin.post("titles/{id}/audio-faults") { request, context in
            await state.setAudioFaults(try await decode(AudioFaults.self, request, context), for: id(context))
            return try HTTPSupport.json(await state.switches)
        }
    }

    private static func id(_ context: DemoRequestContext) -> String {
        (context.parameters.get("id") ?? "").removingPercentEncoding ?? ""
    }

    private static func decode<T: Decodable>(
        _ type: T.Type, _ request: Request, _ context: DemoRequestContext
    ) async throws -> T {
        guard let value = try await decode(type, request, context, allowEmpty: false) else {
            throw HTTPError(.badRequest, message: "a JSON body is required")
        }
        return value
    }

    private static func decode<T: Decodable>(
        _ type: T.Type, _ request: Request, _ context: DemoRequestContext, allowEmpty: Bool
    ) async throws -> T? {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        if buffer.readableBytes == 0, allowEmpty { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(type, from: Data(buffer.readableBytesView))
        } catch {
            throw HTTPError(.badRequest, message: "invalid JSON for \(type): \(error)")
        }
    }
}

/// Refuses admin requests that do not come from this machine.
struct LoopbackOnly: RouterMiddleware {
    typealias Context = DemoRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let address = context.remoteAddress, address == "127.0.0.1" || address == "::1" else {
            return HTTPSupport.problem(
                .forbidden, type: "about:blank", title: "Forbidden", detail: "admin routes answer loopback only"
            )
        }
        do {
            return try await next(request, context)
        } catch let error as DemoLibraryError {
            let status: HTTPResponse.Status = switch error {
            case .unknownTitle: .notFound
            case .duplicateTitle: .conflict
            default: .badRequest
            }
            return HTTPSupport.problem(status, type: "about:blank", title: status.reasonPhrase,
                                       detail: error.localizedDescription)
        }
    }
}
