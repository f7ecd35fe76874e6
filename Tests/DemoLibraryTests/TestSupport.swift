import DemoLibrary
import Foundation
import ShelfSpawn
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Runs `body` against a fresh server on loopback and always stops it.
func withServer<T>(
    _ configuration: DemoConfiguration = .init(),
    _ body: (DemoLibraryServer, URL) async throws -> T
) async throws -> T {
    try await DemoLibraryServer.serving(configuration, body)
}

extension URL {
    func page(_ number: Int) -> URL { URL(string: "crawlable?page=\(number)", relativeTo: self)!.absoluteURL }
    func path(_ relative: String) -> URL { URL(string: relative, relativeTo: self)!.absoluteURL }
}

/// What the tests need to know of an Atom document, read with a real XML parser (so it also
/// proves the document is well-formed).
struct AtomSummary {
    var rootName = ""
    var entryIDs: [String] = []
    var entryTitles: [String] = []
    /// Feed-level links in document order: (rel, href).
    var feedLinks: [(rel: String, href: String)] = []
    /// Whether every feed-level link comes after the last entry, as Palace writes them.
    var linksAfterEntries = true
    var availabilityStatuses: [String] = []
    var holdPositions: [String] = []
    var acquisitionRels: [String] = []
    var revokeLinks = 0
    var drafts = 0
    var prices: [String] = []

    func link(_ rel: String) -> String? { feedLinks.first { $0.rel == rel }?.href }

    static func parse(_ bytes: [UInt8]) throws -> AtomSummary {
        let delegate = Delegate()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.delegate = delegate
        guard parser.parse() else {
            throw HTTPTestClient.Failure(description: "not well-formed XML: \(String(describing: parser.parserError))")
        }
        return delegate.summary
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var summary = AtomSummary()
        var stack: [String] = []
        var text = ""
        var sawEntry = false
        var inPriceLink = false

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            let key = (namespaceURI ?? "") + "|" + name
            if stack.isEmpty { summary.rootName = name }
            let parent = stack.last
            stack.append(key)
            text = ""
            switch key {
            case "http://www.w3.org/2005/Atom|entry":
                sawEntry = true
            case "http://www.w3.org/2005/Atom|link":
                let rel = attributes["rel"] ?? ""
                if parent == "http://www.w3.org/2005/Atom|feed" {
                    summary.feedLinks.append((rel, attributes["href"] ?? ""))
                    if !sawEntry { summary.linksAfterEntries = false }
                }
                if rel.hasPrefix("http://opds-spec.org/acquisition") { summary.acquisitionRels.append(rel) }
                if rel == "http://librarysimplified.org/terms/rel/revoke" { summary.revokeLinks += 1 }
            case "http://opds-spec.org/2010/catalog|availability":
                summary.availabilityStatuses.append(attributes["status"] ?? "")
            case "http://opds-spec.org/2010/catalog|holds":
                if let position = attributes["position"] { summary.holdPositions.append(position) }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let key = stack.removeLast()
            let parent = stack.last
            switch key {
            case "http://www.w3.org/2005/Atom|id" where parent == "http://www.w3.org/2005/Atom|entry":
                summary.entryIDs.append(text)
            case "http://www.w3.org/2005/Atom|title" where parent == "http://www.w3.org/2005/Atom|entry":
                summary.entryTitles.append(text)
            case "http://www.w3.org/2007/app|draft":
                summary.drafts += 1
            case "http://opds-spec.org/2010/catalog|price":
                summary.prices.append(text)
            default:
                break
            }
        }
    }
}

/// gunzip through the system tool, so the test checks the server's gzip against another implementation.
func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-dc"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(bytes))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw HTTPTestClient.Failure(description: "gzip -dc failed") }
    return Array(data)
}

/// Basic credentials for the demo patron.
func basic(_ username: String = "demo", _ password: String = "1234") -> [String: String] {
    ["Authorization": "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()]
}
