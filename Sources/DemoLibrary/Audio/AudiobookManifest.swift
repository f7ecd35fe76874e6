import Foundation

/// A Readium audiobook manifest (`application/audiobook+json`), as Palace and its distributors serve them.
struct AudiobookManifest: Codable, Sendable {
    struct Metadata: Codable, Sendable {
        var type = "http://schema.org/Audiobook"
        var identifier: String
        var title: String
        var author: [String]
        var narrator: [String]
        var publisher: String
        var language: String
        var published: String
        var modified: String
        /// Total running time in seconds.
        var duration: Double

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case identifier, title, author, narrator, publisher, language, published, modified, duration
        }
    }

    struct Link: Codable, Sendable {
        var href: String
        var type: String?
        var rel: String?
        var title: String?
        var duration: Double?
        var bitrate: Int?
        /// The part's size in bytes, which some distributors state (absent unless the `manifestPartLengths` switch).
        var length: Int?
    }

    var context = "https://readium.org/webpub-manifest/context.jsonld"
    var metadata: Metadata
    var links: [Link]
    var readingOrder: [Link]
    var toc: [Link]

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case metadata, links, readingOrder, toc
    }

    static let mediaType = "application/audiobook+json"
    static let packageMediaType = "application/audiobook+zip"

    /// A manifest for `title` whose parts are at `partHrefs` (absolute, or relative inside a package).
    static func make(
        _ title: DemoTitle, parts: [(href: String, duration: Double)], links: [Link], modified: Date,
        lengths: [Int]? = nil
    ) -> AudiobookManifest {
        let readingOrder = parts.enumerated().map { index, part in
            Link(href: part.href, type: "audio/mpeg", title: "Chapter \(index + 1)",
                 duration: rounded(part.duration), bitrate: 32, length: lengths?[index])
        }
        // Like real tables of contents, the first chapter starts a second into the first part,
        // after the opening credits.
        var toc = [Link(href: parts[0].href + "#t=0", title: "Opening Credits")]
        for (index, part) in parts.enumerated() {
            toc.append(Link(href: part.href + (index == 0 ? "#t=1" : "#t=0"), title: "Chapter \(index + 1)"))
        }
        return AudiobookManifest(
            metadata: Metadata(
                identifier: title.id, title: title.title, author: title.authors, narrator: title.narrators,
                publisher: title.publisher, language: title.language, published: title.issued,
                modified: DemoDates.iso8601(modified),
                duration: rounded(parts.reduce(0) { $0 + $1.duration })
            ),
            links: links,
            readingOrder: readingOrder,
            toc: toc
        )
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1_000).rounded() / 1_000 }
}
