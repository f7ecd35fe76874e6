import Foundation
import ShelfCore
import Testing

/// Codex, a real OPDS 2 server written by others: shelf signs in to it (its 401 carries the authentication
/// document as plain JSON, and its catalog itself is behind the sign-in), syncs its comics, and reads and writes a
/// publication's Readium progression document through its progression client; Codex's own API reads back what
/// shelf put, and shelf reads what was set through it.
@Suite(.serialized, .enabled(if: CodexServer.isInstalled, CodexServer.skipMessage), .timeLimit(.minutes(10)))
struct CodexProgressionTests {
    @Test func aProgressionRoundTripsBetweenShelfAndCodex() async throws {
        let codex = try await CodexServer.start()
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        do {
            try await roundTrip(codex, shelf)
        } catch {
            await codex.stop()
            throw error
        }
        await codex.stop()
    }

    private func roundTrip(_ codex: CodexServer, _ shelf: ShelfRunner) async throws {
        let added = try await shelf.run(["library", "add", "codex", codex["OPDS_V2_START_URL"]])
        #expect(added.status == 0, "\(added.stderr)")
        let login = try await shelf.run(["login", "codex", "--username", codex["USERNAME"], "--password-stdin"],
                                        input: codex["PASSWORD"] + "\n")
        #expect(login.status == 0 && login.stdout.hasPrefix("Signed in to codex"), "\(login.stdout)\(login.stderr)")
        let sync = try await shelf.run(["sync", "--no-download"])
        #expect(sync.status == 0 && sync.stdout.contains("2 new"), "\(sync.stdout)\(sync.stderr)")

        // The comic's progression link, as the sync stored it from Codex's feed.
        let home = Home(directory: shelf.home)
        let store = try Store(home: home)
        let library = try store.library(named: "codex")
        let comic = try store.resolveEdition("1/1", in: library)
        let link = try #require(try store.edition(comic).links.first {
            RemoteProgression.isProgression(rel: $0.rel, type: $0.type)
        })
        #expect(link.href == codex["COMIC_PROGRESSION_URL"] && link.rel == "http://www.cantook.com/api/progression")
        let url = try #require(URL(string: link.href))
        let client = ProgressionClient(
            session: try LibrarySession(library: library, credentialStore: CredentialStore(home: home),
                                        configuration: HTTPConfiguration()),
            libraryName: library.name)
        let pk = codex["COMIC_PK"]
        #expect(try client.get(url) == .none, "nothing read yet")

        // shelf puts the second page (position 2); Codex's own API reads page 1 (it counts from 0). Codex writes a
        // PUT in the background, within about 4 s: waited for, not timed.
        let put = try client.put(url, document: RemoteProgression.document(
            modified: Date(), device: try store.deviceID(), deviceName: Store.thisComputer, href: "page-2", type: nil,
            title: nil, part: 1, seconds: 0, partProgression: nil, totalProgression: 0.5))
        #expect(put == 200)
        let page = try await eventually(every: .milliseconds(250)) { try await codex.page(ofComic: pk) == 1 ? 1 : nil }
        #expect(page == 1, "Codex's API does not show the page shelf put")
        guard case .progression(let read) = try client.get(url) else { Issue.record("no progression"); return }
        #expect(read.position == 2 && read.deviceID == nil)

        // The reverse: the third page set through Codex's own API, read by shelf's client.
        let (status, _) = try await codex.api("/api/v3/c/\(pk)/bookmark", method: "PATCH", json: #"{"page": 2}"#)
        #expect(status == 200)
        let third = try await eventually(every: .milliseconds(250)) { () -> RemoteProgression? in
            guard case .progression(let read) = try client.get(url), read.position == 3 else { return nil }
            return read
        }
        #expect(third?.position == 3 && third?.progression != nil)
        let setAt = try #require(third).modified

        // A stale `modified` (an hour before the document's): the Progression draft answers 409, and so does the
        // demo library. Codex 1.9.24 drops `modified` before its check and takes it (200): what shelf sees is kept
        // consistent either way, and shelf itself never puts without reading first (PositionMergeTests).
        let stale = try client.put(url, document: RemoteProgression.document(
            modified: setAt.addingTimeInterval(-3_600), device: try store.deviceID(), deviceName: Store.thisComputer,
            href: "page-1", type: nil, title: nil, part: 0, seconds: 0, partProgression: nil, totalProgression: 0))
        #expect(stale == 200 || stale == 409, "\(stale)")
        let expected = stale == 409 ? 2 : 0
        let after = try await eventually(every: .milliseconds(250)) { try await codex.page(ofComic: pk) == expected ? expected : nil }
        #expect(after == expected, "after a stale put answered \(stale), Codex's page is not \(expected)")
    }
}
