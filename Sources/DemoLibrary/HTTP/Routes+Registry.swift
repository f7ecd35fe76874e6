import Foundation
import Hummingbird

/// A library registry, as Palace's (ThePalaceProject/library-registry, `controller.py`) answers a client: the list of
/// libraries, a search, the libraries near a point, one library by id. Its libraries are the demo's `DemoBranch`es.
enum RegistryRoutes {
    static func add(to router: Router<DemoRequestContext>, state: DemoState) {
        router.get("/registry/libraries") { request, _ in
            let renderer = await state.registryRenderer
            return feed(renderer.feed(
                title: "Libraries", selfURL: renderer.librariesURL,
                libraries: DemoBranch.all.sorted { $0.name.uppercased() < $1.name.uppercased() }.map { ($0, nil) }))
        }
        router.get("/registry/search") { request, _ in
            let renderer = await state.registryRenderer
            guard let terms = request.uri.queryParameters["q"].map(String.init), !terms.isEmpty else {
                return HTTPSupport.response(ByteBuffer(string: renderer.openSearch),
                                            contentType: "application/opensearchdescription+xml")
            }
            let place = location(request)
            var found = DemoBranch.all.filter { $0.matches(terms) }.map { branch in
                (branch, place.map { branch.kilometres(toLatitude: $0.latitude, longitude: $0.longitude) * 1000 })
            }
            if place != nil { found.sort { ($0.1 ?? 0) < ($1.1 ?? 0) } }
            return feed(renderer.feed(
                title: "Search results for \"\(terms)\"", selfURL: renderer.registryRoot + "/search?" + (request.uri.query ?? ""),
                libraries: found))
        }
        // The libraries near the point `_location=LAT,LON` names: at most five within 150 km, nearest first. With no
        // point the registry would place the client by its IP address; a loopback address is nowhere.
        router.get("/registry/") { request, _ in
            let renderer = await state.registryRenderer
            var near: [(DemoBranch, Double?)] = []
            if let place = location(request) {
                near = DemoBranch.all.map { ($0, $0.kilometres(toLatitude: place.latitude, longitude: place.longitude) * 1000) }
                    .filter { ($0.1 ?? .infinity) <= 150_000 }.sorted { ($0.1 ?? 0) < ($1.1 ?? 0) }
                near = Array(near.prefix(5))
            }
            return feed(renderer.feed(title: "Libraries near you", selfURL: renderer.registryRoot + "/", libraries: near))
        }
        router.get("/registry/library/{id}") { _, context in
            let id = (context.parameters.get("id") ?? "").removingPercentEncoding ?? ""
            let urn = id.hasPrefix("urn:uuid:") ? id : "urn:uuid:" + id
            guard let branch = DemoBranch.all.first(where: { $0.id == urn }) else {
                return HTTPSupport.problem(.notFound, type: "http://librarysimplified.org/terms/problem/not-found",
                                           title: "No such library", detail: "no library \(urn) is registered")
            }
            let renderer = await state.registryRenderer
            return feed(renderer.feed(title: branch.name, selfURL: renderer.registryRoot + "/library/" + urn,
                                      libraries: [(branch, nil)]))
        }
        router.get("/registry/logo/{file}") { _, context in
            let file = context.parameters.get("file") ?? ""
            return HTTPSupport.response(ByteBuffer(bytes: CoverImage.png(for: file)), contentType: "image/png")
        }
        router.get("/registry/register") { _, _ in
            HTTPSupport.response(
                ByteBuffer(string: #"{"links": [{"rel": "terms-of-service", "type": "text/html", "href": "https://example.org/terms"}]}"#),
                contentType: RegistryRenderer.directoryProfile)
        }
    }

    /// `_location=LAT,LON` (latitude first), as `GeometryUtility.point_from_string` reads it; nil when absent or bad.
    static func location(_ request: Request) -> (latitude: Double, longitude: Double)? {
        guard let text = request.uri.queryParameters["_location"] else { return nil }
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
              abs(latitude) <= 180, abs(longitude) <= 180
        else { return nil }
        return (latitude, longitude)
    }

    /// `catalog_response`: the feed with the registry's (misspelt) cache header.
    static func feed(_ body: String) -> Response {
        HTTPSupport.response(ByteBuffer(string: body), contentType: RegistryRenderer.catalogsType,
                             headers: [.cacheControl: "public, no-transform, max-age: 43200, s-maxage: 21600"])
    }
}
