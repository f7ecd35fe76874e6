import Foundation
import GRDB

/// One listening session as the log keeps it (table `listening_session`); after a year, one per title and day.
public struct ListeningSession: Codable, Sendable, Equatable {
    public var id: Int64
    /// The title's catalog row.
    public var editionID: Int64
    public var startedAt: Date
    public var endedAt: Date
    /// Seconds of the clock heard (10 minutes at 2× is 10 minutes).
    public var heard: Double
    public var fromPart: Int
    public var fromSeconds: Double
    public var toPart: Int
    public var toSeconds: Double
    public var speed: Double
    public var device: String

    init(row: Row) {
        id = row["id"]
        editionID = row["edition_id"]
        startedAt = Date(timeIntervalSince1970: row["started_at"])
        endedAt = Date(timeIntervalSince1970: row["ended_at"])
        heard = row["heard"]
        fromPart = row["from_part"]
        fromSeconds = row["from_seconds"]
        toPart = row["to_part"]
        toSeconds = row["to_seconds"]
        speed = row["speed"]
        device = row["device"]
    }
}

/// Minutes of one title heard and not yet taken by the library's timeTracking endpoint.
struct PlaytimeBatch {
    var edition: EditionRef
    var trackingURL: String
    var entries: [(id: String, minute: Int, seconds: Int)]
}

extension Store {
    /// How long the log keeps every session before merging them into one per title and day.
    public static let sessionsKeptWhole: TimeInterval = 365 * 86_400

    /// Starts a session of listening at `position`; returns its id.
    public func startListeningSession(of edition: EditionRef, at position: ListeningPosition, speed: Double) throws(StoreError) -> Int64 {
        let device = try deviceID()
        return try writePositions { db in
            try db.execute(sql: """
                INSERT INTO listening_session (edition_id, library_id, started_at, ended_at, heard, from_part, from_seconds,
                    to_part, to_seconds, speed, device)
                VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)
                """, arguments: [edition.rowID, edition.libraryID, position.at.timeIntervalSince1970,
                                 position.at.timeIntervalSince1970, position.part, position.seconds, position.part,
                                 position.seconds, speed, device])
            return db.lastInsertedRowID
        }
    }

    /// Adds what was heard since the last call to a session (seconds per UTC minute, by the minute's number since
    /// 1970), and where it is now; with `trackingURL`, the minutes also wait for the library's playtime endpoint,
    /// at most 60 seconds each.
    public func recordHeard(
        session: Int64, of edition: EditionRef, minutes: [Int: Double], at position: ListeningPosition, speed: Double,
        trackingURL: String?
    ) throws(StoreError) {
        try writePositions { db in
            let heard = minutes.values.reduce(0, +)
            try db.execute(sql: """
                UPDATE listening_session SET ended_at = MAX(ended_at, ?), heard = heard + ?, to_part = ?, to_seconds = ?,
                    speed = ?
                WHERE id = ?
                """, arguments: [position.at.timeIntervalSince1970, heard, position.part, position.seconds, speed, session])
            guard let trackingURL else { return }
            for (minute, seconds) in minutes where seconds > 0 {
                try db.execute(sql: """
                    INSERT INTO playtime_minute (edition_id, library_id, minute, seconds, entry_id, tracking_url)
                    VALUES (?, ?, ?, MIN(60, ?), ?, ?)
                    ON CONFLICT (edition_id, minute) DO UPDATE SET seconds = MIN(60, seconds + excluded.seconds),
                        tracking_url = excluded.tracking_url
                    """, arguments: [edition.rowID, edition.libraryID, minute, seconds,
                                     "urn:uuid:" + UUID().uuidString.lowercased(), trackingURL])
            }
        }
    }

    /// Sessions newest first: of one title or all, started at or after `since`, with some heard, at most `limit`.
    public func listeningSessions(of edition: EditionRef? = nil, since: Date? = nil, limit: Int? = nil) throws(StoreError) -> [ListeningSession] {
        try readPositions { db in
            var sql = "SELECT * FROM listening_session WHERE heard > 0"
            var arguments: StatementArguments = []
            if let edition {
                sql += " AND edition_id = ?"
                arguments += [edition.rowID]
            }
            if let since {
                sql += " AND started_at >= ?"
                arguments += [since.timeIntervalSince1970]
            }
            sql += " ORDER BY started_at DESC, id DESC"
            if let limit { sql += " LIMIT \(limit)" }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(ListeningSession.init(row:))
        }
    }

    /// Merges the sessions started before `before` into one per title and local day (the first place, the last
    /// place, the heard time summed), and forgets sessions with nothing heard: the log grows by at most a row per
    /// title and day after a year.
    public func compactListeningLog(before: Date) throws(StoreError) {
        try writePositions { db in
            let cutoff = before.timeIntervalSince1970
            try db.execute(sql: "DELETE FROM listening_session WHERE heard <= 0 AND ended_at < ?", arguments: [cutoff])
            let groups = try Row.fetchAll(db, sql: """
                SELECT edition_id, date(started_at, 'unixepoch', 'localtime') AS day, COUNT(*) AS sessions
                FROM listening_session WHERE started_at < ? GROUP BY edition_id, day HAVING sessions > 1
                """, arguments: [cutoff])
            for group in groups {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT * FROM listening_session
                    WHERE edition_id = ? AND date(started_at, 'unixepoch', 'localtime') = ? AND started_at < ?
                    ORDER BY started_at, id
                    """, arguments: [group["edition_id"], group["day"], cutoff]).map(ListeningSession.init(row:))
                guard let first = rows.first, let last = rows.last else { continue }
                try db.execute(sql: """
                    UPDATE listening_session SET ended_at = ?, heard = ?, to_part = ?, to_seconds = ?, speed = ? WHERE id = ?
                    """, arguments: [rows.map(\.endedAt.timeIntervalSince1970).max(), rows.map(\.heard).reduce(0, +),
                                     last.toPart, last.toSeconds, last.speed, first.id])
                try db.execute(sql: "DELETE FROM listening_session WHERE id IN (\(rows.dropFirst().map { String($0.id) }.joined(separator: ",")))")
            }
        }
    }

    // MARK: Playtime for the library

    /// Where the loan of a title reports its minutes heard (Palace's timeTracking link); nil when it gives none or
    /// the title is not on loan.
    public func timeTrackingURL(of edition: EditionRef) throws(StoreError) -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT time_tracking_url FROM loan WHERE edition_id = ? AND kind = 'loan'",
                                arguments: [edition.rowID])
        }
    }

    /// A library's minutes waiting for its playtime endpoints that ended before `minute`, per title.
    func queuedPlaytime(of library: Library, before minute: Int) throws(StoreError) -> [PlaytimeBatch] {
        let rows = try readPositions { db in
            try Row.fetchAll(db, sql: """
                SELECT edition_id, tracking_url, entry_id, minute, seconds FROM playtime_minute
                WHERE library_id = ? AND minute < ? ORDER BY edition_id, minute
                """, arguments: [library.id, minute])
        }
        guard !rows.isEmpty else { return [] }
        var batches: [PlaytimeBatch] = []
        let entryIDs = try read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(
                db, sql: "SELECT id, entry_id FROM edition WHERE library_id = ?", arguments: [library.id]
            ).map { ($0[0] as Int64, $0[1] as String) })
        }
        for row in rows {
            let editionID: Int64 = row["edition_id"]
            // A title the catalog no longer has: its minutes cannot be told to anyone.
            guard let entryID = entryIDs[editionID] else { continue }
            let url: String = row["tracking_url"]
            let entry = (id: row["entry_id"] as String, minute: row["minute"] as Int,
                         seconds: Int((row["seconds"] as Double).rounded()))
            if batches.last?.edition.rowID == editionID && batches.last?.trackingURL == url {
                batches[batches.count - 1].entries.append(entry)
            } else {
                batches.append(PlaytimeBatch(
                    edition: EditionRef(libraryID: library.id, rowID: editionID, entryID: entryID), trackingURL: url,
                    entries: [entry]))
            }
        }
        return batches
    }

    /// Forgets minutes the library took (or refused for good).
    func removePlaytime(_ entryIDs: [String]) throws(StoreError) {
        guard !entryIDs.isEmpty else { return }
        try writePositions { db in
            for id in entryIDs { try db.execute(sql: "DELETE FROM playtime_minute WHERE entry_id = ?", arguments: [id]) }
        }
    }

    /// Records why a library's minutes are still waiting.
    func setPlaytimeError(_ reason: String, library libraryID: Int64) throws(StoreError) {
        try writePositions { db in
            try db.execute(sql: "UPDATE playtime_minute SET last_error = ? WHERE library_id = ?", arguments: [reason, libraryID])
        }
    }

    /// How many minutes of a library wait for its playtime endpoints.
    public func pendingPlaytimeMinutes(in libraryID: Int64) throws(StoreError) -> Int {
        try readPositions { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM playtime_minute WHERE library_id = ?", arguments: [libraryID]) ?? 0
        }
    }
}
