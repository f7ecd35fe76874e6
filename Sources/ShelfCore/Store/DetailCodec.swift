import Foundation

/// How the store keeps what `shelf show` alone reads of an edition: its contributors, categories, other links, the
/// URLs of its cover, thumbnail, revoke link and annotations, and its acquisitions (`edition.detail`), as compact
/// bytes; and, until migration v27, each acquisition's indirect types (`acquisition.indirect`).
///
/// Kept as JSON they were most of a title's row (about 900 bytes of a Palace-style entry, mostly the same URIs over
/// and over): here a string is a word of `vocabulary` (one or two bytes), or shares its start with a string before
/// it in the row (front coding: a link's `https://library.example/` is written once a row), and the entry's own id
/// inside it is one byte. The first byte is the format's version. Rows written before are JSON, and read as such.
///
/// Version 2 adds the four URLs, which had columns of their own: a Palace-style title's three URLs each held the
/// library's address and the entry's id whole, 240 bytes a title; front-coded here, with the id as one byte, they
/// are about 30. Migration v27 moved the URLs of rows written before into their details, and dropped the columns.
///
/// Version 3 adds the edition's acquisitions, which were rows of a table of their own (`acquisition`, 380 bytes a
/// title with its index: relation URIs, media types, and hrefs holding the library's address and the entry's id);
/// here they are about 90. Migration v27 moved every title's into its detail.
///
/// Version 4 adds what only `shelf show` prints of an edition's own facts, which had columns of their own: publisher,
/// issued, language, distributor, additional type, updated and published. A date is its number of seconds (or days)
/// when written back it is the same text (`2024-01-01T00:00:00Z`: 5 bytes, not 20), and an additional type a word;
/// a Palace-style title's seven columns took about 120 bytes, here they are about 20. Migration v28 moved them.
package enum DetailCodec {
    static let version: UInt8 = 4

    /// Strings every catalog repeats. Append only: a stored row names a word by its place here.
    static let vocabulary: [String] = [
        "aut", "nrt", "trl", "edt", "art", "ill", "clr", "letterer", "penciler", "inker",
        "alternate", "related", "self", "http://opds-spec.org/progression", "http://opds-spec.org/image",
        "http://opds-spec.org/image/thumbnail", "http://opds-spec.org/acquisition", "issues", "recommendations",
        "http://www.w3.org/ns/oa#annotationService", "http://librarysimplified.org/terms/rel/revoke",
        "http://librarysimplified.org/terms/rel/report", "http://librarysimplified.org/terms/rel/annotations",
        "http://opds-spec.org/acquisition/borrow", "http://opds-spec.org/acquisition/open-access",
        "http://opds-spec.org/acquisition/sample", "http://opds-spec.org/acquisition/preview",
        "application/atom+xml;type=entry;profile=opds-catalog", "application/atom+xml;profile=opds-catalog;kind=acquisition",
        "application/atom+xml;profile=opds-catalog;kind=navigation", "application/opds-progression+json",
        "application/opds+json", "application/opds-publication+json", "application/ld+json", "application/json",
        "text/html", "image/png", "image/jpeg", "image/gif", "image/webp",
        "application/audiobook+json", "application/vnd.readium.lcp.license.v1.0+json",
        "application/vnd.librarysimplified.bearer-token+json", "application/vnd.adobe.adept+xml",
        "application/epub+zip", "application/pdf", "audio/mpeg", "audio/mp4", "audio/x-m4b", "audio/ogg",
        "text/html;profile=http://librarysimplified.org/terms/profiles/streaming-media",
        "application/vnd.overdrive.circulation.api+json;profile=audiobook",
        "application/vnd.overdrive.circulation.api+json;profile=ebook", "application/x-mobipocket-ebook",
        "application/kepub+zip", "application/x-cbz", "application/vnd.comicbook+zip",
        "http://librarysimplified.org/terms/genres/Simplified/", "http://schema.org/audience",
        "http://schema.org/typicalAgeRange", "http://librarysimplified.org/terms/fiction/",
        "http://librarysimplified.org/terms/fiction/Fiction", "http://librarysimplified.org/terms/fiction/Nonfiction",
        "Fiction", "Nonfiction", "Adult", "Young Adult", "Children", "Adults Only", "All Ages", "Research",
        "http://id.loc.gov/authorities/subjects", "http://purl.org/dc/terms/LCSH", "http://purl.org/dc/terms/DDC",
        "http://purl.org/dc/terms/LCC", "http://www.bisg.org/standards/bisac_subject/index.html",
        "http://id.worldcat.org/fast/", "http://www.bisg.org/standards/bisac_subject/",
        "http://bib.schema.org/Audiobook", "http://schema.org/EBook", "http://schema.org/Book",
        "http://schema.org/Audiobook", "https://schema.org/Audiobook", "Z", "+00:00", "en",
        "application/ld+json; profile=\"http://www.w3.org/ns/anno.jsonld\"", "collection", "contributor", "series",
        "http://librarysimplified.org/terms/rel/analytics/open-book", "application/audiobook+lcp",
        "application/vnd.librarysimplified.findaway.license+json",
        "text/html;profile=\"http://librarysimplified.org/terms/profiles/streaming-media\"",
        "application/audiobook+json;profile=\"http://www.feedbooks.com/audiobooks/access-restriction\"",
        "application/atom+xml;relation=entry;profile=opds-catalog",
        "acquisition", "borrow", "open-access", "buy", "sample", "preview", "subscribe",
        "available", "unavailable", "reserved", "ready",
    ]

    private static let words: [String: Int] = Dictionary(
        vocabulary.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })

    /// Whether a word of `vocabulary` has this many bytes, by length.
    private static let wordLengths: [Bool] = {
        var lengths = [Bool](repeating: false, count: (vocabulary.map(\.utf8.count).max() ?? 0) + 1)
        for word in vocabulary { lengths[word.utf8.count] = true }
        return lengths
    }()

    /// The detail column's bytes for an entry.
    /// `asBefore4` true: no names to start from and no contributor's name as a piece in its URI, as versions 1 to 3
    /// wrote them (the version byte aside), for tests that make a store of those versions.
    ///
    /// From version 4 the strings before the first are the edition's `authors` and `narrators` columns (`names`;
    /// nil: `EntryRecord.names` of the entry, as a sync writes them): a contributor's name front-codes against them,
    /// its bytes not written twice in a row. A byte after the version checks them: a detail read with other columns
    /// than it was written with is not read.
    package static func detail(
        of entry: OPDSEntry, names: (authors: String, narrators: String)? = nil, asBefore4: Bool = false
    ) -> [UInt8] {
        var writer = Writer(id: entry.id)
        if !asBefore4 {
            let names = names ?? EntryRecord.names(of: entry)
            writer.seed([names.authors, names.narrators])
        }
        writer.namesInLinks = !asBefore4
        writer.contributors(entry.authors)
        writer.contributors(entry.contributors)
        writer.count(entry.categories.count)
        for category in entry.categories {
            writer.string(category.scheme)
            writer.string(category.term)
            writer.string(category.label)
        }
        writer.count(entry.links.count)
        for link in entry.links {
            writer.string(link.href)
            writer.string(link.rel)
            writer.string(link.type)
            writer.string(link.title)
        }
        for url in [entry.coverURL, entry.thumbnailURL, entry.revokeURL, entry.annotationsURL] { writer.string(url) }
        writer.acquisitions(entry.acquisitions)
        writer.string(entry.publisher)
        writer.date(entry.issued)
        writer.string(entry.language)
        writer.string(entry.distributor)
        writer.string(entry.additionalType)
        writer.date(entry.updated)
        writer.date(entry.published)
        return writer.bytes
    }

    /// An acquisition's indirect types as the `indirect` column keeps them.
    package static func indirect(_ nodes: [IndirectAcquisition], entryID: String) -> [UInt8] {
        var writer = Writer(id: entryID)
        writer.indirect(nodes)
        return writer.bytes
    }

    /// The detail column read back: JSON (rows written before this format, and an empty `{}`) or bytes. `authors`
    /// and `narrators`: the edition's columns of those names, which a version 4 detail starts from.
    package static func readDetail(_ value: Stored, entryID: String, authors: String, narrators: String)
        -> EditionDetailJSON?
    {
        switch value {
        case .text(let text):
            return try? JSONDecoder().decode(EditionDetailJSON.self, from: Data(text.utf8))
        case .bytes(let bytes):
            var reader = Reader(bytes: bytes, id: entryID)
            return try? reader.detail(seeds: [authors, narrators])
        }
    }

    /// The indirect column read back, JSON or bytes.
    package static func readIndirect(_ value: Stored, entryID: String) -> [IndirectAcquisition]? {
        switch value {
        case .text(let text):
            return try? JSONDecoder().decode([IndirectAcquisition].self, from: Data(text.utf8))
        case .bytes(let bytes):
            var reader = Reader(bytes: bytes, id: entryID)
            return try? reader.indirectRoot()
        }
    }

    /// A stored column as it came back: text (JSON) or a blob.
    package enum Stored {
        case text(String)
        case bytes([UInt8])
    }

    // A string is a varint tag: 0 nil; 1 a word of `vocabulary` (its place follows); otherwise the first `tag - 2`
    // bytes of a string before it in the row (when there are any, how many strings back it is follows, 0 the last),
    // then pieces: a length and that many bytes, then 1 when the entry's id and another piece follow, 2 (from version
    // 4, in a contributor's URI) when the contributor's name percent-encoded (`percentEncoded`) and another piece
    // follow, or 0 at the end. Palace's contributor links are the library's address, `contributors/` and the name.
    struct Writer {
        private(set) var bytes: [UInt8] = [DetailCodec.version]
        private let id: [UInt8]
        /// The strings written so far, one after the other, and where each ends: a string is compared with these
        /// in place, and none is copied into an array of its own.
        private var history: [UInt8] = []
        private var ends: [Int] = []
        /// Whether a contributor's name in its URI is written as a piece (version 4).
        var namesInLinks = true

        init(id: String) {
            self.id = Array(id.utf8)
            bytes.reserveCapacity(512)
            history.reserveCapacity(1024)
        }

        mutating func count(_ value: Int) { Varint.append(value, to: &bytes) }

        /// Strings the reader knows before the first byte, which the strings written may share their starts with;
        /// their check byte (`DetailCodec.check`) is written.
        mutating func seed(_ strings: [String]) {
            bytes.append(DetailCodec.check(strings))
            for string in strings {
                history.append(contentsOf: string.utf8)
                ends.append(history.count)
            }
        }

        /// `name`: a contributor's name, which its URI may hold percent-encoded.
        mutating func string(_ value: String?, name: String? = nil) {
            guard var value else {
                bytes.append(0)
                return
            }
            // Only a string as long as a word can be one: most are not looked up.
            let length = value.utf8.count
            if length < DetailCodec.wordLengths.count, DetailCodec.wordLengths[length], let word = DetailCodec.words[value] {
                count(1)
                count(word)
                history.append(contentsOf: value.utf8)
                ends.append(history.count)
                return
            }
            let encoded = name.map { DetailCodec.percentEncoded($0) } ?? []
            value.withUTF8 { string(bytes: $0, name: encoded) }
        }

        private mutating func string(bytes utf8: UnsafeBufferPointer<UInt8>, name: [UInt8] = []) {
            var (shared, back) = (0, 0)
            history.withUnsafeBufferPointer { history in
                // The last string first: of those sharing as much, the nearest is named.
                var index = ends.count - 1
                while index >= 0 {
                    let start = index == 0 ? 0 : ends[index - 1]
                    let limit = min(utf8.count, ends[index] - start)
                    var common = 0
                    while common < limit && utf8[common] == history[start + common] { common += 1 }
                    if common > shared { (shared, back) = (common, ends.count - 1 - index) }
                    index -= 1
                }
            }
            // Not inside a character: the rest must be whole UTF-8 (a continuation byte starts no character).
            while shared > 0 && shared < utf8.count && utf8[shared] & 0xC0 == 0x80 { shared -= 1 }
            if shared < 4 { shared = 0 }
            count(shared + 2)
            if shared > 0 { count(back) }
            var start = shared
            while true {
                let atID = id.isEmpty ? nil : Self.find(id, in: utf8, from: start)
                let atName = name.isEmpty ? nil : Self.find(name, in: utf8, from: start)
                if let found = [atID, atName].compactMap({ $0 }).min() {
                    let isID = found == atID
                    count(found - start)
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<found]))
                    bytes.append(isID ? 1 : 2)
                    start = found + (isID ? id.count : name.count)
                } else {
                    count(utf8.count - start)
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
                    bytes.append(0)
                    break
                }
            }
            history.append(contentsOf: utf8)
            ends.append(history.count)
        }

        private static func find(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
            guard haystack.count - start >= needle.count else { return nil }
            let first = needle[0]
            var index = start
            while index + needle.count <= haystack.count {
                if haystack[index] == first && haystack[index..<index + needle.count].elementsEqual(needle) {
                    return index
                }
                index += 1
            }
            return nil
        }

        mutating func contributors(_ contributors: [Contributor]) {
            count(contributors.count)
            for contributor in contributors {
                string(contributor.name)
                count(contributor.roles.count)
                for role in contributor.roles { string(role) }
                string(contributor.sortName)
                string(contributor.uri, name: namesInLinks ? contributor.name : nil)
            }
        }

        mutating func indirect(_ nodes: [IndirectAcquisition]) {
            count(nodes.count)
            for node in nodes {
                string(node.type)
                indirect(node.children)
            }
        }

        mutating func acquisitions(_ acquisitions: [Acquisition]) {
            count(acquisitions.count)
            for acquisition in acquisitions {
                string(acquisition.kind.rawValue)
                string(acquisition.rel)
                string(acquisition.href)
                string(acquisition.type)
                indirect(acquisition.indirect)
                string(acquisition.availability?.status)
                real(acquisition.availability?.since?.timeIntervalSince1970)
                real(acquisition.availability?.until?.timeIntervalSince1970)
                for value in [acquisition.holds?.total, acquisition.holds?.position, acquisition.copies?.total,
                              acquisition.copies?.available] { number(value) }
                string(acquisition.price?.value)
                string(acquisition.price?.currency)
            }
        }

        /// A date as a feed writes it: 0 for nil; 1, the seconds since 1970 (zigzagged) and the rest of the text (its
        /// zone, a string) for `YYYY-MM-DDTHH:MM:SS…`; 2 and the days since 1970 for `YYYY-MM-DD`; else 3 and the
        /// text as a string. A number is chosen only when `StoredDate` writes it back as the very same text.
        mutating func date(_ value: String?) {
            guard let value else { return count(0) }
            switch StoredDate(value) {
            case .time(let seconds, let zone):
                count(1)
                zigzag(seconds)
                string(zone)
            case .day(let days):
                count(2)
                zigzag(days)
            case nil:
                count(3)
                string(value)
            }
        }

        /// A number `StoredDate` gave (well inside 2^62), zigzagged.
        private mutating func zigzag(_ value: Int64) { Varint.append(Int(Varint.zigzag(value)), to: &bytes) }

        /// 0 for nil, else the number zigzagged (so a negative one is short too), plus one.
        mutating func number(_ value: Int?) {
            guard let value else { return count(0) }
            let bounded = Int64(max(-Self.numberLimit, min(Self.numberLimit, value)))
            count(Int(Varint.zigzag(bounded)) + 1)
        }

        /// The largest number kept as it is; beyond it, a number is kept as this.
        static let numberLimit = 1 << 61

        /// 0 for nil, else 1 and the number's eight bytes.
        mutating func real(_ value: Double?) {
            guard let value else { return count(0) }
            count(1)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    struct Corrupt: Error {}

    struct Reader {
        let bytes: [UInt8]
        let id: [UInt8]
        private var offset = 0
        private var history: [[UInt8]] = []
        /// The version read from the first byte.
        private var format: UInt8 = 0

        init(bytes: [UInt8], id: String) {
            self.bytes = bytes
            self.id = Array(id.utf8)
        }

        /// `seeds`: the strings a version 4 writer started from (`Writer.seed`).
        mutating func detail(seeds: [String]) throws -> EditionDetailJSON {
            let version = try header()
            if version >= 4 {
                guard try byte() == DetailCodec.check(seeds) else { throw Corrupt() }
                history = seeds.map { Array($0.utf8) }
            }
            let authors = try contributors()
            let contributors = try contributors()
            var categories: [Category] = []
            for _ in 0..<(try count()) {
                let scheme = try string()
                guard let term = try string() else { throw Corrupt() }
                categories.append(Category(scheme: scheme, term: term, label: try string()))
            }
            var links: [OPDSLink] = []
            for _ in 0..<(try count()) {
                guard let href = try string() else { throw Corrupt() }
                links.append(OPDSLink(href: href, rel: try string(), type: try string(), title: try string()))
            }
            var detail = EditionDetailJSON(authors: authors, contributors: contributors, categories: categories, links: links)
            if version >= 2 {
                (detail.coverURL, detail.thumbnailURL) = (try string(), try string())
                (detail.revokeURL, detail.annotationsURL) = (try string(), try string())
            }
            if version >= 3 { detail.acquisitions = try acquisitions() }
            if version >= 4 {
                detail.publisher = try string()
                detail.issued = try date()
                detail.language = try string()
                detail.distributor = try string()
                detail.additionalType = try string()
                detail.updated = try date()
                detail.published = try date()
            }
            guard offset == bytes.count else { throw Corrupt() }
            return detail
        }

        mutating func indirectRoot() throws -> [IndirectAcquisition] {
            try header()
            let nodes = try indirect(depth: 0)
            guard offset == bytes.count else { throw Corrupt() }
            return nodes
        }

        /// The format's version: 1 (no URLs), 2 (no acquisitions), 3 (no facts) or 4.
        @discardableResult
        private mutating func header() throws -> UInt8 {
            let version = try byte()
            guard version >= 1 && version <= DetailCodec.version else { throw Corrupt() }
            format = version
            return version
        }

        private mutating func indirect(depth: Int) throws -> [IndirectAcquisition] {
            guard depth < 64 else { throw Corrupt() }
            var nodes: [IndirectAcquisition] = []
            for _ in 0..<(try count()) {
                guard let type = try string() else { throw Corrupt() }
                nodes.append(IndirectAcquisition(type: type, children: try indirect(depth: depth + 1)))
            }
            return nodes
        }

        private mutating func acquisitions() throws -> [Acquisition] {
            var result: [Acquisition] = []
            for _ in 0..<(try count()) {
                guard let kindName = try string(), let kind = AcquisitionKind(rawValue: kindName),
                      let rel = try string(), let href = try string()
                else { throw Corrupt() }
                var acquisition = Acquisition(kind: kind, rel: rel, href: href, type: try string(), indirect: try indirect(depth: 0))
                let (status, since, until) = (try string(), try real(), try real())
                let (holds, copies) = ((try number(), try number()), (try number(), try number()))
                acquisition.setCirculation(
                    status: status, since: since, until: until, holds: holds, copies: copies, price: try string(),
                    currency: try string())
                result.append(acquisition)
            }
            return result
        }

        private mutating func date() throws -> String? {
            switch try count() {
            case 0: return nil
            case 1:
                let seconds = try zigzag()
                guard let zone = try string() else { throw Corrupt() }
                return try Self.dated(StoredDate.text(seconds: seconds, zone: zone))
            case 2: return try Self.dated(StoredDate.text(days: try zigzag()))
            case 3:
                guard let text = try string() else { throw Corrupt() }
                return text
            default: throw Corrupt()
            }
        }

        /// A date's text; `Corrupt` for the empty text of a year `StoredDate` never writes.
        private static func dated(_ text: String) throws -> String {
            guard !text.isEmpty else { throw Corrupt() }
            return text
        }

        /// A zigzagged number, bounded to what a date in a year of four digits can be.
        private mutating func zigzag() throws -> Int64 {
            let value = Varint.unzigzag(UInt64(try varint()))
            guard value > -StoredDate.limit && value < StoredDate.limit else { throw Corrupt() }
            return value
        }

        private mutating func number() throws -> Int? {
            let stored = try varint()
            if stored == 0 { return nil }
            return Int(Varint.unzigzag(UInt64(stored - 1)))
        }

        private mutating func real() throws -> Double? {
            switch try byte() {
            case 0: return nil
            case 1: break
            default: throw Corrupt()
            }
            guard bytes.count - offset >= 8 else { throw Corrupt() }
            var pattern: UInt64 = 0
            for index in 0..<8 { pattern |= UInt64(bytes[offset + index]) << (8 * index) }
            offset += 8
            return Double(bitPattern: pattern)
        }

        private mutating func contributors() throws -> [Contributor] {
            var result: [Contributor] = []
            for _ in 0..<(try count()) {
                guard let name = try string() else { throw Corrupt() }
                var contributor = Contributor(name: name)
                for _ in 0..<(try count()) {
                    guard let role = try string() else { throw Corrupt() }
                    contributor.roles.append(role)
                }
                contributor.sortName = try string()
                contributor.uri = try string(name: format >= 4 ? name : nil)
                result.append(contributor)
            }
            return result
        }

        private mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw Corrupt() }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// A count, a length, a tag or a vocabulary word's place (each checked where it is used), bounded so that a
        /// damaged one is no number to count to.
        private mutating func count() throws -> Int {
            let value = try varint()
            guard value <= UInt(bytes.count) + (1 << 20) else { throw Corrupt() }
            return Int(value)
        }

        /// The varint at the offset, unbounded; `Corrupt` when the bytes end inside it or it is too long.
        private mutating func varint() throws -> UInt {
            let value: UInt?
            do { value = try Varint.read(bytes, at: &offset) } catch { throw Corrupt() }
            guard let value else { throw Corrupt() }
            return value
        }

        /// `name`: the contributor's name a URI may hold percent-encoded (a piece ending 2); nil elsewhere.
        private mutating func string(name: String? = nil) throws -> String? {
            let tag = try count()
            if tag == 0 { return nil }
            var utf8: [UInt8]
            if tag == 1 {
                let word = try count()
                guard word < DetailCodec.vocabulary.count else { throw Corrupt() }
                utf8 = Array(DetailCodec.vocabulary[word].utf8)
            } else {
                let shared = tag - 2
                if shared > 0 {
                    let back = try count()
                    guard back < history.count, shared <= history[history.count - 1 - back].count else { throw Corrupt() }
                    utf8 = Array(history[history.count - 1 - back][0..<shared])
                } else {
                    utf8 = []
                }
                while true {
                    let length = try count()
                    guard length <= bytes.count - offset else { throw Corrupt() }
                    utf8 += bytes[offset..<offset + length]
                    offset += length
                    switch try byte() {
                    case 0: break
                    case 1:
                        utf8 += id
                        continue
                    case 2:
                        guard let name else { throw Corrupt() }
                        utf8 += DetailCodec.percentEncoded(name)
                        continue
                    default: throw Corrupt()
                    }
                    break
                }
            }
            history.append(utf8)
            guard let text = String(validating: utf8, as: UTF8.self) else { throw Corrupt() }
            return text
        }
    }
}

extension DetailCodec {
    /// A byte of a hash of the strings a detail starts from.
    static func check(_ seeds: [String]) -> UInt8 {
        var hash = FNV1a()
        for seed in seeds { hash.combine(seed) }
        return UInt8(truncatingIfNeeded: hash.value)
    }

    /// `text`'s UTF-8 with every byte but the unreserved ones of RFC 3986 (letters, digits, `-`, `.`, `_`, `~`) as
    /// `%XX`, upper-case: how Palace writes a name into a contributor's link (`Arthur%20Conan%20Doyle`).
    static func percentEncoded(_ text: String) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                result.append(byte)
            default:
                result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return result
    }
}

/// A date as a feed writes it (`2024-01-01T00:00:00Z`, `2024-01-01T00:00:00+00:00`, `2024-01-01`), as numbers
/// that give back the very same text; nil for any other text, which the detail keeps as it is.
enum StoredDate: Equatable {
    /// Seconds since 1970 of the date and time as written (its zone not applied), and the rest of the text.
    case time(seconds: Int64, zone: String)
    /// Days since 1970.
    case day(Int64)

    /// Beyond what a year of four digits reaches, in days or seconds: a stored number past it is damage.
    static let limit: Int64 = 1 << 40

    init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 10, let days = Self.days(utf8) else { return nil }
        if utf8.count == 10 {
            self = .day(days)
        } else {
            guard utf8.count >= 19, utf8[10] == UInt8(ascii: "T"), utf8[13] == UInt8(ascii: ":"),
                  utf8[16] == UInt8(ascii: ":"),
                  let hour = Self.number(utf8[11..<13]), let minute = Self.number(utf8[14..<16]),
                  let second = Self.number(utf8[17..<19]), hour < 24, minute < 60, second < 60
            else { return nil }
            self = .time(seconds: days * 86_400 + hour * 3600 + minute * 60 + second,
                         zone: String(decoding: utf8[19...], as: UTF8.self))
        }
        // Only what comes back the same (no month 13, no 30 February, no `+1` year).
        guard self.text == text else { return nil }
    }

    /// The text these numbers stand for.
    var text: String {
        switch self {
        case .time(let seconds, let zone): return Self.text(seconds: seconds, zone: zone)
        case .day(let days): return Self.text(days: days)
        }
    }

    static func text(seconds: Int64, zone: String) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        return text(days: days) + "T" + two(rest / 3600) + ":" + two(rest / 60 % 60) + ":" + two(rest % 60) + zone
    }

    /// `YYYY-MM-DD` of a day since 1970 (`CivilDays`); empty past a year of four digits.
    static func text(days: Int64) -> String {
        let (year, month, day) = CivilDays.date(days: Int(days))
        guard (0...9999).contains(year) else { return "" }
        let digits = String(year)
        return String(repeating: "0", count: 4 - digits.count) + digits + "-" + two(Int64(month)) + "-" + two(Int64(day))
    }

    private static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }

    /// Days since 1970 of `YYYY-MM-DD` at the start of `utf8` (H. Hinnant's `days_from_civil`); nil when it is not
    /// that shape.
    private static func days(_ utf8: [UInt8]) -> Int64? {
        guard utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"), let year = number(utf8[0..<4]),
              let month = number(utf8[5..<7]), let day = number(utf8[8..<10]), (1...12).contains(month),
              (1...31).contains(day)
        else { return nil }
        return Int64(CivilDays.days(year: Int(year), month: Int(month), day: Int(day)))
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }
}

extension Acquisition {
    /// Sets the circulation markup and price from the parts a store keeps of them: an availability when there is a
    /// status, holds or copies when either of their numbers is there, a price when there is a value. (Numbers both
    /// absent and an element without them are kept alike.)
    mutating func setCirculation(
        status: String?, since: Double?, until: Double?, holds: (total: Int?, position: Int?),
        copies: (total: Int?, available: Int?), price: String?, currency: String?
    ) {
        availability = status.map {
            Availability(status: $0, since: since.map(Date.init(timeIntervalSince1970:)),
                         until: until.map(Date.init(timeIntervalSince1970:)))
        }
        self.holds = holds.total == nil && holds.position == nil ? nil : Holds(total: holds.total, position: holds.position)
        self.copies = copies.total == nil && copies.available == nil
            ? nil : Copies(total: copies.total, available: copies.available)
        self.price = price.map { Price(value: $0, currency: currency) }
    }
}
