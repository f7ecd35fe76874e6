import Foundation
import GRDB

/// A bookmark of a title: made here or pulled from another device through the annotation service.
public struct Bookmark: Codable, Sendable, Equatable {
    /// The store's row id (stable; not the number shown, which is the place in book order).
    public var id: Int64
    /// Index into the reading order, from 0.
    public var part: Int
    /// Seconds into that part.
    public var seconds: Double
    public var readingOrderItem: String
    /// The patron's name for it, when given.
    public var name: String?
    /// The id of the device that made it.
    public var device: String
    /// "this computer (hostname)" for this device's, the device's own name when it sent one, else nil.
    public var deviceName: String?
    public var thisDevice: Bool
    /// The annotation's id on the server, once pushed or pulled.
    public var serverID: String?
    public var at: Date

    /// Where the bookmark is, as a position of its device.
    public var position: ListeningPosition {
        ListeningPosition(part: part, seconds: seconds, readingOrderItem: readingOrderItem, device: device,
                          deviceName: deviceName, at: at)
    }

    init(_ record: BookmarkRecord, ours: String) {
        id = record.id ?? 0
        part = record.part
        seconds = record.seconds
        readingOrderItem = record.readingOrderItem
        name = record.name
        device = record.device
        deviceName = record.device == ours ? Store.thisComputer : record.deviceName
        thisDevice = record.device == ours
        serverID = record.serverID
        at = record.at
    }
}

/// A bookmark read from the annotation service, resolved to a part of the book.
struct PulledBookmark {
    var serverID: String
    var part: Int
    var seconds: Double
    var readingOrderItem: String
    var name: String?
    var device: String
    var deviceName: String?
    var at: Date
}

/// A tombstone: a bookmark deleted here whose annotation the server still has.
struct BookmarkTombstone {
    var id: Int64
    var serverID: String
    var title: String
}

extension Store {
    /// A bookmark at `position`, with an optional name, kept and queued for pushing with the bookmarking motivation.
    @discardableResult
    public func addBookmark(_ position: ListeningPosition, name: String? = nil, of edition: EditionRef) throws(StoreError)
        -> Int64
    {
        let name = name.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        return try writePositions { db in
            try BookmarkRecord(
                editionID: edition.rowID, libraryID: edition.libraryID, part: position.part, seconds: position.seconds,
                readingOrderItem: position.readingOrderItem, device: position.device, at: position.at, name: name
            ).insert(db)
            let id = db.lastInsertedRowID
            var item = OutboxRecord(.bookmarking, position, of: edition)
            item.bookmarkID = id
            try item.insert(db)
            return id
        }
    }

    /// An edition's live bookmarks (tombstones left out), in book order.
    public func bookmarks(of edition: EditionRef) throws(StoreError) -> [Bookmark] {
        let device = try deviceID()
        return try readPositions { db in
            try BookmarkRecord.filter(Column("edition_id") == edition.rowID && Column("deleted") == false)
                .order(Column("part"), Column("seconds"), Column("at"), Column("id")).fetchAll(db)
                .map { Bookmark($0, ours: device) }
        }
    }

    /// Deletes a bookmark: one never pushed is removed with its queued post; one the server has becomes a tombstone
    /// until `PositionSync.pushPending` has DELETEd it there. Returns whether a DELETE is now queued.
    @discardableResult
    public func deleteBookmark(_ id: Int64) throws(StoreError) -> Bool {
        try writePositions { db in
            guard let record = try BookmarkRecord.fetchOne(db, key: id) else { return false }
            try OutboxRecord.filter(Column("bookmark_id") == id).deleteAll(db)
            if record.serverID == nil {
                try record.delete(db)
                return false
            }
            try db.execute(sql: "UPDATE bookmark SET deleted = 1 WHERE id = ?", arguments: [id])
            return true
        }
    }

    /// Records the id the server gave a posted bookmark; when the bookmark was deleted here meanwhile, it becomes a
    /// tombstone at once (returns true), so the server's copy is deleted too.
    func recordServerID(_ serverID: String, bookmark id: Int64, of edition: Int64, libraryID: Int64) throws(StoreError)
        -> Bool
    {
        try writePositions { db in
            // Another row already holding the id (pulled meanwhile) is the same bookmark: keep this one.
            try db.execute(sql: "DELETE FROM bookmark WHERE edition_id = ? AND server_id = ? AND id != ?",
                           arguments: [edition, serverID, id])
            if try BookmarkRecord.fetchOne(db, key: id) == nil {
                try BookmarkRecord(
                    editionID: edition, libraryID: libraryID, part: 0, seconds: 0, readingOrderItem: "", device: "",
                    at: Date(), serverID: serverID, deleted: true
                ).insert(db)
                return true
            }
            try db.execute(sql: "UPDATE bookmark SET server_id = ? WHERE id = ?", arguments: [serverID, id])
            return false
        }
    }

    /// Applies the bookmarks read from the server: new ones of other devices are kept; when the list was complete
    /// (`present` holds every annotation id it had), bookmarks that had reached the server and are gone from it
    /// disappear here (tombstones and unpushed ones stay). Returns how many were added and removed.
    @discardableResult
    func applyPulledBookmarks(_ pulled: [PulledBookmark], of edition: EditionRef, present: Set<String>?) throws(StoreError)
        -> (added: Int, removed: Int)
    {
        let ours = try deviceID()
        return try writePositions { db in
            let known = try BookmarkRecord.filter(Column("edition_id") == edition.rowID && Column("server_id") != nil)
                .fetchAll(db)
            let knownIDs = Set(known.compactMap(\.serverID))
            var added = 0
            for bookmark in pulled where !knownIDs.contains(bookmark.serverID) && bookmark.device != ours {
                try BookmarkRecord(
                    editionID: edition.rowID, libraryID: edition.libraryID, part: bookmark.part, seconds: bookmark.seconds,
                    readingOrderItem: bookmark.readingOrderItem, device: bookmark.device, at: bookmark.at,
                    name: bookmark.name, deviceName: bookmark.deviceName, serverID: bookmark.serverID
                ).insert(db)
                added += 1
            }
            var removed = 0
            if let present {
                for record in known where !record.deleted && !present.contains(record.serverID ?? "") {
                    try record.delete(db)
                    removed += 1
                }
            }
            return (added, removed)
        }
    }

    /// A library's tombstones with their titles, oldest first.
    func bookmarkTombstones(of library: Library) throws(StoreError) -> [BookmarkTombstone] {
        let records = try readPositions { db in
            try BookmarkRecord.filter(Column("library_id") == library.id && Column("deleted") == true && Column("server_id") != nil)
                .order(Column("id")).fetchAll(db)
        }
        guard !records.isEmpty else { return [] }
        return try read { db in
            try records.map { record in
                let title = try String.fetchOne(db, sql: "SELECT title FROM edition WHERE id = ?", arguments: [record.editionID])
                return BookmarkTombstone(id: record.id ?? 0, serverID: record.serverID ?? "", title: title ?? "a title")
            }
        }
    }

    /// Removes a tombstone once the server's copy is gone.
    func removeTombstone(_ id: Int64) throws(StoreError) {
        try writePositions { db in _ = try BookmarkRecord.deleteOne(db, key: id) }
    }

    /// A bookmark's name, for the annotation that posts it.
    func bookmarkName(_ id: Int64?) throws(StoreError) -> String? {
        guard let id else { return nil }
        return try readPositions { db in try String.fetchOne(db, sql: "SELECT name FROM bookmark WHERE id = ?", arguments: [id]) }
    }
}
