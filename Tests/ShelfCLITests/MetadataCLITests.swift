import DemoLibrary
import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// Duration and series in `show`, `list --json` and `list --series`; an OPDS 2 catalog from the command line.
@Suite(.serialized, .timeLimit(.minutes(5))) struct MetadataCLITests {
    @Test func listFiltersBySeriesAndCarriesDurationAndSeriesInJSON() async throws {
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])

        let holmes = try await fixture.shelf.run(["list", "--series", "SHERLOCK holmes"])
        #expect(holmes.status == 0, "\(holmes.stderr)")
        let lines = holmes.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].hasPrefix("ID"))
        #expect(lines[1].contains("The Adventures of Sherlock Holmes") && lines[2].contains("The Hound of the Baskervilles"))

        let none = try await fixture.shelf.run(["list", "--series", "Discworld"])
        #expect(none.status == 0 && none.stdout == "No titles match.\n")
        let empty = try await fixture.shelf.run(["list", "--series", " "])
        #expect(empty.status == ShelfExit.usage.rawValue && empty.stderr.contains("--series needs a series name"))

        let json = try await fixture.shelf.run(["list", "--json", "--full", "--series", "sherlock holmes"])
        let editions = try JSONDecoder.iso.decode([EditionSummary].self, from: Data(json.stdout.utf8))
        #expect(editions.map(\.series?.position) == ["3", "5"])
        #expect(editions.map(\.duration) == [37_080, 22_320])
        // A title without them has neither key, so its JSON is what it was.
        let all = try await fixture.shelf.run(["list", "--json", "--full"])
        let frankenstein = try #require(all.stdout.components(separatedBy: "\n  {").first { $0.contains("\"Frankenstein\"") })
        #expect(!frankenstein.contains("\"duration\"") && !frankenstein.contains("\"series\""))
        #expect(all.stdout.contains("\"duration\" : 37080"))

        let show = try await fixture.shelf.run(["show", "7d3c0014"])
        #expect(show.stdout.contains("Duration      6:12:00\n"))
        #expect(show.stdout.contains("Series        Sherlock Holmes, book 5\n"))
        await fixture.finish()
    }

    @Test func aContributorWithoutARoleIsShownByNameAlone() {
        #expect(DetailPrinter.people([Contributor(name: "mgylling"), Contributor(name: "Ann", roles: ["ill", "trl"])])
            == "mgylling, Ann (ill, trl)")
    }

    @Test func anOPDS2CatalogFromTheCommandLine() async throws {
        let fixture = try await CLIFixture()
        let add = try await fixture.shelf.run(["library", "add", "json", fixture.url.appendingPathComponent("opds2/").absoluteString])
        #expect(add.status == 0, "\(add.stderr)")
        let sync = try await fixture.shelf.run(["sync", "--library", "json"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout == "27 new, 0 updated, 0 removed\n")
        let list = try await fixture.shelf.run(["list", "--library", "json"])
        #expect(list.stdout.split(separator: "\n").count == 28)
        let show = try await fixture.shelf.run(["show", "--library", "json", "7d3c0002"])
        #expect(show.stdout.contains("Series        Sherlock Holmes, book 3\n"))
        #expect(show.stdout.contains("read by Thomas Whitcombe"))
        await fixture.finish()
    }

    @Test func aSignInDocumentAddedAsTheCatalogSaysSoAndStoresNothing() async throws {
        let fixture = try await CLIFixture()
        let url = fixture.url.appendingPathComponent("authentication_document").absoluteString
        let add = try await fixture.shelf.run(["library", "add", "auth", url])
        #expect(add.status == ShelfExit.notACatalog.rawValue)
        #expect(add.stderr.contains("is JSON but not an OPDS catalog (it is an Authentication for OPDS document, not a feed)"))
        #expect(try await fixture.shelf.run(["library", "add", "--no-check", "auth", url]).status == 0)
        let sync = try await fixture.shelf.run(["sync", "--library", "auth"])
        #expect(sync.status == ShelfExit.badData.rawValue)
        #expect(sync.stderr.contains("the URL is the library's sign-in document, not a catalog feed; add the catalog's own URL"))
        #expect(!sync.stderr.contains("XML"))
        #expect(sync.stderr.split(separator: "\n").count == 1)
        let list = try await fixture.shelf.run(["list", "--library", "auth"])
        #expect(list.stdout == "Nothing yet: run `shelf sync`.\n")
        await fixture.finish()
    }
}
