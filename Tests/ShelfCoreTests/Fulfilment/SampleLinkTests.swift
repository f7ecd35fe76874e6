import Foundation
import Testing
@testable import ShelfCore

/// What a sample link offers, by its type and name, before anything is fetched.
@Suite struct SampleLinkTests {
    @Test func audioManifestsProtectedAndOther() {
        let rows: [(String, String?, SampleLink.Content)] = [
            ("https://l.test/s.mp3", "audio/mpeg", .audio),
            ("https://l.test/s", "audio/mp4; codecs=mp4a", .audio),
            ("https://l.test/s.m4a", nil, .audio),
            ("https://l.test/s.m4a", "application/octet-stream", .audio),
            ("https://l.test/sample", "application/audiobook+json", .manifest),
            ("https://l.test/s", "application/vnd.librarysimplified.findaway.license+json", .protected("Findaway")),
            ("https://l.test/s", "application/vnd.readium.lcp.license.v1.0+json", .protected("Readium LCP")),
            ("https://l.test/s.epub", "application/epub+zip", .other),
            ("https://l.test/preview", "text/html", .other),
            ("https://l.test/preview", nil, .other),
        ]
        for (href, type, content) in rows {
            #expect(SampleLink(href: href, type: type).content == content, "\(href) \(type ?? "-")")
        }
    }

    @Test func eachRefusalIsOneLineWithItsOwnStatus() {
        let errors: [SampleError] = [
            .none(title: "Moby Dick"), .protected(title: "Moby Dick", scheme: "Findaway"),
            .notAudio(title: "Moby Dick", type: "text/html"), .gone(title: "Moby Dick", url: "https://l.test/s", status: 404),
        ]
        #expect(errors.map(\.exitCode) == [.notFound, .protectedContent, .protectedContent, .noSuchPage])
        for error in errors { #expect(!error.description.contains("\n") && error.description.contains("Moby Dick")) }
    }
}
