import DemoLibrary
import Foundation
import Testing

/// What the demo serves for browsing, in Palace's markup: a groups start page, lane feeds with facets, and
/// search through an OpenSearch description.
@Suite(.timeLimit(.minutes(5))) struct BrowseFeedTests {
    @Test func theStartPageIsAGroupsFeedWithEntryPointFacetsAndSearch() async throws {
        try await withServer { _, url in
            let root = try await HTTPTestClient.get(url)
            // Every featured entry names its lane, as Palace's groups feeds do.
            let entries = root.text.components(separatedBy: "<entry").count - 1
            let collections = root.text.components(separatedBy: #"rel="collection" title=""#).count - 1
            #expect(entries > 0 && collections == entries)
            #expect(root.text.contains(#"<link href="\#(url.absoluteString)lanes/classics?order=title&amp;available=all" rel="collection" title="Classics"/>"#))
            #expect(root.text.contains(#"<link href="\#(url.absoluteString)" rel="http://opds-spec.org/facet" title="All" opds:facetGroup="Formats" opds:activeFacet="true"/>"#))
            #expect(root.text.contains(#"<link href="\#(url.absoluteString)search" rel="search" type="application/opensearchdescription+xml"/>"#))
            let audio = try await HTTPTestClient.get(url.path("?entrypoint=Audio"))
            #expect(audio.text.contains(#"title="Audiobooks" opds:facetGroup="Formats" opds:activeFacet="true""#))
            #expect(!audio.text.contains("http://schema.org/EBook"))
        }
    }

    @Test func laneFeedsPageAndFacetTheirWorks() async throws {
        try await withServer { _, url in
            let first = try await HTTPTestClient.get(url.path("lanes/classics"))
            #expect(first.status == 200)
            let feed = try AtomSummary.parse(first.body)
            #expect(feed.entryIDs.count == 5)
            #expect(feed.link("next") == url.absoluteString + "lanes/classics?order=title&available=all&page=2")
            #expect(first.text.contains(#"title="Author" opds:facetGroup="Sort by"/>"#))
            #expect(first.text.contains(#"title="All" opds:facetGroup="Availability" opds:activeFacet="true"/>"#))
            let now = try AtomSummary.parse(try await HTTPTestClient.get(url.path("lanes/classics?available=now")).body)
            #expect(!now.availabilityStatuses.contains("unavailable"))
            #expect(try await HTTPTestClient.get(url.path("lanes/poetry")).status == 404)
            #expect(try await HTTPTestClient.get(url.path("lanes/classics?page=9")).status == 404)
        }
    }

    @Test func searchAnswersWithItsDescriptionThenResults() async throws {
        try await withServer { _, url in
            let description = try await HTTPTestClient.get(url.path("search"))
            #expect(description.header("Content-Type") == "application/opensearchdescription+xml")
            #expect(description.text.contains(#"template="\#(url.absoluteString)search?q={searchTerms}&amp;page={startPage?}""#))
            let results = try AtomSummary.parse(try await HTTPTestClient.get(url.path("search?q=Wells%20time")).body)
            #expect(results.entryTitles == ["The Time Machine"])
            let none = try await HTTPTestClient.get(url.path("search?q=zzzz"))
            #expect(none.status == 200)
            #expect(try AtomSummary.parse(none.body).entryIDs.isEmpty)
        }
    }
}
