import Foundation
import GRDB

/// Where one part's file stands.
public enum PartState: String, Codable, Sendable, DatabaseValueConvertible {
    /// Known from the manifest, not fetched yet.
    case pending
    case downloading
    /// Complete on disk.
    case downloaded
    case failed
    /// Its link expired before it completed; the next try fetches a fresh manifest.
    case expired
}

/// The state of one part, for `shelf show`.
public struct PartStatus: Codable, Sendable, Equatable {
    public var index: Int
    public var title: String?
    public var status: PartState
    public var bytes: Int64?
    public var expectedBytes: Int64?
    public var reason: String?
}

/// One part of a downloaded or downloading edition (table `part`): the one owner of that table.
public struct PartRecord: StoreRecord, Sendable, Equatable {
    public static let databaseTableName = "part"
    public var editionID: Int64
    public var index: Int
    /// The part's href without what changes between manifests (signatures), to match a part across updates.
    public var hrefPath: String
    /// The file's name in the edition's directory.
    public var file: String
    public var title: String?
    public var duration: Double?
    public var bytes: Int64?
    public var status: PartState
    /// Why it failed, or its progress while downloading.
    public var reason: String?
    public var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case editionID = "edition_id", index = "idx", hrefPath = "href_path", file, title, duration, bytes, status, reason
        case updatedAt = "updated_at"
    }

    public init(
        editionID: Int64, index: Int, hrefPath: String, file: String, title: String?, duration: Double?, bytes: Int64?,
        status: PartState, reason: String? = nil, updatedAt: Date = Date()
    ) {
        self.editionID = editionID
        self.index = index
        self.hrefPath = hrefPath
        self.file = file
        self.title = title
        self.duration = duration
        self.bytes = bytes
        self.status = status
        self.reason = reason
        self.updatedAt = updatedAt
    }

    var partStatus: PartStatus {
        PartStatus(index: index, title: title, status: status, bytes: bytes, expectedBytes: nil, reason: reason)
    }
}

extension Store {
    /// The parts recorded for an edition, in order.
    public func partRecords(of edition: EditionRef) throws(StoreError) -> [PartRecord] {
        try read { db in try Self.partRecords(db, edition.rowID) }
    }

    static func partRecords(_ db: Database, _ editionID: Int64) throws -> [PartRecord] {
        try PartRecord.filter(Column("edition_id") == editionID).order(Column("idx")).fetchAll(db)
    }

    /// The parts recorded for an edition, in order, as `shelf show` lists them.
    public func parts(of edition: EditionRef) throws(StoreError) -> [PartStatus] {
        try partRecords(of: edition).map(\.partStatus)
    }

    /// Records a manifest's parts: new ones pending, known ones (by index) with their new href, file, title and
    /// duration but their download state kept, and parts past the new end dropped.
    public func planParts(_ parts: [PartRecord], of edition: EditionRef) throws {
        try write { db in
            let known = Set(try Int.fetchAll(db, sql: "SELECT idx FROM part WHERE edition_id = ?", arguments: [edition.rowID]))
            try PartRecord.filter(Column("edition_id") == edition.rowID && Column("idx") >= parts.count).deleteAll(db)
            for part in parts {
                if known.contains(part.index) {
                    try db.execute(sql: """
                        UPDATE part SET href_path = ?, file = ?, title = ?, duration = ?, updated_at = ?
                        WHERE edition_id = ? AND idx = ?
                        """, arguments: [part.hrefPath, part.file, part.title, part.duration,
                                         part.updatedAt.timeIntervalSince1970, edition.rowID, part.index])
                } else {
                    try part.insert(db)
                }
            }
        }
    }

    /// Replaces every part row of an edition (a package unpacked: its parts are all on disk).
    public func replaceParts(_ parts: [PartRecord], of edition: EditionRef) throws {
        try write { db in
            try PartRecord.filter(Column("edition_id") == edition.rowID).deleteAll(db)
            for part in parts { try part.insert(db) }
        }
    }

    /// Notes a part's new state; `bytes` nil keeps the size already known.
    public func updatePart(_ index: Int, of edition: EditionRef, status: PartState, bytes: Int64?, reason: String?) throws {
        try write { db in
            try db.execute(sql: """
                UPDATE part SET status = ?, bytes = COALESCE(?, bytes), reason = ?, updated_at = ? WHERE edition_id = ? AND idx = ?
                """, arguments: [status, bytes, reason, Date().timeIntervalSince1970, edition.rowID, index])
        }
    }
}

/// What fulfilment learnt for an edition: the manifest as the library sent it, and when its URLs stop working
/// (table `fulfilment`).
public struct FulfilmentRecord: StoreRecord, Sendable, Equatable {
    public static let databaseTableName = "fulfilment"
    public var editionID: Int64
    /// The manifest document, as it came.
    public var manifest: String
    /// Where it came from (relative links resolve against it).
    public var manifestURL: String?
    public var expiresAt: Date?
    public var fetchedAt: Date

    enum CodingKeys: String, CodingKey {
        case editionID = "edition_id", manifest, manifestURL = "manifest_url", expiresAt = "expires_at"
        case fetchedAt = "fetched_at"
    }

    public init(editionID: Int64, manifest: String, manifestURL: String?, expiresAt: Date?, fetchedAt: Date = Date()) {
        self.editionID = editionID
        self.manifest = manifest
        self.manifestURL = manifestURL
        self.expiresAt = expiresAt
        self.fetchedAt = fetchedAt
    }
}

extension Store {
    /// The manifest fulfilment stored for an edition, if any.
    public func fulfilment(of edition: EditionRef) throws(StoreError) -> FulfilmentRecord? {
        try read { db in try FulfilmentRecord.fetchOne(db, key: edition.rowID) }
    }

    /// Keeps (or replaces) an edition's manifest.
    public func saveFulfilment(_ record: FulfilmentRecord) throws {
        try write { db in try record.upsert(db) }
    }

    /// The acquisition links the loans feed gave for a loan (fulfilment starts there), empty when none.
    public func loanAcquisitions(of edition: EditionRef) throws(StoreError) -> [Acquisition] {
        let json = try read { db in
            try String.fetchOne(db, sql: "SELECT acquisitions FROM loan WHERE edition_id = ?", arguments: [edition.rowID])
        }
        return json.flatMap { try? JSONDecoder().decode([Acquisition].self, from: Data($0.utf8)) } ?? []
    }
}

extension Store {
    /// The metadata key that marks a manifest shelf made itself (a single file, a zip of audio files), whose table of
    /// contents shelf may write; a library's own manifest is kept as it came.
    public static let syntheticManifestKey = "shelf:synthetic"

    /// Writes chapters found in the files (part index, seconds into it) as the table of contents of an edition's
    /// synthetic manifest, when that has none yet. Returns whether it did: false for a library's own manifest, a
    /// manifest with a toc, or no manifest at all.
    @discardableResult
    public func saveChapters(_ chapters: [(title: String, part: Int, offset: Double)], of edition: EditionRef) throws -> Bool {
        guard !chapters.isEmpty else { return false }
        return try write { db -> Bool in
            guard var record = try FulfilmentRecord.fetchOne(db, key: edition.rowID),
                var root = try? JSONSerialization.jsonObject(with: Data(record.manifest.utf8)) as? [String: Any],
                let metadata = root["metadata"] as? [String: Any], metadata[Self.syntheticManifestKey] as? Bool == true,
                (root["toc"] as? [Any] ?? []).isEmpty,
                let order = root["readingOrder"] as? [[String: Any]]
            else { return false }
            let hrefs = order.compactMap { $0["href"] as? String }
            guard hrefs.count == order.count, chapters.allSatisfy({ hrefs.indices.contains($0.part) }) else { return false }
            // Chapters point into their part as Readium tables of contents do: `href#t=seconds`.
            root["toc"] = chapters.map { chapter -> [String: Any] in
                let seconds = (chapter.offset * 1000).rounded() / 1000
                let offset = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
                return ["href": hrefs[chapter.part] + "#t=" + offset, "title": chapter.title]
            }
            let data = try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes])
            record.manifest = String(decoding: data, as: UTF8.self)
            try record.update(db)
            return true
        }
    }
}
