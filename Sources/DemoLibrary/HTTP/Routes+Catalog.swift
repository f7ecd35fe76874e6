import Foundation
import Hummingbird

/// The public OPDS routes: root, crawlable pages, entries, covers, authentication document.
enum CatalogRoutes {
    static func add(to router: Router<DemoRequestContext>, state: DemoState) {
        router.get("/") { request, _ in
            // The root changes only when the catalog does, so it carries validators like every page.
            let entrypoint = request.uri.queryParameters["entrypoint"].flatMap { DemoEntryPoint(rawValue: String($0)) }
            var (body, lastModified) = await state.rootFeedWithDate(entrypoint: entrypoint ?? .all)
            // A registry's other libraries (`DemoBranch`): the same catalog, behind their own Authentication document.
            if let branch = DemoBranch.named(request.uri.queryParameters["branch"].map(String.init)), let slug = branch.slug {
                body = body.replacingOccurrences(of: "authentication_document\"", with: "authentication_document?branch=\(slug)\"")
            }
            return HTTPSupport.validatedXML(body, lastModified: lastModified, request: request)
        }
        router.get("/crawlable") { request, context in
            let page = request.uri.queryParameters["page"].map { Int($0) ?? 0 } ?? 1
            return try await crawlable(page: page, request: request, context: context, state: state)
        }
        router.get("/works/{id}") { request, context in
            let id = (context.parameters.get("id") ?? "").removingPercentEncoding ?? ""
            // Anonymous like the feeds; a signed-in patron sees their own loan or hold.
            let username: String? = if case .patron(let name) = await state.authenticate(request.headers[.authorization]) {
                name
            } else {
                nil
            }
            guard let document = await state.entryDocument(id: id, for: username) else {
                return HTTPSupport.notFound("no work with id \(id)")
            }
            return HTTPSupport.xml(document, contentType: HTTPSupport.atomEntry)
        }
        router.get("/covers/{file}") { _, context in
            let file = (context.parameters.get("file") ?? "").removingPercentEncoding ?? ""
            guard file.hasSuffix(".png"), await state.title(id: String(file.dropLast(4))) != nil else {
                return HTTPSupport.notFound("no cover \(file)")
            }
            return HTTPSupport.response(ByteBuffer(bytes: CoverImage.png(for: String(file.dropLast(4)))), contentType: "image/png",
                                        headers: [.cacheControl: "public, max-age=86400"])
        }
        router.get("/authentication_document") { request, _ in
            let slug = request.uri.queryParameters["branch"].map(String.init)
            guard let branch = DemoBranch.named(slug) else {
                if slug != nil { return HTTPSupport.notFound("no library \(slug!) here") }
                return await authenticationDocument(state: state)
            }
            if branch.brokenAuthentication { return HTTPSupport.notFound("this library's sign-in page is being rebuilt") }
            return await authenticationDocument(state: state, branch: branch)
        }
    }

    /// The Authentication for OPDS document (or, with the `malformedAuthDocument` switch, broken JSON).
    static func authenticationDocument(
        state: DemoState, branch: DemoBranch? = nil, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) async -> Response {
        let type = AuthenticationDocument.mediaType
        if await state.switches.malformedAuthDocument {
            let body = AuthenticationDocument.malformed(base: await state.renderer.base)
            return HTTPSupport.response(ByteBuffer(string: body), status: status, contentType: type, headers: headers)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(await state.authenticationDocument(branch: branch))) ?? Data("{}".utf8)
        return HTTPSupport.response(ByteBuffer(bytes: body), status: status, contentType: type, headers: headers)
    }

    static func crawlable(page: Int, request: Request, context: DemoRequestContext, state: DemoState) async throws -> Response {
        let acceptsGzip = HTTPSupport.acceptsGzip(request)
        switch try await state.plan(page: page, acceptsGzip: acceptsGzip) {
        case .notFound(let count):
            return HTTPSupport.notFound("the crawlable feed has pages 1 to \(count)")
        case .status(let code, let retryAfter):
            let status = HTTPResponse.Status(code: code)
            var headers = HTTPFields()
            if let retryAfter { headers[.retryAfter] = retryAfter }
            return HTTPSupport.problem(
                status, type: "http://librarysimplified.org/terms/problem/remote-integration-failed",
                title: status.reasonPhrase.nonEmpty ?? "Error", detail: "page \(page) is switched to fail with \(code)",
                headers: headers)
        case .html:
            return HTTPSupport.response(ByteBuffer(string: captivePortalHTML), contentType: "text/html; charset=utf-8")
        case .notAtom:
            return HTTPSupport.xml(rssDocument(page: page))
        case .truncated(let body):
            return HTTPSupport.response(body, contentType: HTTPSupport.atomAcquisition)
        case .dropped(let body, let afterBytes):
            let sent = body.getSlice(at: body.readerIndex, length: afterBytes)!
            let responseBody = ResponseBody(contentLength: body.readableBytes) { writer in
                if sent.readableBytes > 0 { try await writer.write(sent) }
                // Throwing mid-body makes Hummingbird close the connection short of Content-Length.
                throw ConnectionDropped()
            }
            return Response(status: .ok, headers: [.contentType: HTTPSupport.atomAcquisition], body: responseBody)
        case .faulted(let faults, let body):
            return await FaultedResponse.answer(faults, body: body, contentType: HTTPSupport.atomAcquisition,
                                                request: request, context: context)
                ?? HTTPSupport.response(body, contentType: HTTPSupport.atomAcquisition)
        case .huge(let prefix, let suffix, let summaryBytes, let entityTag):
            let length = prefix.readableBytes + summaryBytes + suffix.readableBytes
            let body = ResponseBody(contentLength: length) { writer in
                try await writer.write(prefix)
                var remaining = summaryBytes
                while remaining > 0 {
                    let chunk = min(remaining, filler.readableBytes)
                    try await writer.write(filler.getSlice(at: filler.readerIndex, length: chunk)!)
                    remaining -= chunk
                }
                try await writer.write(suffix)
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [
                .contentType: HTTPSupport.atomAcquisition, .eTag: entityTag, .cacheControl: "private, no-cache",
            ], body: body)
        case .page(let rendered, let gzip):
            let tags = [rendered.entityTag, rendered.gzipEntityTag]
            let entityTag = gzip ? rendered.gzipEntityTag : rendered.entityTag
            if HTTPSupport.isNotModified(request, entityTags: tags, lastModified: rendered.lastModified) {
                return HTTPSupport.notModified(entityTag: entityTag, lastModified: rendered.lastModified)
            }
            var headers: HTTPFields = [
                .eTag: entityTag,
                .lastModified: DemoDates.http(rendered.lastModified),
                .vary: "Accept-Encoding",
                .cacheControl: "private, no-cache",
            ]
            if gzip, let gzipped = rendered.gzipped {
                headers[.contentEncoding] = "gzip"
                return HTTPSupport.response(gzipped, contentType: HTTPSupport.atomAcquisition, headers: headers)
            }
            return HTTPSupport.response(rendered.body, contentType: HTTPSupport.atomAcquisition, headers: headers)
        }
    }

    struct ConnectionDropped: Error {}

    /// 64 KiB of plain text, written again and again for a huge summary.
    static let filler: ByteBuffer = {
        let sentence = "It was a long description, and it went on and on. "
        var text = String(repeating: sentence, count: 65_536 / sentence.utf8.count + 1)
        text = String(text.utf8.prefix(65_536))!
        return ByteBuffer(string: text)
    }()

    static let captivePortalHTML = """
        <!DOCTYPE html>
        <html><head><title>Sign in to the library Wi-Fi</title></head>
        <body><h1>Welcome</h1><p>Please accept the terms of use to continue browsing.</p></body></html>

        """

    static func rssDocument(page: Int) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Library news</title><link>http://127.0.0.1/</link>
        <description>This is RSS, not an Atom feed (page \(page)).</description>
        <item><title>Opening hours</title><description>Closed on public holidays.</description></item>
        </channel></rss>

        """
    }
}
