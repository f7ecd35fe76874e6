import Foundation

/// An OpenSearch 1.1 description document (`application/opensearchdescription+xml`): the URL templates a
/// catalog's search link points to.
struct OpenSearchDescription: Equatable {
    /// One `<Url>` element.
    struct Template: Equatable {
        var type: String
        var template: String
        var rel: String?
        var indexOffset: Int
        var pageOffset: Int
    }

    var templates: [Template]

    /// Reads a description; nil when the document is XML of another kind.
    static func parse(_ data: Data, url: String?) throws(CatalogError) -> OpenSearchDescription? {
        do {
            return try XMLReader.withReader(data: data, url: url) { reader -> OpenSearchDescription? in
                var templates: [Template] = []
                var sawRoot = false
                let (typeName, templateName, relName) = (reader.intern("type"), reader.intern("template"), reader.intern("rel"))
                let (indexName, pageName) = (reader.intern("indexOffset"), reader.intern("pageOffset"))
                while try reader.read() {
                    guard reader.kind == .element else { continue }
                    if !sawRoot {
                        guard reader.localNameString == "OpenSearchDescription" else { return nil }
                        sawRoot = true
                        continue
                    }
                    guard reader.depth == 1, reader.localNameString == "Url" else { continue }
                    var found = Template(type: "", template: "", rel: nil, indexOffset: 1, pageOffset: 1)
                    reader.forEachAttribute { attribute in
                        guard attribute.namespace == .none else { return }
                        switch attribute.name {
                        case typeName: found.type = attribute.value
                        case templateName: found.template = attribute.value
                        case relName: found.rel = attribute.value
                        case indexName: found.indexOffset = Int(attribute.value) ?? 1
                        case pageName: found.pageOffset = Int(attribute.value) ?? 1
                        default: break
                        }
                    }
                    if !found.template.isEmpty { templates.append(found) }
                }
                return sawRoot ? OpenSearchDescription(templates: templates) : nil
            }
        } catch let error as OPDSParseError {
            throw .unusableSearch(reason: "its OpenSearch description is unreadable: \(FeedError.parse(error))")
        } catch {
            throw .unusableSearch(reason: "its OpenSearch description is unreadable: \(error)")
        }
    }

    /// The template that answers with a catalog feed: OPDS 1 first (what shelf reads best), then any Atom, then
    /// OPDS 2; only result templates (`rel` absent or `results`), never suggestions or HTML pages.
    var feedTemplate: Template? {
        let results = templates.filter { $0.rel == nil || $0.rel == "results" }
        func rank(_ template: Template) -> Int? {
            let type = template.type.lowercased()
            if type.hasPrefix("application/atom+xml") { return type.contains("opds-catalog") ? 0 : 1 }
            if type.hasPrefix("application/opds+json") { return 2 }
            return nil
        }
        return results.compactMap { template in rank(template).map { ($0, template) } }.min { $0.0 < $1.0 }?.1
    }
}
