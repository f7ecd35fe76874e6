import DemoLibrary
import Foundation
import ShelfCore
import Testing

extension ShelfRunner {
    /// Runs a command that prints JSON, and decodes it.
    func json<T: Decodable>(_ type: T.Type, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> T
    {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder.iso.decode(T.self, from: Data(result.stdout.utf8))
    }
}

/// `shelf browse` and `shelf search` against the demo library, which serves its start page as Palace does: a
/// groups feed of lanes with entry-point facets, lane feeds with sort and availability facets, OpenSearch.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BrowseCLITests {
    @Test func theStartPageListsLanesAndFacetsWithTheActiveOneMarked() async throws {
        let fixture = try await CLIFixture()
        let text = try await fixture.shelf.run(["browse"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Shelf Demo Library")
        #expect(lines.contains("Lanes") && lines.contains("Facets") && lines.contains("  Formats"))
        #expect(lines.contains("   1  Classics"))
        #expect(lines.contains("     6  All  (current)"))
        #expect(lines.contains("     8  Audiobooks"))
        #expect(lines.last == "Go on: shelf browse N")

        let page = try await fixture.shelf.json(CatalogPage.self, ["browse"])
        #expect(page.path == "" && page.page == 1 && page.hasSearch && page.navigation.isEmpty && page.publications.isEmpty)
        #expect(page.lanes.map(\.item.title) == ["Classics", "Adventure", "Fantasy", "Historical Fiction", "Science Fiction"])
        #expect(page.lanes.map(\.item.number) == [1, 2, 3, 4, 5])
        #expect(page.lanes.allSatisfy { $0.item.kind == .lane && (1...3).contains($0.publications.count) })
        #expect(page.facets.map(\.title) == ["All", "eBooks", "Audiobooks"])
        #expect(page.facets.map(\.number) == [6, 7, 8])
        #expect(page.facets.filter(\.active).map(\.title) == ["All"])
        #expect(page.facets.allSatisfy { $0.group == "Formats" && $0.kind == .facet })

        // A facet followed by its title: the start page again, audiobooks only, its facet now the active one.
        let audio = try await fixture.shelf.json(CatalogPage.self, ["browse", "audiobooks"])
        #expect(audio.path == "8")
        #expect(audio.facets.filter(\.active).map(\.title) == ["Audiobooks"])
        let audioBooks = audio.lanes.flatMap(\.publications)
        #expect(!audioBooks.isEmpty && audioBooks.allSatisfy { $0.medium == "audiobook" })
        #expect(page.lanes.flatMap(\.publications).contains { $0.medium == "ebook" })
        await fixture.finish()
    }

    @Test func aLaneHasPagesAndFacetsOfItsOwn() async throws {
        let fixture = try await CLIFixture()
        let classics = await fixture.server.state.catalog.titles.filter { $0.categories.contains("Classics") && !$0.draft }
        let lane = try await fixture.shelf.json(CatalogPage.self, ["browse", "1"])
        #expect(lane.title == "Classics" && lane.path == "1" && lane.lanes.isEmpty)
        #expect(lane.publications.count == DemoState.browsePageSize)
        #expect(lane.next != nil)
        #expect(lane.facets.map(\.group) == ["Sort by", "Sort by", "Availability", "Availability"])
        #expect(lane.facets.filter(\.active).map(\.title) == ["Title", "All"])

        let pages = (classics.count + DemoState.browsePageSize - 1) / DemoState.browsePageSize
        let last = try await fixture.shelf.json(CatalogPage.self, ["browse", "Classics", "--page", "\(pages)"])
        #expect(last.page == pages && last.next == nil)
        var ids = lane.publications.map(\.id)
        for number in 2...pages {
            ids += try await fixture.shelf.json(CatalogPage.self, ["browse", "1", "--page", "\(number)"]).publications.map(\.id)
        }
        #expect(Set(ids) == Set(classics.map(\.id)) && ids.count == classics.count)
        let text = try await fixture.shelf.run(["browse", "1"])
        #expect(text.stdout.contains("More: shelf browse 1 --page 2"))
        #expect(text.stdout.contains("ID        TITLE"))
        #expect(text.stdout.contains("     1  Title  (current)"))

        // Another facet: only what can be had now.
        let now = try await fixture.shelf.json(CatalogPage.self, ["browse", "classics/available now"])
        #expect(now.path == "1/3")
        #expect(now.facets.filter(\.active).map(\.title) == ["Title", "Available now"])
        #expect(!now.publications.isEmpty && now.publications.allSatisfy(\.isAvailableNow))

        let beyond = try await fixture.shelf.run(["browse", "1", "--page", "\(pages + 1)"])
        #expect(beyond.status == 64)
        #expect(beyond.stderr == "shelf: browse path 1 has \(pages) pages, not \(pages + 1)\n")
        let missing = try await fixture.shelf.run(["browse", "1/9"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("browse path 1 has no item '9' (items 1 to 4"))
        let ambiguous = try await fixture.shelf.run(["browse", "1/a"])
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr.contains("'a' matches 3 items"))
        await fixture.finish()
    }

    @Test func whatBrowseShowsCanBeActedOnAtOnceAndASyncAdoptsIt() async throws {
        let fixture = try await CLIFixture()
        let page = try await fixture.shelf.json(CatalogPage.self, ["browse"])
        let free = try #require(page.lanes.flatMap(\.publications).first { $0.entitlement == .free && $0.medium == "audiobook" })
        #expect(free.foundBy == .browse && !free.inCatalog)
        let show = try await fixture.shelf.run(["show", free.shortID])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("Found         by shelf browse"))
        // Not in `list` until acted on…
        #expect(try await fixture.shelf.run(["list"]).stdout == "Nothing yet: run `shelf sync`.\n")
        try await fixture.server.state.prepareAudio()
        let download = try await fixture.shelf.run(["download", free.shortID])
        #expect(download.status == 0, "\(download.stderr)")
        let listed = try await fixture.shelf.run(["list"])
        #expect(listed.stdout.contains(free.title) && !listed.stdout.contains("(removed)"))

        // A sync finds every title in the catalog: those browse found are new to the catalog, and kept.
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.stdout == "27 new, 0 updated, 0 removed\n")
        let after = try await fixture.shelf.json([EditionSummary].self, ["list", "--full"])
        #expect(after.count == 27 && after.allSatisfy { $0.inCatalog && $0.foundBy == nil })
        #expect(after.first { $0.id == free.id }?.state == .downloaded)
        await fixture.finish()
    }

    @Test func browseTakesURLsOfTheLibrarysOwnCatalogOnly() async throws {
        let fixture = try await CLIFixture()
        let lane = fixture.url.absoluteString + "lanes/classics?order=author&available=all"
        let page = try await fixture.shelf.json(CatalogPage.self, ["browse", lane])
        #expect(page.title == "Classics" && page.path == lane)
        #expect(page.facets.filter(\.active).map(\.title) == ["Author", "All"])
        let text = try await fixture.shelf.run(["browse", lane])
        #expect(text.stdout.contains("More: shelf browse '\(lane)' --page 2"))
        // Another port is another server: refused before anything is sent.
        let other = try await fixture.shelf.run(["browse", "http://127.0.0.1:1/opds"])
        #expect(other.status == 64)
        #expect(other.stderr.hasPrefix("shelf: http://127.0.0.1:1/opds is not on the library's host (127.0.0.1)"))
        await fixture.finish()
    }

    @Test func searchReadsTheOpenSearchDescriptionAndEveryResultPage() async throws {
        // The patron starts with nothing on loan, so any title with a copy free can be borrowed.
        let fixture = try await CLIFixture(configuration: DemoConfiguration(startingShelf: false))
        let titles = await fixture.server.state.catalog.titles.filter { !$0.draft }
        func matching(_ word: String) -> [DemoTitle] {
            titles.filter { title in
                ([title.title, title.subtitle ?? ""] + title.authors + title.narrators).joined(separator: " ")
                    .range(of: word, options: [.caseInsensitive, .diacriticInsensitive]) != nil
            }
        }
        let wells = try await fixture.shelf.json(SearchResults.self, ["search", "h. g.", "wells"])
        #expect(Set(wells.publications.map(\.id)) == Set(matching("wells").map(\.id)))
        #expect(wells.pages == 1 && !wells.more && wells.terms == "h. g. wells")
        #expect(wells.url == fixture.url.absoluteString + "search?q=h.%20g.%20wells")
        #expect(wells.publications.allSatisfy { $0.foundBy == .search })

        // Many results: every page followed.
        let the = try await fixture.shelf.json(SearchResults.self, ["search", "the"])
        #expect(the.publications.map(\.id) == matching("the").map(\.id))
        #expect(the.pages == (matching("the").count + DemoState.browsePageSize - 1) / DemoState.browsePageSize)
        #expect(the.pages > 1)
        let available = try await fixture.shelf.json(SearchResults.self, ["search", "the", "--available"])
        #expect(available.publications.allSatisfy(\.isAvailableNow) && available.unavailable > 0)
        #expect(available.publications.count + available.unavailable == the.publications.count)
        let text = try await fixture.shelf.run(["search", "the", "--available"])
        #expect(text.stdout.hasSuffix("\(available.unavailable) not available now left out\n"))

        // A result is borrowed by its id, without a sync, and is the patron's from then on.
        let borrowable = try #require(the.publications.first { $0.actions.contains(.borrow) })
        _ = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        let borrow = try await fixture.shelf.run(["borrow", borrowable.shortID])
        #expect(borrow.status == 0, "\(borrow.stderr)")
        #expect(borrow.stdout.hasPrefix("Borrowed \(borrowable.title)."))
        let listed = try await fixture.shelf.json([EditionSummary].self, ["list", "--full"])
        #expect(listed.map(\.id) == [borrowable.id])

        let none = try await fixture.shelf.run(["search", "zzzz"])
        #expect(none.status == 0 && none.stdout == "No titles match \"zzzz\".\n")
        let noneJSON = try await fixture.shelf.json(SearchResults.self, ["search", "zzzz"])
        #expect(noneJSON.publications.isEmpty && noneJSON.pages == 1)
        let blank = try await fixture.shelf.run(["search", " "])
        #expect(blank.status == 64)
        await fixture.finish()
    }

    @Test func aLibraryWithoutSearchSaysSo() async throws {
        let fixture = try await CLIFixture()
        let added = try await fixture.shelf.run(["library", "add", "plain", fixture.url.absoluteString + "crawlable"])
        #expect(added.status == 0)
        let search = try await fixture.shelf.run(["search", "dickens", "--library", "plain"])
        #expect(search.status == 91)
        #expect(search.stdout.isEmpty)
        #expect(search.stderr == "shelf: the library 'plain' offers no search (its catalog has no search link); "
            + "browse it with `shelf browse`\n")
        await fixture.finish()
    }
}
