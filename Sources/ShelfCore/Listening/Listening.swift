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
        if let id = try read({ db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'device_id'") }) {
            return id
        }
        return try writing { db in
            try db.execute(sql: "INSERT OR IGNORE INTO setting (key, value) VALUES ('device_id', ?)",
                           arguments: ["urn:uuid:" + UUID().uuidString.lowercased()])
            return try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'device_id'")!
        }
    }

    /// What this device knows of listening to an edition.
    public func listeningState(of rowID: Int64) throws(StoreError) -> ListeningState {
        let device = try deviceID()
        return try read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT speed, consumption, percent FROM listening WHERE edition_id = ?", arguments: [rowID])
            let position = try Row.fetchOne(
                db, sql: "SELECT * FROM device_position WHERE edition_id = ? AND device = ?", arguments: [rowID, device]
            ).map { Self.position($0, ours: device) }
            let pending = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM annotation_outbox WHERE edition_id = ?)", arguments: [rowID]) ?? false
            return ListeningState(
                position: position, speed: row?["speed"] ?? 1,
                consumption: (row?["consumption"] as String?).flatMap(Consumption.init(rawValue:)) ?? .new,
                percent: row?["percent"], pendingPush: pending)
        }
    }

    /// Saves this device's position in one transaction and queues it for pushing (one pending position per
    /// edition: the newest wins); the title becomes in progress, or finished when `finished`.
    public func savePosition(_ position: ListeningPosition, of rowID: Int64, percent: Double?, finished: Bool) throws(StoreError) {
        try writing { db in
            let now = Date().timeIntervalSince1970
            try Self.upsertPosition(db, position, of: rowID)
            let consumption: Consumption = finished ? .finished : .inProgress
            try db.execute(sql: """
                INSERT INTO listening (edition_id, consumption, percent, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (edition_id) DO UPDATE SET consumption = excluded.consumption, percent = excluded.percent,
                    updated_at = excluded.updated_at
                """, arguments: [rowID, consumption.rawValue, finished ? 100 : percent.map { min(100, max(0, $0)) }, now])
            try db.execute(sql: """
                INSERT INTO annotation_outbox (edition_id, library_id, motivation, part, seconds, reading_order_item, device, at)
                SELECT id, library_id, 'idling', ?, ?, ?, ?, ? FROM edition WHERE id = ?
                ON CONFLICT (edition_id) WHERE motivation = 'idling' DO UPDATE SET part = excluded.part,
                    seconds = excluded.seconds, reading_order_item = excluded.reading_order_item,
                    device = excluded.device, at = excluded.at, last_error = NULL
                """, arguments: [position.part, position.seconds, position.readingOrderItem, position.device,
                                 position.at.timeIntervalSince1970, rowID])
        }
    }

    /// Remembers the playback speed for an edition.
    public func saveSpeed(_ speed: Double, of rowID: Int64) throws(StoreError) {
        try writing { db in
            try db.execute(sql: """
                INSERT INTO listening (edition_id, speed, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (edition_id) DO UPDATE SET speed = excluded.speed, updated_at = excluded.updated_at
                """, arguments: [rowID, speed, Date().timeIntervalSince1970])
        }
    }

    /// `shelf mark`: new forgets this device's position (locally) and any position waiting to be pushed;
    /// finished sets 100%. Nothing is sent to the library.
    public func mark(_ rowID: Int64, as consumption: Consumption) throws(StoreError) {
        let device = try deviceID()
        try writing { db in
            let percent: Double? = switch consumption {
            case .new: nil
            case .finished: 100
            case .inProgress:
                try Double.fetchOne(db, sql: "SELECT percent FROM listening WHERE edition_id = ?", arguments: [rowID])
            }
            if consumption == .new {
                try db.execute(sql: "DELETE FROM device_position WHERE edition_id = ? AND device = ?", arguments: [rowID, device])
                try db.execute(sql: "DELETE FROM annotation_outbox WHERE edition_id = ? AND motivation = 'idling'",
                               arguments: [rowID])
            }
            try db.execute(sql: """
                INSERT INTO listening (edition_id, consumption, percent, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (edition_id) DO UPDATE SET consumption = excluded.consumption, percent = excluded.percent,
                    updated_at = excluded.updated_at
                """, arguments: [rowID, consumption.rawValue, percent, Date().timeIntervalSince1970])
        }
    }

    /// A bookmark at `position`, kept and queued for pushing with the bookmarking motivation.
    public func addBookmark(_ position: ListeningPosition, of rowID: Int64) throws(StoreError) {
        try writing { db in
            try db.execute(sql: """
                INSERT INTO bookmark (edition_id, part, seconds, reading_order_item, device, at) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [rowID, position.part, position.seconds, position.readingOrderItem, position.device,
                                 position.at.timeIntervalSince1970])
            try db.execute(sql: """
                INSERT INTO annotation_outbox (edition_id, library_id, motivation, part, seconds, reading_order_item, device, at)
                SELECT id, library_id, 'bookmarking', ?, ?, ?, ?, ? FROM edition WHERE id = ?
                """, arguments: [position.part, position.seconds, position.readingOrderItem, position.device,
                                 position.at.timeIntervalSince1970, rowID])
        }
    }

    /// An edition's bookmarks, oldest first.
    public func bookmarks(of rowID: Int64) throws(StoreError) -> [ListeningPosition] {
        let device = try deviceID()
        return try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM bookmark WHERE edition_id = ? ORDER BY at, id", arguments: [rowID])
                .map { Self.position($0, ours: device) }
        }
    }

    /// Positions known per device (this one and those seen on the server), newest first.
    public func devicePositions(of rowID: Int64) throws(StoreError) -> [ListeningPosition] {
        let device = try deviceID()
        return try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM device_position WHERE edition_id = ? ORDER BY at DESC, device", arguments: [rowID]
            ).map { Self.position($0, ours: device) }
        }
    }

    /// Records a position seen on the server, unless one at least as new is already known for that device.
    func recordRemotePosition(_ position: ListeningPosition, of rowID: Int64) throws(StoreError) {
        try writing { db in
            let known = try Double.fetchOne(
                db, sql: "SELECT at FROM device_position WHERE edition_id = ? AND device = ?",
                arguments: [rowID, position.device])
            if let known, known >= position.at.timeIntervalSince1970 { return }
            try Self.upsertPosition(db, position, of: rowID)
        }
    }

    private static func upsertPosition(_ db: Database, _ position: ListeningPosition, of rowID: Int64) throws {
        try db.execute(sql: """
            INSERT INTO device_position (edition_id, device, device_name, part, seconds, reading_order_item, at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (edition_id, device) DO UPDATE SET device_name = excluded.device_name, part = excluded.part,
                seconds = excluded.seconds, reading_order_item = excluded.reading_order_item, at = excluded.at
            """, arguments: [rowID, position.device, position.deviceName, position.part, position.seconds,
                             position.readingOrderItem, position.at.timeIntervalSince1970])
    }

    static func position(_ row: Row, ours: String) -> ListeningPosition {
        let device: String = row["device"]
        return ListeningPosition(
            part: row["part"], seconds: row["seconds"], readingOrderItem: row["reading_order_item"], device: device,
            deviceName: device == ours ? Self.thisComputer : row["device_name"] as String?,
            at: Date(timeIntervalSince1970: row["at"]))
    }

    /// How this device is named in listings.
    public static var thisComputer: String { "this computer (\(ProcessInfo.processInfo.hostName))" }

    /// `write` with its errors typed as the store's.
    func writing<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try write(body)
        } catch {
            throw Store.translate(error, path: path.path)
        }
    }
}
