import Foundation
import Hummingbird

/// What a patron browses besides the start page: lane feeds with facets, and search (its OpenSearch
/// description without `q`, results with it, as Palace serves them).
enum BrowseRoutes {
    static func add(to router: Router<DemoRequestContext>, state: DemoState) {
        router.get("/lanes/{slug}") { request, context in
            let slug = context.parameters.get("slug") ?? ""
            let query = request.uri.queryParameters
            var facets = DemoLaneFacets()
            facets.order = query["order"].flatMap { DemoLaneFacets.Order(rawValue: String($0)) } ?? .title
            facets.available = query["available"].flatMap { DemoLaneFacets.Available(rawValue: String($0)) } ?? .all
            facets.entrypoint = query["entrypoint"].flatMap { DemoEntryPoint(rawValue: String($0)) } ?? .all
            let page = query["page"].map { Int($0) ?? 0 } ?? 1
            guard let feed = await state.laneFeed(slug: slug, facets: facets, page: page) else {
                return HTTPSupport.notFound("no lane \(slug) with a page \(page)")
            }
            return HTTPSupport.xml(feed)
        }
        router.get("/search") { request, _ in
            let query = request.uri.queryParameters
            guard let terms = query["q"].map({ String($0).removingPercentEncoding ?? String($0) }) else {
                return HTTPSupport.xml(await state.openSearchDescription(), contentType: FeedRenderer.openSearchType)
            }
            let page = query["page"].map { Int($0) ?? 0 } ?? 1
            guard let feed = await state.searchFeed(terms: terms, page: page) else {
                return HTTPSupport.notFound("the results for \(terms) have no page \(page)")
            }
            return HTTPSupport.xml(feed)
        }
    }
}
