import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// `shelf library find` over a library registry (the demo's, shaped as Palace's registry writes it), and
/// `shelf library add NAME --from-registry N`: from a library's name to a signed-in sync and a download.
@Suite(.serialized, .timeLimit(.minutes(5))) struct LibraryFindCLITests {
    /// A demo library with its registry, and a home with no library yet.
    final class Fixture: @unchecked Sendable {
        let server: DemoLibraryServer
        let url: URL
        let shelf = ShelfRunner()
        var registry: String { url.absoluteString + "registry/libraries" }

        init() async throws {
            server = DemoLibraryServer(configuration: DemoConfiguration())
            url = try await server.start()
        }

        func finish() async {
            await server.stop()
            shelf.cleanUp()
        }

        static func with(_ body: (Fixture) async throws -> Void) async throws {
            try await finishing(try await Fixture(), { await $0.finish() }, body)
        }
    }

    @Test func findListsEachLibraryWithItsCatalogAndSignInAndAddTakesItToADownload() async throws {
        try await Fixture.with { fixture in
            let all = try await fixture.shelf.run(["library", "find", "--registry", fixture.registry])
            #expect(all.status == 0, "\(all.stderr)")
            #expect(all.stdout.hasPrefix("5 libraries in \(fixture.registry):"), "\(all.stdout)")
            // Sorted by name as the registry sorts them; each with its catalog, sign-in methods and id.
            let names = DemoBranch.all.map(\.name).sorted()
            let positions = names.compactMap { all.stdout.range(of: $0)?.lowerBound }
            #expect(positions.count == 5 && positions == positions.sorted(), "\(all.stdout)")
            #expect(all.stdout.contains("catalog  \(fixture.url.absoluteString)\n"))
            #expect(all.stdout.contains("sign-in  library card and PIN\n"))
            #expect(all.stdout.contains("sign-in  not known: its Authentication document answered 404"))
            #expect(all.stdout.contains("id       urn:uuid:5e1f0000-0000-4000-8000-000000000001"))
            // The first library whose sign-in shelf can use (Hilltop's OAuth) is the one suggested.
            #expect(all.stdout.hasSuffix("Add one: shelf library add NAME --from-registry 1\n"), "\(all.stdout)")
            #expect(all.stdout.contains("sign-in  OAuth, implicit grant; OAuth, password grant\n"))

            // --json: the same libraries, with what was read of their sign-in.
            let json = try await fixture.shelf.run(["library", "find", "--registry", fixture.registry, "--json"])
            let libraries = try JSONDecoder().decode([RegistryLibrary].self, from: Data(json.stdout.utf8))
            let demo = try #require(libraries.first { $0.name == "Shelf Demo Library" })
            #expect(demo.catalogURL == fixture.url.absoluteString)
            #expect(demo.authenticationURL == fixture.url.absoluteString + "authentication_document")
            #expect(demo.signInUsable == true && demo.areaServed == "Springfield, IL" && demo.help == "mailto:help@example.org")
            let riverside = try #require(libraries.first { $0.name == "Riverside University Library" })
            #expect(riverside.signIn == ["SAML single sign-on (Riverside University, Riverside Alumni Association)"])

            // Found by name, then added by its number in that list.
            let found = try await fixture.shelf.run(["library", "find", "shelf demo", "--registry", fixture.registry])
            #expect(found.stdout.hasPrefix("1 library in") && found.stdout.contains("1  Shelf Demo Library"), "\(found.stdout)")
            let add = try await fixture.shelf.run(["library", "add", "mine", "--from-registry", "1"])
            #expect(add.status == 0, "\(add.stderr)")
            #expect(add.stdout.hasPrefix("Shelf Demo Library, from the library registry.\n"), "\(add.stdout)")
            #expect(add.stdout.contains("sign-in: Authentication for OPDS (basic, basic token)"))
            let store = try Store(home: Home(directory: fixture.shelf.home))
            let library = try store.library(named: "mine")
            #expect(library.url == fixture.url.absoluteString)
            #expect(library.authDocumentURL == fixture.url.absoluteString + "authentication_document")

            // What `add` advises, then a signed-in sync and a download.
            try await fixture.server.state.prepareAudio()
            let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
            #expect(login.status == 0, "\(login.stderr)")
            let sync = try await fixture.shelf.run(["sync", "--no-download"])
            #expect(sync.status == 0 && sync.stdout.contains("2 loans"), "\(sync.stdout)\(sync.stderr)")
            let download = try await fixture.shelf.run(["download", "7d3c0002"])
            #expect(download.status == 0 && download.stdout.contains("Downloaded"), "\(download.stdout)\(download.stderr)")
        }
    }

    @Test func nearAPointListsTheNearestWithinReachAndNearAPlaceSearchesItsName() async throws {
        try await Fixture.with { fixture in
            // Springfield, IL: the demo library and Old Mill are within 150 km; Springfield, MO is not.
            let near = try await fixture.shelf.run(["library", "find", "--near", "39.79,-89.65", "--registry", fixture.registry, "--json"])
            let close = try JSONDecoder().decode([RegistryLibrary].self, from: Data(near.stdout.utf8))
            #expect(close.map(\.name) == ["Shelf Demo Library", "Old Mill Library"], "\(near.stdout)")
            #expect(close.map(\.distance) == ["0 km.", "1 km."])
            let place = try await fixture.shelf.run(["library", "find", "--near", "Springfield", "--registry", fixture.registry, "--json"])
            let named = try JSONDecoder().decode([RegistryLibrary].self, from: Data(place.stdout.utf8))
            #expect(Set(named.map(\.name)) == ["Shelf Demo Library", "Old Mill Library", "Hilltop Reading Room"])
            let none = try await fixture.shelf.run(["library", "find", "atlantis", "--registry", fixture.registry])
            #expect(none.status == 0 && none.stdout == "No library found for \"atlantis\" in \(fixture.registry).\n")
            // By its registry id, without a find first.
            let added = try await fixture.shelf.run([
                "library", "add", "college", "--from-registry", "5e1f0000-0000-4000-8000-000000000003", "--registry", fixture.registry,
            ])
            #expect(added.status == 0 && added.stdout.hasPrefix("Lakeside College Library, from the library registry."), "\(added.stderr)")
        }
    }

    @Test func aRegistryKeptForTheHomeIsAskedUntilReset() async throws {
        try await Fixture.with { fixture in
            let shown = try await fixture.shelf.run(["library", "registry"])
            #expect(shown.stdout == "Library registry: \(LibraryRegistry.defaultURL.absoluteString) (the Palace registry)\n")
            let set = try await fixture.shelf.run(["library", "registry", fixture.registry])
            #expect(set.stdout == "Library registry: \(fixture.registry)\n")
            let found = try await fixture.shelf.run(["library", "find", "riverside"])
            #expect(found.status == 0 && found.stdout.contains("Riverside University Library"), "\(found.stderr)")
            let reset = try await fixture.shelf.run(["library", "registry", "--reset"])
            #expect(reset.stdout.hasSuffix("(the Palace registry)\n"))
        }
    }

    @Test func aRegistryThatIsDownOrAnswersSomethingElseIsOneLineAndNothingIsKept() async throws {
        try await Fixture.with { fixture in
            // Nothing listens on the port a stopped server had.
            let stopped = DemoLibraryServer(configuration: DemoConfiguration())
            let gone = try await stopped.start()
            await stopped.stop()
            let down = try await fixture.shelf.run(["library", "find", "--registry", gone.absoluteString + "registry/libraries"])
            #expect(down.status == ShelfExit.offline.rawValue)
            #expect(down.stderr.hasPrefix("shelf: the library registry \(gone.absoluteString)registry/libraries could not be reached"),
                    "\(down.stderr)")
            #expect(down.stderr.split(separator: "\n").count == 1)
            // An HTML page (the demo's root is Atom; its captive portal is HTML): not a list of libraries.
            await fixture.server.state.updateSwitches { $0.pages[1] = PageFaults(html: true) }
            let html = try await fixture.shelf.run(["library", "find", "--registry", fixture.url.absoluteString + "crawlable"])
            #expect(html.status == ShelfExit.registryFailed.rawValue)
            #expect(html.stderr.contains("did not answer with libraries: its answer is an HTML page"), "\(html.stderr)")
            // JSON that is no registry's: the authentication document.
            let other = try await fixture.shelf.run(["library", "find", "--registry", fixture.url.absoluteString + "authentication_document"])
            #expect(other.status == ShelfExit.registryFailed.rawValue && other.stderr.contains("no catalogs"), "\(other.stderr)")
            // A 404.
            let missing = try await fixture.shelf.run(["library", "find", "--registry", fixture.url.absoluteString + "nowhere/libraries"])
            #expect(missing.status == ShelfExit.registryFailed.rawValue && missing.stderr.contains("it answered 404"), "\(missing.stderr)")
            // A number no find listed.
            let wrong = try await fixture.shelf.run(["library", "add", "x", "--from-registry", "3"])
            #expect(wrong.status == ShelfExit.notFound.rawValue)
            #expect(wrong.stderr == "shelf: no library numbered 3 in the last `shelf library find`; run it again and use a number or id it lists\n")
            let store = try Store(home: Home(directory: fixture.shelf.home))
            #expect(try store.libraries().isEmpty)
        }
    }
}
