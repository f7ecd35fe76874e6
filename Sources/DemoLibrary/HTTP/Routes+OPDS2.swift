import Foundation
import Hummingbird

/// The catalog as OPDS 2 under `/opds2/`: a root with a featured group and the crawlable pages, with validators.
enum OPDS2Routes {
    static func add(to router: Router<DemoRequestContext>, state: DemoState) {
        router.get("/opds2/") { request, _ in
            let (body, lastModified) = await state.opds2Root()
            return validated(body, entityTag: FNV1a64.entityTag(of: Array(body)), lastModified: lastModified,
                             request: request)
        }
        router.get("/opds2/crawlable") { request, _ in
            let page = request.uri.queryParameters["page"].map { Int($0) ?? 0 } ?? 1
            guard let rendered = await state.opds2Page(page) else {
                return HTTPSupport.notFound("the OPDS 2 crawlable feed has no page \(page)")
            }
            return validated(rendered.body, entityTag: rendered.entityTag, lastModified: rendered.lastModified,
                             request: request)
        }
    }

    /// The document, or a 304 when the request's validators still match.
    static func validated(_ body: Data, entityTag: String, lastModified: Date, request: Request) -> Response {
        if HTTPSupport.isNotModified(request, entityTags: [entityTag], lastModified: lastModified) {
            return HTTPSupport.notModified(entityTag: entityTag, lastModified: lastModified)
        }
        return HTTPSupport.response(ByteBuffer(bytes: body), contentType: OPDS2Renderer.feedType, headers: [
            .eTag: entityTag, .lastModified: DemoDates.http(lastModified), .cacheControl: "private, no-cache",
        ])
    }
}
