import Foundation
import GRDB

/// What becomes of another device's position that this device has not answered yet (`Store.considerOffer`).
public enum OfferVerdict: Sendable, Equatable {
    /// Nothing new: it is not newer than what this device last pushed or answered.
    case known
    /// Newer, but at this device's place (within `Store.samePlace` seconds): answered by itself.
    case samePlace
    /// Newer and elsewhere: offered, and this device's position is held back until the patron chooses.
    case offered
}

extension Store {
    /// How close, in seconds of the book, two places must be to count as the same.
    public static let samePlace: Double = 30

    /// Weighs another device's newest position against what this device knows: a position newer than both the last
    /// one this device pushed and the last other device's position the patron answered is news. At this device's
    /// place (`close` says whether it is, given this device's position), it is answered by itself; elsewhere it
    /// becomes the title's open offer (replacing an older one).
    func considerOffer(
        _ remote: ListeningPosition, of edition: EditionRef, close: (ListeningPosition?) -> Bool
    ) throws(StoreError) -> OfferVerdict {
        let ours = try deviceID()
        return try writePositions { db in
            let row = try Row.fetchOne(db, sql: "SELECT pushed_at, settled_at, offer_at FROM position_sync WHERE edition_id = ?",
                                       arguments: [edition.rowID])
            let local = try DevicePositionRecord.fetchOne(db, key: ["edition_id": edition.rowID, "device": ours])
            // Before this device ever pushed a position of the title, the library's is another device's, whatever its
            // age: the first push would replace it, so it is news.
            let marks: [Double?] = [row?["pushed_at"], row?["settled_at"], row?["offer_at"]]
            let known = marks.compactMap { $0 }.max() ?? -.infinity
            let at = remote.at.timeIntervalSince1970
            guard at > known else { return .known }
            try db.execute(sql: "INSERT OR IGNORE INTO position_sync (edition_id, library_id) VALUES (?, ?)",
                           arguments: [edition.rowID, edition.libraryID])
            if close(local?.position(ours: ours)) {
                try db.execute(sql: """
                    UPDATE position_sync SET settled_at = ?, offer_device = NULL, offer_device_name = NULL,
                        offer_part = NULL, offer_seconds = NULL, offer_item = NULL, offer_at = NULL
                    WHERE edition_id = ?
                    """, arguments: [at, edition.rowID])
                return .samePlace
            }
            try db.execute(sql: """
                UPDATE position_sync SET offer_device = ?, offer_device_name = ?, offer_part = ?, offer_seconds = ?,
                    offer_item = ?, offer_at = ?
                WHERE edition_id = ?
                """, arguments: [remote.device, remote.deviceName, remote.part, remote.seconds, remote.readingOrderItem, at,
                                 edition.rowID])
            return .offered
        }
    }

    /// The title's open offer: another device's newer place, not answered yet; nil when there is none.
    public func openOffer(of edition: EditionRef) throws(StoreError) -> ListeningPosition? {
        try readPositions { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT offer_device, offer_device_name, offer_part, offer_seconds, offer_item, offer_at
                FROM position_sync WHERE edition_id = ? AND offer_at IS NOT NULL
                """, arguments: [edition.rowID])
            else { return nil }
            return ListeningPosition(
                part: row["offer_part"], seconds: row["offer_seconds"], readingOrderItem: row["offer_item"],
                device: row["offer_device"], deviceName: row["offer_device_name"],
                at: Date(timeIntervalSince1970: row["offer_at"]))
        }
    }

    /// The patron answered other devices' positions up to `at` (went there, stayed, or moved on after seeing the
    /// offer): an offer no newer is closed, and this device's position may be pushed over it.
    public func settleOffer(of edition: EditionRef, upTo at: Date) throws(StoreError) {
        try writePositions { db in
            try db.execute(sql: "INSERT OR IGNORE INTO position_sync (edition_id, library_id) VALUES (?, ?)",
                           arguments: [edition.rowID, edition.libraryID])
            let arguments: StatementArguments = [at.timeIntervalSince1970, edition.rowID]
            try db.execute(sql: "UPDATE position_sync SET settled_at = MAX(COALESCE(settled_at, ?1), ?1) WHERE edition_id = ?2",
                           arguments: arguments)
            try db.execute(sql: """
                UPDATE position_sync SET offer_device = NULL, offer_device_name = NULL, offer_part = NULL,
                    offer_seconds = NULL, offer_item = NULL, offer_at = NULL
                WHERE edition_id = ?2 AND offer_at <= ?1
                """, arguments: arguments)
        }
    }

    /// The library accepted this device's position saved at `at`.
    func recordPushed(_ at: Date, of editionID: Int64, libraryID: Int64) throws(StoreError) {
        try writePositions { db in
            try db.execute(sql: """
                INSERT INTO position_sync (edition_id, library_id, pushed_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (edition_id) DO UPDATE SET pushed_at = MAX(COALESCE(pushed_at, ?3), ?3)
                """, arguments: [editionID, libraryID, at.timeIntervalSince1970])
        }
    }

    /// This device put `part`, `seconds` to the title's progression document.
    func recordProgressionPut(part: Int, seconds: Double, of edition: EditionRef) throws(StoreError) {
        try writePositions { db in
            try db.execute(sql: """
                INSERT INTO position_sync (edition_id, library_id, put_part, put_seconds) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (edition_id) DO UPDATE SET put_part = ?3, put_seconds = ?4
                """, arguments: [edition.rowID, edition.libraryID, part, seconds])
        }
    }

    /// The place this device last put to the title's progression document.
    func lastProgressionPut(of edition: EditionRef) throws(StoreError) -> (part: Int, seconds: Double)? {
        try readPositions { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT put_part, put_seconds FROM position_sync WHERE edition_id = ? AND put_part IS NOT NULL
                """, arguments: [edition.rowID])
            else { return nil }
            return (row["put_part"], row["put_seconds"])
        }
    }

    /// Titles of a library with an open offer, by catalog row id.
    func editionsWithOffers(in libraryID: Int64) throws(StoreError) -> Set<Int64> {
        try readPositions { db in
            Set(try Int64.fetchAll(db, sql: "SELECT edition_id FROM position_sync WHERE library_id = ? AND offer_at IS NOT NULL",
                                   arguments: [libraryID]))
        }
    }
}
