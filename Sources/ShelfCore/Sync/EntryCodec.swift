import Foundation

/// OPDS entries written as bytes and read back field for field: how a sync keeps what it parsed from a page until
/// it applies it, so that each page's bytes are parsed once (`SyncStage`).
///
/// The layout is this file's alone and lives only as long as one sync: counts and lengths as LEB128 varints, a
/// string as its length and UTF-8 bytes, an optional as a presence byte before its value, a number as its bits.
package struct EntryCodec {
    /// Appends entries to a growing buffer.
    package struct Writer {
        package private(set) var bytes: [UInt8] = []

        package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

        mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

        /// Appends what another writer holds as one record: its length, then its bytes (`Reader.readRecord`).
        mutating func append(_ record: Writer) {
            count(record.bytes.count)
            bytes.append(contentsOf: record.bytes)
        }

        package mutating func write(_ entry: OPDSEntry) {
            string(entry.id)
            string(entry.title)
            string(entry.subtitle)
            contributors(entry.authors)
            contributors(entry.contributors)
            string(entry.summary)
            string(entry.content)
            string(entry.publisher)
            string(entry.issued)
            string(entry.language)
            count(entry.categories.count)
            for category in entry.categories {
                string(category.scheme)
                string(category.term)
                string(category.label)
            }
            string(entry.distributor)
            string(entry.additionalType)
            string(entry.updated)
            string(entry.published)
            string(entry.coverURL)
            string(entry.thumbnailURL)
            count(entry.acquisitions.count)
            for acquisition in entry.acquisitions { write(acquisition) }
            count(entry.links.count)
            for link in entry.links {
                string(link.href)
                string(link.rel)
                string(link.type)
                string(link.title)
                string(link.facetGroup)
                bool(link.activeFacet)
                int(link.count)
                bool(link.templated)
            }
            string(entry.revokeURL)
            string(entry.annotationsURL)
            bool(entry.isDraft)
            double(entry.duration)
            if let series = entry.series {
                bytes.append(1)
                string(series.name)
                string(series.position)
                string(series.href)
            } else {
                bytes.append(0)
            }
            count(entry.licenseFormats.count)
            for format in entry.licenseFormats { string(format) }
        }

        private mutating func write(_ acquisition: Acquisition) {
            count(AcquisitionKind.allCases.firstIndex(of: acquisition.kind)!)
            string(acquisition.rel)
            string(acquisition.href)
            string(acquisition.type)
            indirect(acquisition.indirect)
            if let availability = acquisition.availability {
                bytes.append(1)
                string(availability.status)
                double(availability.since?.timeIntervalSinceReferenceDate)
                double(availability.until?.timeIntervalSinceReferenceDate)
            } else {
                bytes.append(0)
            }
            if let holds = acquisition.holds {
                bytes.append(1)
                int(holds.total)
                int(holds.position)
            } else {
                bytes.append(0)
            }
            if let copies = acquisition.copies {
                bytes.append(1)
                int(copies.total)
                int(copies.available)
            } else {
                bytes.append(0)
            }
            if let price = acquisition.price {
                bytes.append(1)
                string(price.value)
                string(price.currency)
            } else {
                bytes.append(0)
            }
        }

        private mutating func indirect(_ nodes: [IndirectAcquisition]) {
            count(nodes.count)
            for node in nodes {
                string(node.type)
                indirect(node.children)
            }
        }

        private mutating func contributors(_ contributors: [Contributor]) {
            count(contributors.count)
            for contributor in contributors {
                string(contributor.name)
                count(contributor.roles.count)
                for role in contributor.roles { string(role) }
                string(contributor.sortName)
                string(contributor.uri)
            }
        }

        private mutating func count(_ value: Int) { Varint.append(value, to: &bytes) }

        private mutating func string(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                count(utf8.count)
                bytes.append(contentsOf: utf8)
            }
        }

        /// nil as 0, a string as its length + 1 and its bytes.
        private mutating func string(_ value: String?) {
            guard var value else {
                bytes.append(0)
                return
            }
            value.withUTF8 { utf8 in
                count(utf8.count + 1)
                bytes.append(contentsOf: utf8)
            }
        }

        private mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

        private mutating func int(_ value: Int?) {
            guard let value else {
                bytes.append(0)
                return
            }
            bytes.append(1)
            withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
        }

        private mutating func double(_ value: Double?) {
            guard let value else {
                bytes.append(0)
                return
            }
            bytes.append(1)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    /// Reads entries back from bytes a `Writer` made.
    package struct Reader: ~Copyable {
        private let bytes: UnsafeRawBufferPointer
        /// How many bytes were read.
        private(set) var offset = 0

        package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var isAtEnd: Bool { offset >= bytes.count }

        /// The next record `Writer.append` made; nil, reading nothing, when the bytes end before it does.
        mutating func readRecord() throws -> OPDSEntry? {
            let start = offset
            let read: UInt?
            do { read = try Varint.read(bytes, at: &offset) } catch { throw Corrupt() }
            guard let read else { return nil }
            guard read <= UInt(bytes.count - offset) else {
                offset = start
                return nil
            }
            let length = Int(read)
            var record = Reader(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
            let entry = try record.read()
            guard record.isAtEnd else { throw Corrupt() }
            offset += length
            return entry
        }

        /// The next entry; throws `Corrupt` when the bytes end inside it or hold a value no writer makes.
        package mutating func read() throws -> OPDSEntry {
            var entry = OPDSEntry(id: try string(), title: try string())
            entry.subtitle = try optionalString()
            entry.authors = try contributors()
            entry.contributors = try contributors()
            entry.summary = try optionalString()
            entry.content = try optionalString()
            entry.publisher = try optionalString()
            entry.issued = try optionalString()
            entry.language = try optionalString()
            let categories = try count()
            entry.categories.reserveCapacity(categories)
            for _ in 0..<categories {
                entry.categories.append(
                    Category(scheme: try optionalString(), term: try string(), label: try optionalString()))
            }
            entry.distributor = try optionalString()
            entry.additionalType = try optionalString()
            entry.updated = try optionalString()
            entry.published = try optionalString()
            entry.coverURL = try optionalString()
            entry.thumbnailURL = try optionalString()
            let acquisitions = try count()
            entry.acquisitions.reserveCapacity(acquisitions)
            for _ in 0..<acquisitions { entry.acquisitions.append(try acquisition()) }
            let links = try count()
            entry.links.reserveCapacity(links)
            for _ in 0..<links {
                entry.links.append(OPDSLink(
                    href: try string(), rel: try optionalString(), type: try optionalString(),
                    title: try optionalString(), facetGroup: try optionalString(), activeFacet: try bool(),
                    count: try int(), templated: try bool()))
            }
            entry.revokeURL = try optionalString()
            entry.annotationsURL = try optionalString()
            entry.isDraft = try bool()
            entry.duration = try double()
            if try bool() {
                entry.series = Series(name: try string(), position: try optionalString(), href: try optionalString())
            }
            let formats = try count()
            for _ in 0..<formats { entry.licenseFormats.append(try string()) }
            return entry
        }

        private mutating func acquisition() throws -> Acquisition {
            let kinds = AcquisitionKind.allCases
            let index = try count()
            guard index < kinds.count else { throw Corrupt() }
            var acquisition = Acquisition(
                kind: kinds[kinds.index(kinds.startIndex, offsetBy: index)], rel: try string(), href: try string(),
                type: try optionalString(), indirect: try indirect())
            if try bool() {
                acquisition.availability = Availability(
                    status: try string(), since: try double().map(Date.init(timeIntervalSinceReferenceDate:)),
                    until: try double().map(Date.init(timeIntervalSinceReferenceDate:)))
            }
            if try bool() { acquisition.holds = Holds(total: try int(), position: try int()) }
            if try bool() { acquisition.copies = Copies(total: try int(), available: try int()) }
            if try bool() { acquisition.price = Price(value: try string(), currency: try optionalString()) }
            return acquisition
        }

        private mutating func indirect() throws -> [IndirectAcquisition] {
            let nodes = try count()
            var result: [IndirectAcquisition] = []
            result.reserveCapacity(nodes)
            for _ in 0..<nodes { result.append(IndirectAcquisition(type: try string(), children: try indirect())) }
            return result
        }

        private mutating func contributors() throws -> [Contributor] {
            let number = try count()
            var result: [Contributor] = []
            result.reserveCapacity(number)
            for _ in 0..<number {
                let name = try string()
                let roles = try count()
                var contributor = Contributor(name: name)
                for _ in 0..<roles { contributor.roles.append(try string()) }
                contributor.sortName = try optionalString()
                contributor.uri = try optionalString()
                result.append(contributor)
            }
            return result
        }

        private mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw Corrupt() }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// A count or a length, which no whole record can exceed its bytes' count in.
        private mutating func count() throws -> Int {
            let value: UInt?
            do { value = try Varint.read(bytes, at: &offset) } catch { throw Corrupt() }
            guard let value, value <= UInt(bytes.count) else { throw Corrupt() }
            return Int(value)
        }

        private mutating func text(_ length: Int) throws -> String {
            guard length <= bytes.count - offset else { throw Corrupt() }
            defer { offset += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
        }

        private mutating func string() throws -> String { try text(try count()) }

        private mutating func optionalString() throws -> String? {
            let length = try count()
            return length == 0 ? nil : try text(length - 1)
        }

        private mutating func bool() throws -> Bool {
            switch try byte() {
            case 0: false
            case 1: true
            default: throw Corrupt()
            }
        }

        private mutating func bits() throws -> UInt64 {
            guard bytes.count - offset >= 8 else { throw Corrupt() }
            defer { offset += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }

        private mutating func int() throws -> Int? {
            try bool() ? Int(Int64(bitPattern: try bits())) : nil
        }

        private mutating func double() throws -> Double? {
            try bool() ? Double(bitPattern: try bits()) : nil
        }
    }

    /// Bytes that are not what a `Writer` made: a stage file cut short or changed under the sync.
    struct Corrupt: Error {}
}
