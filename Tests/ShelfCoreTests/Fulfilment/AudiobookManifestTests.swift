import Foundation
import Testing
@testable import ShelfCore

private let manifests = PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared/fixtures-real/manifests")
private let hasManifests = FileManager.default.fileExists(atPath: manifests.path)
private let skipMessage: Comment = "../shared/fixtures-real is absent; real manifests skipped"

@Suite(.timeLimit(.minutes(5))) struct AudiobookManifestTests {
    private func manifest(_ name: String) throws -> AudiobookManifest {
        try AudiobookManifest.parse(
            Data(contentsOf: manifests.appendingPathComponent(name)), url: URL(string: "https://cdn.example/books/m.json")!)
    }

    @Test(.enabled(if: hasManifests, skipMessage))
    func flatlandIsAnOpenAudiobookWithItsPartsInOrder() throws {
        let flatland = try manifest("flatland.audiobook-manifest.json")
        #expect(flatland.title == "Flatland: A Romance of Many Dimensions")
        #expect(flatland.authors == ["Edwin Abbott Abbott"])
        #expect(flatland.narrators == ["Ruth Golding"])
        #expect(flatland.duration == 15153)
        #expect(flatland.protection == nil)
        #expect(flatland.parts.count > 5)
        #expect(flatland.parts.map(\.index) == Array(0..<flatland.parts.count))
        #expect(flatland.parts.allSatisfy { $0.href.hasPrefix("http") && $0.type == "audio/mpeg" && ($0.duration ?? 0) > 0 })
        #expect(flatland.chapters.count == flatland.parts.count)
    }

    @Test(.enabled(if: hasManifests, skipMessage))
    func aTableOfContentsWithTimeFragmentsPointsIntoParts() throws {
        let flatland = try manifest("flatland_toc.audiobook-manifest.json")
        #expect(!flatland.toc.isEmpty)
        #expect(flatland.toc.allSatisfy { $0.partIndex < flatland.parts.count })
        let anna = try manifest("anna_karenina_toc.audiobook-manifest.json")
        // Anna Karenina is an LCP-encrypted package: recognised, with its contents still read.
        #expect(anna.protection == .lcp)
        #expect(anna.toc.first?.title == "Part One")
        #expect(anna.toc.first?.offset == 0)
        #expect(anna.parts.first?.href == "https://cdn.example/books/58bf0094-3c8d-4ba6-9eaf-479ecd1c60ad.MP3.mp3")
    }

    @Test(.enabled(if: hasManifests, skipMessage))
    func drmIsRecognised() throws {
        #expect(try manifest("findaway.json").protection == .findaway)
        #expect(try manifest("feedbooks_0.json").protection == .feedbooks)
        let error = FulfilmentError.protected(title: "The Black Swan of Paris", scheme: ProtectionScheme.findaway.rawValue)
        #expect(error.description == "The Black Swan of Paris is protected by Findaway DRM; shelf can play open and bearer-token audiobooks only")
        #expect(error.exitCode == .protectedContent)
    }

    @Test(.enabled(if: hasManifests, skipMessage))
    func minimalAndOddManifests() throws {
        let minimal = try manifest("ok_minimal_0.json")
        #expect(minimal.parts.first?.href == "http://www.example.com/0.mp3")
        #expect(minimal.parts.first?.duration == 100)
        #expect(try manifest("null_link_type.json").parts.first?.title == nil)
        #expect(try manifest("open_access_0.json").parts.first?.href == "http://ataxia.io7m.com/2017/11/12/01.mp3")
        for name in ["bestnewhorror.audiobook-manifest.json", "summerwives.audiobook-manifest.json", "ok_minimal_1.json"] {
            #expect(try !manifest(name).parts.isEmpty, "\(name)")
        }
        #expect {
            try manifest("error_minimal_0.json")
        } throws: { error in
            (error as? FulfilmentError) == .malformedManifest(url: "https://cdn.example/books/m.json", reason: "no readingOrder")
        }
    }

    @Test func trailingCommasAreToleratedAndTruncatedJSONIsNot() throws {
        // Some servers emit trailing commas; Foundation's reader accepts them, so such a manifest still works.
        let lenient = Data(#"{"metadata": {"title": "Snow Crash",}, "readingOrder": [{"href": "a.mp3",},],}"#.utf8)
        let manifest = try AudiobookManifest.parse(lenient, url: URL(string: "https://x.example/m")!)
        #expect(manifest.title == "Snow Crash")
        #expect(manifest.parts.map(\.href) == ["https://x.example/a.mp3"])
        let truncated = Data(#"{"metadata": {"title": "Snow Crash"}, "readingOrder": [{"href": "a.mp"#.utf8)
        #expect {
            try AudiobookManifest.parse(truncated, url: URL(string: "https://x.example/m")!)
        } throws: { error in
            guard case .malformedManifest(_, let reason) = error as? FulfilmentError else { return false }
            return reason.hasPrefix("not JSON")
        }
    }

    @Test func legacySpineAndRelativeHrefs() throws {
        let json = #"{"metadata": {"title": "Old"}, "spine": [{"href": "parts/1.mp3", "type": "audio/mpeg", "duration": 3}]}"#
        let manifest = try AudiobookManifest.parse(Data(json.utf8), url: URL(string: "https://lib.example/m/x.json?sig=1")!)
        #expect(manifest.parts.first?.href == "https://lib.example/m/parts/1.mp3")
        #expect(manifest.parts.first?.stablePath == "/m/parts/1.mp3")
    }

    @Test(.enabled(if: hasManifests, skipMessage))
    func bearerTokenDocuments() throws {
        let url = URL(string: "https://lib.example/works/1/fulfill")!
        let now = Date(timeIntervalSince1970: 1_000_000)
        let token = try BearerToken.parse(
            Data(contentsOf: manifests.deletingLastPathComponent().appendingPathComponent("circulation/bearer-token-0.json")),
            url: url, now: now)
        #expect(token.accessToken == "c28dce68-3164-4f94-9be1-a045c3cd8e61")
        #expect(token.location == "http://www.example.com/1.epub")
        #expect(token.expiresAt == now.addingTimeInterval(500))
        #expect(token.isUsable(at: now))
        #expect(!token.isUsable(at: now.addingTimeInterval(480)))
        #expect(!"\(token)".contains("c28dce68"))
        #expect(throws: FulfilmentError.self) {
            try BearerToken.parse(
                Data(contentsOf: manifests.deletingLastPathComponent().appendingPathComponent("circulation/bearer-token-bad.json")),
                url: url)
        }
    }
}
