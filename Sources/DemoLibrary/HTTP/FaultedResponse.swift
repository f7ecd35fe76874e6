import Foundation
import Hummingbird
import NIOCore

/// Answers a document or file with the response faults of `PageFaults` switched on: a status, a reset, a redirect
/// loop, HTML, a wrong media type, a body cut short or dripped, a Content-Length that lies.
enum FaultedResponse {
    /// The faulted answer to `request`, or nil when `faults` leave the normal response as it is.
    static func answer(
        _ faults: PageFaults, body: ByteBuffer, contentType: String, headers: HTTPFields = [:],
        request: Request, context: DemoRequestContext
    ) async -> Response? {
        if faults.reset {
            await reset(context.channel)
            return Response(status: .ok)
        }
        if let code = faults.status {
            let status = HTTPResponse.Status(code: code)
            var extra = HTTPFields()
            if let retryAfter = faults.retryAfter { extra[.retryAfter] = retryAfter }
            return HTTPSupport.problem(
                status, type: "http://librarysimplified.org/terms/problem/remote-integration-failed",
                title: status.reasonPhrase.nonEmpty ?? "Error", detail: "\(request.uri.path) is switched to fail with \(code)",
                headers: extra)
        }
        if faults.redirectLoop {
            let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            return Response(status: .found, headers: [.location: target, .contentLength: "0"])
        }
        if let target = faults.redirectTo {
            return Response(status: .found, headers: [.location: target, .contentLength: "0"])
        }
        if faults.html {
            // Under the type `contentType` names when it is given: a plain web server's error page as a download.
            return HTTPSupport.response(
                ByteBuffer(string: CatalogRoutes.captivePortalHTML), contentType: faults.contentType ?? "text/html; charset=utf-8")
        }
        var headers = headers
        headers[.contentType] = faults.contentType ?? contentType
        if faults.truncate {
            let half = body.getSlice(at: body.readerIndex, length: body.readableBytes / 2)!
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: half))
        }
        let sent = faults.dropConnectionAfterBytes.map { min(max(0, $0), body.readableBytes) } ?? body.readableBytes
        let promised = body.readableBytes - (faults.understateContentLength.map { min(max(0, $0), body.readableBytes) } ?? 0)
        let rate = faults.bytesPerSecond.map { max(1, $0) }
        guard sent != body.readableBytes || promised != body.readableBytes || rate != nil else {
            return faults.contentType == nil ? nil : Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        }
        let slice = body.getSlice(at: body.readerIndex, length: sent)!
        return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: promised) { writer in
            try await drip(slice, bytesPerSecond: rate, to: &writer)
            // Throwing after the body makes Hummingbird close the connection, short of or past Content-Length.
            if sent != promised { throw CatalogRoutes.ConnectionDropped() }
            try await writer.finish(nil)
        })
    }

    /// Writes `body`, at most `bytesPerSecond` (in twentieths of a second) when given.
    static func drip(_ body: ByteBuffer, bytesPerSecond rate: Int?, to writer: inout any ResponseBodyWriter) async throws {
        guard let rate else {
            if body.readableBytes > 0 { try await writer.write(body) }
            return
        }
        let chunk = max(1, rate / 20)
        let started = ContinuousClock.now
        var offset = 0
        while offset < body.readableBytes {
            let count = min(chunk, body.readableBytes - offset)
            try await writer.write(body.getSlice(at: body.readerIndex + offset, length: count)!)
            offset += count
            try await Task.sleep(until: started + .milliseconds(offset * 1_000 / rate), clock: .continuous)
        }
    }

    /// Closes the connection with a TCP reset (`SO_LINGER` on with a time of 0), as a crashed server's kernel does.
    static func reset(_ channel: any Channel) async {
        // NIO passes a socket option's value as a 64-bit Int; on a little-endian machine the Int 1 is exactly
        // `struct linger { l_onoff = 1, l_linger = 0 }` (two 32-bit ints), so the close sends RST, not FIN.
        try? await channel.setOption(ChannelOptions.socketOption(.so_linger), value: 1).get()
        try? await channel.close().get()
    }
}
