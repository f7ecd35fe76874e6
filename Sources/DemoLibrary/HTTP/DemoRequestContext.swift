import Hummingbird
import NIOCore

/// Request context of the demo server: Hummingbird's basics plus the peer's address.
struct DemoRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address, to keep the admin routes to loopback.
    let remoteAddress: String?
    /// The connection, for the faults that reset it.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
        channel = source.channel
    }

    /// The request body is JSON for the admin routes, never large.
    var maxUploadSize: Int { 1 << 20 }
}

/// Counts every request, holds it at a closed gate, applies the delay switch and records 304s; admin routes are left
/// alone.
struct DemoStateMiddleware: RouterMiddleware {
    typealias Context = DemoRequestContext
    let state: DemoState

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/_demo/") else { return try await next(request, context) }
        let target = request.uri.query.map { path + "?" + $0 } ?? path
        let conditional = request.headers[.ifNoneMatch] != nil || request.headers[.ifModifiedSince] != nil
        await state.record(target: target, conditional: conditional)
        await state.passGate(path: path)
        let delay = await state.switches.delayMilliseconds
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        let response = try await next(request, context)
        if response.status == .notModified { await state.recordNotModified(target: target) }
        return response
    }
}
