@testable import DemoLibrary
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct FulfilmentTests {
    @Test func fulfilTokenManifestAndPartsByteForByte() async throws {
        try await withServer { _, url in
            let raw = try await HTTPTestClient.get(url.path("works/\(Works.onLoan)/fulfill"), headers: basic())
            #expect(raw.status == 200)
            #expect(raw.header("Content-Type") == "application/vnd.librarysimplified.bearer-token+json")
            let token = try decode(BearerTokenDocument.self, raw)
            #expect(token.token_type == "Bearer")
            #expect(token.expires_in == 3_600)
            #expect(token.location == url.absoluteString + "manifests/" + Works.onLoan)

            let response = try await HTTPTestClient.get(URL(string: token.location)!,
                                                        headers: ["Authorization": "Bearer \(token.access_token)"])
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/audiobook+json")
            let manifest = try decode(ManifestDocument.self, response)
            #expect(manifest.metadata.identifier == Works.onLoan)
            #expect(manifest.metadata.title == "The Adventures of Sherlock Holmes")
            #expect(!manifest.metadata.author.isEmpty && !manifest.metadata.narrator.isEmpty)
            #expect(manifest.links.contains { $0.rel == "self" && $0.href == token.location })
            #expect((2...4).contains(manifest.readingOrder.count))
            let total = manifest.readingOrder.compactMap(\.duration).reduce(0, +)
            #expect(abs(total - manifest.metadata.duration) < 0.01)
            #expect(manifest.toc.first?.href.hasSuffix("#t=0") == true)
            #expect(manifest.toc[1].href == manifest.readingOrder[0].href + "#t=1")

            let recipes = DemoAudio.recipes(for: Works.onLoan, partCount: nil)
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-demo-audio")
            for (index, part) in manifest.readingOrder.enumerated() {
                #expect(part.type == "audio/mpeg")
                #expect(part.title == "Chapter \(index + 1)")
                #expect((1.5...5).contains(part.duration ?? 0))
                let href = URL(string: part.href)!
                #expect(href.path == "/audio/\(Works.onLoan)/\(index + 1).mp3")
                #expect(href.query?.hasPrefix("expires=") == true && href.query?.contains("&sig=") == true)
                let body = try await HTTPTestClient.get(href)
                #expect(body.status == 200)
                #expect(body.header("Content-Type") == "audio/mpeg")
                #expect(!body.cutShort)
                let file = try Data(contentsOf: cache.appendingPathComponent(recipes[index].fileName))
                #expect(body.body == Array(file))
            }
        }
    }

    @Test func fulfilNeedsSignInAndALoan() async throws {
        try await withServer { _, url in
            let anonymous = try await HTTPTestClient.get(url.path("works/\(Works.onLoan)/fulfill"))
            #expect(anonymous.status == 401)
            let notBorrowed = try await HTTPTestClient.get(url.path("works/\(Works.borrowable)/fulfill"), headers: basic())
            #expect(notBorrowed.status == 403)
            #expect(notBorrowed.header("Content-Type") == "application/api-problem+json")
            #expect(notBorrowed.text.contains("no-active-loan"))
            let otherPatron = try await HTTPTestClient.get(url.path("works/\(Works.onLoan)/fulfill"),
                                                           headers: basic("other", "5678"))
            #expect(otherPatron.status == 403)
            let ebook = try await HTTPTestClient.get(url.path("works/\(Works.ebook)/fulfill"), headers: basic())
            #expect(ebook.status == 404)
        }
    }

    @Test func manifestNeedsTheFulfilmentToken() async throws {
        try await withServer { _, url in
            let manifestURL = url.path("manifests/\(Works.onLoan)")
            let none = try await HTTPTestClient.get(manifestURL)
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try await HTTPTestClient.get(manifestURL, headers: basic()).status == 401)
            #expect(try await HTTPTestClient.get(manifestURL, headers: ["Authorization": "Bearer nonsense"]).status == 401)
            let token = try await fulfil(url, Works.onLoan)
            let elsewhere = try await HTTPTestClient.get(url.path("manifests/\(Works.borrowable)"),
                                                         headers: ["Authorization": "Bearer \(token.access_token)"])
            #expect(elsewhere.status == 403)
        }
    }

    @Test func fulfilmentTokenExpires() async throws {
        try await withServer(DemoConfiguration(fulfilmentTokenLifetime: 60)) { server, url in
            let token = try await fulfil(url, Works.onLoan)
            #expect(token.expires_in == 60)
            let bearer = ["Authorization": "Bearer \(token.access_token)"]
            #expect(try await HTTPTestClient.get(URL(string: token.location)!, headers: bearer).status == 200)
            await server.state.advanceClock(by: 61)
            let expired = try await HTTPTestClient.get(URL(string: token.location)!, headers: bearer)
            #expect(expired.status == 401)
            #expect(expired.text.contains("token/expired"))
            // A new token works again, until the switch expires it too.
            let fresh = try await fulfil(url, Works.onLoan)
            let freshBearer = ["Authorization": "Bearer \(fresh.access_token)"]
            #expect(try await HTTPTestClient.get(URL(string: fresh.location)!, headers: freshBearer).status == 200)
            await server.state.expireFulfilment()
            #expect(try await HTTPTestClient.get(URL(string: fresh.location)!, headers: freshBearer).status == 401)
        }
    }

    @Test func signedPartLinksExpireAndKeepTheirPath() async throws {
        try await withServer { server, url in
            let manifest = try await fulfilledManifest(url)
            let part = partURL(manifest, 1)
            #expect(try await HTTPTestClient.get(part).status == 200)
            let unsigned = URL(string: part.absoluteString.components(separatedBy: "?")[0])!
            #expect(try await HTTPTestClient.get(unsigned).status == 403)
            let tampered = URL(string: part.absoluteString.replacingOccurrences(of: "expires=", with: "expires=9"))!
            #expect(try await HTTPTestClient.get(tampered).status == 403)

            #expect(try await HTTPTestClient.post(url.path("_demo/fulfilment/expire"), json: "{}").status == 204)
            let expired = try await HTTPTestClient.get(part)
            #expect(expired.status == 410)
            #expect(expired.header("Content-Type") == "application/api-problem+json")

            let again = try await fulfilledManifest(url)
            let renewed = partURL(again, 1)
            #expect(renewed.path == part.path)
            #expect(renewed != part)
            #expect(try await HTTPTestClient.get(renewed).status == 200)
            await server.state.advanceClock(by: 3_601)
            #expect(try await HTTPTestClient.get(renewed).status == 410)
        }
    }

    @Test func openAccessManifestNeedsNoToken() async throws {
        try await withServer { _, url in
            let response = try await HTTPTestClient.get(url.path("works/\(Works.openAccess)/fulfill/open-access"))
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/audiobook+json")
            let manifest = try decode(ManifestDocument.self, response)
            #expect(manifest.metadata.identifier == Works.openAccess)
            #expect(try await HTTPTestClient.get(partURL(manifest, 1)).status == 200)
            let lent = try await HTTPTestClient.get(url.path("works/\(Works.onLoan)/fulfill/open-access"))
            #expect(lent.status == 404)
        }
    }

    @Test func packagedAudiobookIsAZipWithManifestAndParts() async throws {
        try await withServer { _, url in
            let entry = try await HTTPTestClient.get(url.path("works/\(Works.packaged)/borrow"), headers: basic())
            #expect(entry.status == 201)
            #expect(entry.text.contains("application/audiobook+zip"))
            let token = try await fulfil(url, Works.packaged)
            #expect(token.location == url.absoluteString + "packages/" + Works.packaged)
            let response = try await HTTPTestClient.get(URL(string: token.location)!,
                                                        headers: ["Authorization": "Bearer \(token.access_token)"])
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/audiobook+zip")
            #expect(response.header("Accept-Ranges") == "bytes")
            let entries = try zipEntries(response.body)
            let manifest = try JSONDecoder().decode(ManifestDocument.self, from: Data(entries["manifest.json"] ?? []))
            #expect(manifest.metadata.identifier == Works.packaged)
            for part in manifest.readingOrder {
                let bytes = try #require(entries[part.href])
                #expect(bytes.starts(with: Array("ID3".utf8)))
            }
            #expect(entries.count == manifest.readingOrder.count + 1)
        }
    }

    @Test func missingFFmpegFailsFulfilmentClearly() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-demo-no-audio-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withServer(DemoConfiguration(ffmpegPath: "/nonexistent/ffmpeg", audioCacheDirectory: cache)) { _, url in
            let token = try await fulfil(url, Works.onLoan)
            let response = try await HTTPTestClient.get(URL(string: token.location)!,
                                                        headers: ["Authorization": "Bearer \(token.access_token)"])
            #expect(response.status == 500)
            #expect(response.header("Content-Type") == "application/api-problem+json")
            #expect(response.text.contains("ffmpeg is not installed"))
        }
    }
}
