import Foundation

/// The catalog as OPDS 2: the same works, pages and circulation as the OPDS 1 feeds, rendered on each request.
extension DemoState {
    /// The OPDS 2 root and the time the catalog last changed.
    func opds2Root() -> (Data, Date) {
        settle()
        let document = OPDS2Renderer(atom: renderer).rootFeed(featured: featured(), updated: lastStamp)
        return (OPDS2Renderer.encode(document), lastStamp)
    }

    /// One OPDS 2 page of every work, with its entity tag and date; nil past the last page.
    func opds2Page(_ page: Int) -> (body: Data, entityTag: String, lastModified: Date)? {
        settle()
        guard page >= 1, page <= pageCount else { return nil }
        let titles = titles(onPage: page)
        let modified = lastModified(page: page, titles: titles)
        let document = OPDS2Renderer(atom: renderer).crawlablePage(
            titles, page: page, next: page < pageCount ? page + 1 : nil, updated: modified)
        let body = OPDS2Renderer.encode(document)
        return (body, FNV1a64.entityTag(of: Array(body)), modified)
    }
}
