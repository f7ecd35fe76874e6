import Foundation

import ShelfCore

/// The OPDS 2 JSON parser, on feeds and single publications.
enum OPDS2Fuzz {
    static func feed(_ data: Data) {
        agreesWithFoundation(data)
        var parser = OPDS2Parser(baseURL: fuzzBase)
        parser.maxEntries = OPDS1Fuzz.maxEntries
        parser.maxNavigation = 16
        var entries = 0
        do {
            let info = try parser.parse(data: data) { entry in
                entries += 1
                require(entries <= OPDS1Fuzz.maxEntries, "the parser handed over \(entries) publications, over its limit")
                EntryChecks.check(entry)
            }
            require(info.version == .opds2, "an OPDS 2 feed was read as \(info.version)")
            require(info.navigation.count <= 16, "\(info.navigation.count) navigation links kept, over the limit 16")
            EntryChecks.checkLinks(info.links + info.navigation, in: "the feed")
            // The reader that sniffs the first byte agrees with the OPDS 2 parser on a JSON document.
            var document = FeedDocument(baseURL: fuzzBase)
            document.maxNavigation = 16
            var sniffed = 0
            _ = try? document.parse(data: data, contentType: "application/opds+json") { _ in sniffed += 1 }
            require(sniffed == entries, "FeedDocument read \(sniffed) publications, OPDS2Parser \(entries)")
        } catch {
            EntryChecks.checkError(error)
        }
    }

    /// The native JSON reader reads a document (within the depth limit) to what Foundation reads, or declines it.
    static func agreesWithFoundation(_ data: Data) {
        let depth = data.withUnsafeBytes { JSONDepth.maximum(of: $0, stoppingAbove: OPDS2Parser.defaultMaxDepth) }
        guard depth <= OPDS2Parser.defaultMaxDepth else { return }
        let native: JSONValue??
        do { native = .some(try data.withUnsafeBytes { try JSONTape.value($0) }) } catch { native = nil }
        guard let native else { return }
        let foundation = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        require(foundation != nil, "the native JSON reader read a document Foundation refuses")
        require(JSONTape.agrees(native, foundation.flatMap { JSONValue(foundation: $0) }),
                "the native JSON reader read a document otherwise than Foundation")
    }
}
