import Foundation
import Testing
@testable import ShelfCore

/// The registry's catalogs feed as its code renders it and as production serves it.
@Suite struct LibraryRegistryTests {
    @Test func bothFormsOfTheAuthenticationLinkAndEveryFieldAreRead() throws {
        // The registry's code: the Authentication document's link has no rel, times end `Z+0000`.
        let code = """
            {"metadata": {"title": "Libraries", "adobe_vendor_id": "ThePalaceProject"}, "catalogs": [{"metadata": \
            {"id": "urn:uuid:5b1c2e7a-3f0d-4c6e-9a51-2f7d8c0e4b11", "title": "The New York Public Library", \
            "modified": "2025-01-15T18:22:05Z+0000", "updated": "2025-01-15T18:22:05Z+0000", "schema:distance": "14 km.", \
            "distance": "14 km.", "description": "It\\u2019s a <b>wonderful</b> library &amp; more.", \
            "schema:areaServed": "New York, NY"}, "links": [{"rel": "http://opds-spec.org/catalog", "href": \
            "https://nypl.example.org/", "type": "application/atom+xml;profile=opds-catalog;kind=acquisition"}, \
            {"href": "/auth", "type": "application/vnd.opds.authentication.v1.0+json"}, {"rel": "alternate", "href": \
            "https://nypl.org/", "type": "text/html"}, {"rel": "help", "href": "mailto:help@library.org"}]}], \
            "links": [{"rel": "self", "href": "https://registry.example/libraries", "type": "application/opds+json"}]}
            """
        let libraries = try LibraryRegistry.parse(Data(code.utf8), url: URL(string: "https://nypl.example.org/registry/libraries")!)
        #expect(libraries == [RegistryLibrary(
            id: "urn:uuid:5b1c2e7a-3f0d-4c6e-9a51-2f7d8c0e4b11", name: "The New York Public Library",
            description: "It\u{2019}s a wonderful library & more.", areaServed: "New York, NY", distance: "14 km.",
            catalogURL: "https://nypl.example.org/", authenticationURL: "https://nypl.example.org/auth",
            homePage: "https://nypl.org/", help: "mailto:help@library.org")])
        // Production: the link has its rel; an entry without an id or title is no library.
        let production = """
            {"metadata": {"title": "X"}, "catalogs": [{"metadata": {"id": "urn:uuid:1", "title": "A", \
            "modified": "2026-09-11T13:43:38Z"}, "links": [{"rel": "http://opds-spec.org/auth/document", "href": \
            "https://a.example/auth", "type": "application/json"}]}, {"metadata": {"title": "no id"}}]}
            """
        let parsed = try LibraryRegistry.parse(Data(production.utf8), url: URL(string: "https://r.example/libraries")!)
        #expect(parsed.map(\.authenticationURL) == ["https://a.example/auth"])
    }

    @Test func searchesAndNearbyListsAreAskedAtTheRegistrysRoot() {
        #expect(LibraryRegistry.coordinates("40.75, -73.98") == "40.75,-73.98")
        #expect(LibraryRegistry.coordinates("Springfield") == nil)
        #expect(LibraryRegistry.coordinates("95,10") == nil)
        let http = HTTPClient(configuration: HTTPConfiguration())
        let live = LibraryRegistry(url: URL(string: "https://registry.example/libraries")!, http: http).root
        #expect(live.base.absoluteString == "https://registry.example" && !live.qa)
        let qa = LibraryRegistry(url: URL(string: "https://registry.example/libraries/qa/")!, http: http).root
        #expect(qa.base.absoluteString == "https://registry.example" && qa.qa)
    }
}
