import Foundation
import GRDB

/// How far a patron has got with a title.
public enum Consumption: String, Codable, Sendable, CaseIterable {
    case new
    case inProgress = "in-progress"
    case finished
}

/// Where a patron is in a book, on one device.
public struct ListeningPosition: Codable, Sendable, Equatable {
    /// Index into the reading order, from 0.
    public var part: Int
    /// Seconds into that part.
    public var seconds: Double
    /// The part's manifest href without its query string: what is posted to the annotation service.
    public var readingOrderItem: String
    /// The device's id, e.g. `urn:uuid:…`.
    public var device: String
    /// A human name when known: "this computer (hostname)" for this device, the annotation's own for others.
    public var deviceName: String?
    public var at: Date

    public init(part: Int, seconds: Double, readingOrderItem: String, device: String, deviceName: String?, at: Date) {
        self.part = part
        self.seconds = seconds
        self.readingOrderItem = readingOrderItem
        self.device = device
        self.deviceName = deviceName
        self.at = at
    }
}

/// Everything the store keeps about listening to one title on this device.
public struct ListeningState: Codable, Sendable, Equatable {
    /// This device's last saved position, nil if never played.
    public var position: ListeningPosition?
    /// 1.0 unless saved.
    public var speed: Double
    public var consumption: Consumption
    /// 0…100, when known.
    public var percent: Double?
    /// A position or bookmark waits to be pushed to the library.
    public var pendingPush: Bool
}

/// Annotation motivations, as the Palace annotation service names them (the queue keeps the short names
/// `idling` and `bookmarking`).
enum Motivation {
    static let idling = "http://librarysimplified.org/terms/annotation/idling"
    static let bookmarking = "http://www.w3.org/ns/oa#bookmarking"
}

extension Consumption {
    /// "new", "43%", "in progress", "finished": the PROGRESS column of `shelf list`.
    public func label(percent: Double?) -> String {
        switch self {
        case .new: "new"
        case .finished: "finished"
        case .inProgress: percent.map { "\(Int($0.rounded(.down)))%" } ?? "in progress"
        }
    }
}

extension Store {
    /// This store's device id: a `urn:uuid:` made once and kept.
    public func deviceID() throws(StoreError) -> String {
        if let id = try readPositions({ db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'device_id'") }) {
            return id
        }
        // A read-only home has no position of this device to find: any id that is not stored will do.
        if isReadOnly { return "urn:uuid:00000000-0000-4000-8000-000000000000" }
        return try writePositions { db in
            try db.execute(sql: "INSERT OR IGNORE INTO setting (key, value) VALUES ('device_id', ?)",
                           arguments: ["urn:uuid:" + UUID().uuidString.lowercased()])
            return try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'device_id'")!
        }
    }

    /// What this device knows of listening to an edition.
    public func listeningState(of edition: EditionRef) throws(StoreError) -> ListeningState {
        let device = try deviceID()
        return try readPositions { db in
            let record = try ListeningRecord.fetchOne(db, key: edition.rowID)
            let position = try DevicePositionRecord.fetchOne(db, key: ["edition_id": edition.rowID, "device": device])
            let pending = try OutboxRecord.filter(Column("edition_id") == edition.rowID).isEmpty(db) == false
                || BookmarkRecord.filter(Column("edition_id") == edition.rowID && Column("deleted") == true).isEmpty(db) == false
            return ListeningState(
                position: position?.position(ours: device), speed: record?.speed ?? 1,
                consumption: record?.consumption ?? .new, percent: record?.percent, pendingPush: pending)
        }
    }

    /// How far the patron is in every title of a library that has been listened to, by catalog row id.
    func consumption(in libraryID: Int64) throws(StoreError) -> [Int64: (Consumption, Double?)] {
        try readPositions { db in
            var result: [Int64: (Consumption, Double?)] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT edition_id, consumption, percent FROM listening WHERE library_id = ?", arguments: [libraryID])
            while let row = try rows.next() {
                result[row[0]] = (Consumption(rawValue: row[1]) ?? .new, row[2])
            }
            return result
        }
    }

    /// When each finished title of a library was finished (its listening state last changed), by catalog row id.
    func finishedAt(in libraryID: Int64) throws(StoreError) -> [Int64: Date] {
        try readPositions { db in
            var result: [Int64: Date] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT edition_id, updated_at FROM listening WHERE library_id = ? AND consumption = 'finished'
                """, arguments: [libraryID]) {
                result[row[0]] = Date(timeIntervalSince1970: row[1])
            }
            return result
        }
    }

    /// How far the patron is in one title, nil when it was never played.
    func consumption(of edition: EditionRef) throws(StoreError) -> (Consumption, Double?)? {
        try readPositions { db in try ListeningRecord.fetchOne(db, key: edition.rowID).map { ($0.consumption, $0.percent) } }
    }

    /// Saves this device's position in one transaction and queues it for pushing (one pending position per
    /// edition: the newest wins); the title becomes in progress, or finished when `finished`.
    ///
    /// `seen` is what the saver last knew of the title's state (a player: what it read at the start, then what each
    /// save left). When the stored state differs from it, `shelf mark` changed it meanwhile: the mark is the later
    /// word and stays (unless this save finishes the title); the position is saved all the same. With `keepState`
    /// the state is left as it is (a player that took a mark). Returns the state the save leaves.
    @discardableResult
    public func savePosition(
        _ position: ListeningPosition, of edition: EditionRef, percent: Double?, finished: Bool, seen: Consumption? = nil,
        keepState: Bool = false
    ) throws(StoreError) -> Consumption {
        try writePositions { db in
            try DevicePositionRecord(position, of: edition).upsert(db)
            let stored = try ListeningRecord.fetchOne(db, key: edition.rowID)
            var record = stored
                ?? ListeningRecord(editionID: edition.rowID, libraryID: edition.libraryID, updatedAt: Date())
            let marked = keepState || (seen.map { seen in stored.map { $0.consumption != seen } ?? false } ?? false)
            if finished || !marked {
                record.consumption = finished ? .finished : .inProgress
                record.percent = finished ? 100 : percent.map { min(100, max(0, $0)) }
                record.updatedAt = Date()
                try record.save(db)
            }
            try OutboxRecord.queueIdling(db, position, of: edition)
            return record.consumption
        }
    }

    /// Remembers the playback speed for an edition.
    public func saveSpeed(_ speed: Double, of edition: EditionRef) throws(StoreError) {
        try writePositions { db in
            var record = try ListeningRecord.fetchOne(db, key: edition.rowID)
                ?? ListeningRecord(editionID: edition.rowID, libraryID: edition.libraryID, updatedAt: Date())
            record.speed = speed
            record.updatedAt = Date()
            try record.save(db)
        }
    }

    /// `shelf mark`: new forgets this device's position (locally) and any position waiting to be pushed;
    /// finished sets 100%. Nothing is sent to the library.
    public func mark(_ edition: EditionRef, as consumption: Consumption) throws(StoreError) {
        let device = try deviceID()
        try writePositions { db in
            var record = try ListeningRecord.fetchOne(db, key: edition.rowID)
                ?? ListeningRecord(editionID: edition.rowID, libraryID: edition.libraryID, updatedAt: Date())
            switch consumption {
            case .new: record.percent = nil
            case .finished: record.percent = 100
            case .inProgress: break
            }
            if consumption == .new {
                try DevicePositionRecord.deleteOne(db, key: ["edition_id": edition.rowID, "device": device])
                try OutboxRecord.filter(Column("edition_id") == edition.rowID && Column("motivation") == OutboxMotivation.idling)
                    .deleteAll(db)
            }
            record.consumption = consumption
            record.updatedAt = Date()
            try record.save(db)
        }
    }

    /// Positions known per device (this one and those seen on the server), newest first.
    public func devicePositions(of edition: EditionRef) throws(StoreError) -> [ListeningPosition] {
        let device = try deviceID()
        return try readPositions { db in
            try DevicePositionRecord.filter(Column("edition_id") == edition.rowID)
                .order(Column("at").desc, Column("device")).fetchAll(db)
                .map { $0.position(ours: device) }
        }
    }

    /// Records a position seen on the server, unless one at least as new is already known for that device.
    func recordRemotePosition(_ position: ListeningPosition, of edition: EditionRef) throws(StoreError) {
        try writePositions { db in
            let known = try DevicePositionRecord.fetchOne(db, key: ["edition_id": edition.rowID, "device": position.device])
            if let known, known.at >= position.at { return }
            try DevicePositionRecord(position, of: edition).upsert(db)
        }
    }

    /// Forgets the listening state of every title of a library (before the library itself is removed).
    func forgetListening(in libraryID: Int64) throws(StoreError) {
        try writePositions { db in
            for table in [ListeningRecord.databaseTableName, DevicePositionRecord.databaseTableName,
                          BookmarkRecord.databaseTableName, OutboxRecord.databaseTableName, "position_sync",
                          "listening_session", "playtime_minute"]
            {
                try db.execute(sql: "DELETE FROM \(table) WHERE library_id = ?", arguments: [libraryID])
            }
        }
    }

    /// How this device is named in listings.
    public static var thisComputer: String { "this computer (\(ProcessInfo.processInfo.hostName))" }
}
