import DemoLibrary
import Foundation

/// The built-in catalog's works the fulfilment tests use.
enum Works {
    /// On loan to the demo patron from the start.
    static let onLoan = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    /// Borrowable, fulfilled as `application/audiobook+zip`.
    static let packaged = DemoConfiguration.builtInPackagedAudiobookID
    /// Open access.
    static let openAccess = "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001"
    /// Borrowable, not on loan.
    static let borrowable = "urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010"
    /// An ebook on loan to the demo patron from the start.
    static let ebook = "urn:uuid:7d3c0003-5a1e-4c6b-9f0e-d0c5e1f00003"
}

/// The fields of a Palace bearer-token document.
struct BearerTokenDocument: Decodable {
    var token_type: String
    var expires_in: Int
    var access_token: String
    var location: String
}

/// What the tests read of a Readium audiobook manifest.
struct ManifestDocument: Decodable {
    struct Metadata: Decodable {
        var identifier: String
        var title: String
        var author: [String]
        var narrator: [String]
        var duration: Double
    }

    struct Link: Decodable {
        var href: String
        var type: String?
        var title: String?
        var duration: Double?
        var rel: String?
    }

    var metadata: Metadata
    var links: [Link]
    var readingOrder: [Link]
    var toc: [Link]
}

func decode<T: Decodable>(_ type: T.Type, _ response: RawResponse) throws -> T {
    try JSONDecoder().decode(type, from: Data(response.body))
}

/// Fetches the work's fulfil link as the demo patron and reads the token document.
func fulfil(_ url: URL, _ id: String) async throws -> BearerTokenDocument {
    let response = try await HTTPTestClient.get(url.path("works/\(id)/fulfill"), headers: basic())
    guard response.status == 200 else {
        throw HTTPTestClient.Failure(description: "fulfil answered \(response.status): \(response.text)")
    }
    return try decode(BearerTokenDocument.self, response)
}

/// Fulfils a work and fetches its manifest with the token.
func fulfilledManifest(_ url: URL, _ id: String = Works.onLoan) async throws -> ManifestDocument {
    let token = try await fulfil(url, id)
    let response = try await HTTPTestClient.get(URL(string: token.location)!,
                                                headers: ["Authorization": "Bearer \(token.access_token)"])
    guard response.status == 200 else {
        throw HTTPTestClient.Failure(description: "manifest answered \(response.status): \(response.text)")
    }
    return try decode(ManifestDocument.self, response)
}

/// The part's href as a URL (the test client sends its path and query).
func partURL(_ manifest: ManifestDocument, _ number: Int) -> URL {
    URL(string: manifest.readingOrder[number - 1].href)!
}

/// The entries of a zip archive, read from its central directory, with their stored bytes.
func zipEntries(_ bytes: [UInt8]) throws -> [String: [UInt8]] {
    func le16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func le32(_ at: Int) -> Int { le16(at) | le16(at + 2) << 16 }
    guard bytes.count >= 22, let end = stride(from: bytes.count - 22, through: 0, by: -1).first(where: { le32($0) == 0x0605_4b50 })
    else { throw HTTPTestClient.Failure(description: "no end of central directory") }
    var entries: [String: [UInt8]] = [:]
    var at = le32(end + 16)
    for _ in 0..<le16(end + 10) {
        guard le32(at) == 0x0201_4b50 else { throw HTTPTestClient.Failure(description: "bad central header at \(at)") }
        let method = le16(at + 10)
        let size = le32(at + 20)
        let nameLength = le16(at + 28)
        let extraLength = le16(at + 30)
        let commentLength = le16(at + 32)
        let local = le32(at + 42)
        let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
        guard method == 0, le32(local) == 0x0403_4b50 else { throw HTTPTestClient.Failure(description: "bad entry \(name)") }
        let data = local + 30 + le16(local + 26) + le16(local + 28)
        entries[name] = Array(bytes[data..<(data + size)])
        at += 46 + nameLength + extraLength + commentLength
    }
    return entries
}
