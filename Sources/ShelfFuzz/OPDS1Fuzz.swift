import Foundation

import ShelfCore

/// The OPDS 1 streaming parser, on whole feeds and on single-entry documents.
enum OPDS1Fuzz {
    /// Few enough entries that a fuzzed feed reaches the limit.
    static let maxEntries = 64

    static func feed(_ data: Data) {
        var parser = OPDSParser(baseURL: fuzzBase, maxEntryBytes: 256 << 10)
        parser.maxEntries = maxEntries
        parser.maxNavigation = 16
        var entries = 0
        do {
            let info = try parser.parse(data: data) { entry in
                entries += 1
                require(entries <= maxEntries, "the parser handed over \(entries) entries, over its limit \(maxEntries)")
                EntryChecks.check(entry)
            }
            require(info.navigation.count <= 16, "\(info.navigation.count) navigation links kept, over the limit 16")
            require(info.entryCount <= maxEntries, "entryCount \(info.entryCount) is over the limit \(maxEntries)")
            EntryChecks.checkLinks(info.links + info.navigation, in: "the feed")
        } catch {
            EntryChecks.checkError(error)
        }
    }

    static func entry(_ data: Data) {
        let parser = OPDSParser(baseURL: fuzzBase, maxEntryBytes: 256 << 10)
        do {
            let entry = try parser.parseEntry(data: data)
            EntryChecks.check(entry)
            // The content-type-sniffing reader a borrow goes through must agree with the OPDS 1 parser.
            let sniffed = try FeedDocument(baseURL: fuzzBase).parseEntry(data: data, contentType: "application/atom+xml")
            require(sniffed == entry, "FeedDocument and OPDSParser read the same entry differently")
        } catch {
            EntryChecks.checkError(error)
        }
    }
}

/// What holds of every entry either OPDS parser hands over.
enum EntryChecks {
    static func check(_ entry: OPDSEntry) {
        require(!entry.id.isEmpty, "an entry was handed over with an empty id")
        if let duration = entry.duration {
            require(OPDSDuration.seconds(duration) != nil, "entry duration \(duration) is not a running time")
        }
        checkLinks(entry.links, in: "entry \(entry.id)")
        for acquisition in entry.acquisitions {
            checkHref(acquisition.href, in: "an acquisition of \(entry.id)")
            require(AcquisitionKind(rel: acquisition.rel) == acquisition.kind,
                    "acquisition rel \(acquisition.rel) is not of kind \(acquisition.kind)")
        }
        // The model written out as JSON (the store's form) and read back is the same model.
        do {
            let json = try JSONEncoder().encode(entry)
            let back = try JSONDecoder().decode(OPDSEntry.self, from: json)
            require(back == entry, "entry \(entry.id) is not the same after a JSON round trip")
        } catch {
            require(false, "entry \(entry.id) does not survive a JSON round trip: \(error)")
        }
        // What a sync keeps of a page between reading and applying it reads back the same.
        var kept = EntryCodec.Writer()
        kept.write(entry)
        let keptBack = kept.bytes.withUnsafeBytes { bytes -> OPDSEntry? in
            var reader = EntryCodec.Reader(bytes)
            return try? reader.read()
        }
        require(keptBack == entry, "entry \(entry.id) is not the same after the sync stage's round trip")
        // The store's detail and indirect-acquisition columns read back the same.
        let record = EntryRecord(entry)
        let names = EntryRecord.names(of: entry)
        guard let decoded = DetailCodec.readDetail(
            .bytes(DetailCodec.detail(of: entry)), entryID: entry.id, authors: names.authors, narrators: names.narrators)
        else {
            require(false, "the detail column of \(entry.id) does not read back")
            return
        }
        require(decoded.authors == entry.authors, "the detail column changes the authors of \(entry.id)")
        require(decoded.contributors == entry.contributors, "the detail column changes the contributors of \(entry.id)")
        require(decoded.categories == entry.categories, "the detail column changes the categories of \(entry.id)")
        require(decoded.links.map { [$0.href, $0.rel, $0.type, $0.title] } == entry.links.map { [$0.href, $0.rel, $0.type, $0.title] },
                "the detail column changes the links of \(entry.id)")
        for acquisition in entry.acquisitions {
            let stored = DetailCodec.indirect(acquisition.indirect, entryID: entry.id)
            let back = DetailCodec.readIndirect(.bytes(stored), entryID: entry.id)
            require(back == acquisition.indirect, "the indirect-acquisition column of \(entry.id) does not read back")
        }
        _ = record.contentHash
    }

    static func checkLinks(_ links: [OPDSLink], in place: String) {
        for link in links where !link.templated { checkHref(link.href, in: place) }
    }

    /// A reference was resolved against the document's URL: resolving it again changes nothing, and when it reads
    /// as a URL at all (an unresolvable one is kept as written), it is an absolute one.
    static func checkHref(_ href: String, in place: String) {
        let resolver = LinkResolver(baseURL: fuzzBase)
        require(resolver.resolve(href) == href, "the href \(href.debugDescription) of \(place) was not resolved")
        guard resolver.isValidReference(href), let url = URL(string: href) else { return }
        require(url.scheme != nil, "the href \(href.debugDescription) of \(place) is not an absolute URL")
    }

    /// A refused document gets one of the parser's own errors, with a message.
    static func checkError(_ error: any Error) {
        guard let parse = error as? OPDSParseError else {
            require(false, "the parser threw \(type(of: error)), not an OPDSParseError: \(error)")
            return
        }
        require(!(parse.errorDescription ?? "").isEmpty, "an OPDSParseError has no message: \(parse)")
    }
}
