import Foundation
import ShelfCore
import ShelfPlayback
import Testing

/// The whole path a patron takes with calibre's content server behind HTTP Basic: from the root URL to listening to
/// an mp3 and an ogg with the chapters inside them, and to one m4b of each for any other player.
@Suite(.serialized, .enabled(if: CalibreServer.isInstalled, CalibreServer.skipMessage), .timeLimit(.minutes(5)))
struct CalibrePatronCLITests {
    @Test func fromTheRootURLToListeningAndExportingBehindASignIn() async throws {
        let server = try await CalibreServer.start(auth: .basic)
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        do {
            try await walk(server, shelf)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func walk(_ server: CalibreServer, _ shelf: ShelfRunner) async throws {
        let disk = ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": shelf.home.appendingPathComponent("out.raw").path]
        func signIn(_ password: String) async throws {
            let login = try await shelf.run(
                ["login", "cal", "--username", CalibreServer.username, "--password-stdin"], input: password + "\n")
            #expect(login.status == 0, "\(login.stderr)")
        }

        // add → login → sync from the root.
        let added = try await shelf.run(["library", "add", "cal", server.url.absoluteString])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasSuffix("Next: shelf login cal\n"), "\(added.stdout)")
        try await signIn(CalibreServer.password)
        let sync = try await shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout == "\(CalibreServer.books.count) new, 0 updated, 0 removed\n")

        // browse → search.
        let root = try await shelf.json(CatalogPage.self, ["browse"])
        #expect(root.navigation.map(\.title).prefix(3) == ["By Newest", "By Title", "By Authors"])
        let newest = try await shelf.json(CatalogPage.self, ["browse", "1"])
        #expect(Set(newest.publications.map(\.title)) == Set(CalibreServer.books.map(\.title)))
        let keeper = try #require(try await shelf.json(SearchResults.self, ["search", "keeper"]).publications.first)
        #expect(keeper.title == "The Lighthouse Keeper")
        let tides = try #require(try await shelf.json(SearchResults.self, ["search", "tides"]).publications.first)
        #expect(tides.title == "Tides")

        // download → listen to the mp3: its ID3 chapters, in order, to the end.
        let download = try await shelf.run(["download", keeper.shortID])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("Downloaded The Lighthouse Keeper: 1 part"), "\(download.stdout)")
        let listen = try await shelf.run(["listen", keeper.shortID, "--no-ui"], environment: disk)
        #expect(listen.status == 0, "\(listen.stderr)")
        let lines = listen.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Playing The Lighthouse Keeper at 0:00 of 0:06, 1.0× speed.", "\(lines)")
        #expect(lines.filter { $0.contains(" of 3) at ") } == [
            "The Storm (2 of 3) at 0:02.", "Morning (3 of 3) at 0:04.",
        ], "\(lines)")
        #expect(lines.last == "Finished The Lighthouse Keeper.")
        let show = try await shelf.run(["show", keeper.shortID])
        for (index, title) in CalibreServer.keeperChapters.enumerated() {
            #expect(show.stdout.contains("  \(index + 1)  0:0\(index * 2)  \(title)"), "\(show.stdout)")
        }

        // The password changes on the server: the next download says so, erases it, and asks to sign in again.
        try await server.changePassword(to: "changed pass")
        let refused = try await shelf.run(["download", tides.shortID])
        #expect(refused.status == ShelfExit.notPermitted.rawValue, "\(refused.stderr)")
        #expect(refused.stderr
            == "shelf: cal no longer accepts the stored user name and password; they were erased: run `shelf login cal`\n")
        #expect(try await shelf.run(["show", tides.shortID]).stdout.contains("State         New"))
        try await signIn("changed pass")

        // The ogg: its chapter comments, started from the second.
        let tidesDownload = try await shelf.run(["download", tides.shortID])
        #expect(tidesDownload.status == 0, "\(tidesDownload.stderr)")
        let tidesListen = try await shelf.run(["listen", tides.shortID, "--no-ui", "--chapter", "2"], environment: disk)
        #expect(tidesListen.status == 0, "\(tidesListen.stderr)")
        #expect(tidesListen.stdout.hasPrefix("Playing Tides at 0:03 of 0:06"), "\(tidesListen.stdout)")
        #expect(tidesListen.stdout.contains("Finished Tides."))

        // export: one m4b each, with the chapters the files carry.
        for (book, chapters, method) in [
            (keeper, CalibreServer.keeperChapters, M4BExport.Method.encoded),
            (tides, CalibreServer.tidesChapters, .encoded),
        ] {
            let out = shelf.home.appendingPathComponent("\(book.shortID).m4b")
            let export = try await shelf.run(["export", book.shortID, "--m4b", out.path, "--json", "--no-cover"])
            #expect(export.status == 0, "\(export.stderr)")
            let result = try JSONDecoder().decode(M4BExport.self, from: Data(export.stdout.utf8))
            #expect(result.method == method)
            let probe = try FFprobe.read(out)
            #expect(probe.chapterTitles == chapters)
            #expect(abs(probe.duration - 6) < 0.2, "\(probe.duration)")
            #expect(probe.tags["title"] == book.title)
        }
    }
}
