import Foundation
import GRDB

/// What the patron follows: an author (by name, without regard to case) or a series (`schema:series`, OPDS 2
/// `belongsTo.series`).
public enum FollowKind: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case author, series
}

/// An author or series the patron follows, with how many new titles `shelf news` has not shown yet.
public struct Follow: Codable, Sendable, Equatable {
    public var kind: FollowKind
    public var name: String
    public var newTitles: Int
}

/// A title a sync found by a followed author or in a followed series.
public struct NewsItem: Codable, Sendable, Equatable {
    public var kind: FollowKind
    public var follow: String
    public var library: String
    public var id: String
    public var shortID: String
    public var title: String
    public var authors: String
    public var series: String?
    public var foundAt: Date
}

extension Store {
    /// Follows an author or a series; false when it was followed already.
    @discardableResult
    public func follow(_ kind: FollowKind, name: String, at: Date = Date()) throws -> Bool {
        try write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO follow (kind, name, created_at) VALUES (?, ?, ?)",
                arguments: [kind, name, at.timeIntervalSince1970])
            return db.changesCount > 0
        }
    }

    /// Stops following; false when it was not followed.
    @discardableResult
    public func unfollow(_ kind: FollowKind, name: String) throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM follow WHERE kind = ? AND name = ?", arguments: [kind, name])
            return db.changesCount > 0
        }
    }

    /// Every follow with its count of titles not yet shown by `shelf news`.
    public func follows() throws(StoreError) -> [Follow] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.kind, f.name,
                       (SELECT COUNT(*) FROM follow_title t WHERE t.follow_id = f.id AND t.viewed_at IS NULL)
                FROM follow f ORDER BY f.kind, f.name COLLATE NOCASE
                """).map { Follow(kind: $0[0], name: $0[1], newTitles: $0[2]) }
        }
    }

    /// The titles found for follows that `shelf news` has not shown (all of them when `all`).
    public func news(all: Bool = false) throws(StoreError) -> [NewsItem] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.kind, f.name, l.name, e.entry_id, e.title, e.authors, e.series_name, t.found_at, e.library_id
                FROM follow_title t JOIN follow f ON f.id = t.follow_id JOIN edition e ON e.id = t.edition_id
                JOIN library l ON l.id = e.library_id
                WHERE \(all ? "1" : "t.viewed_at IS NULL") ORDER BY t.found_at, e.title
                """).map { row in
                try NewsItem(
                    kind: row[0], follow: row[1], library: row[2], id: row[3],
                    shortID: ShortID.shortID(of: row[3], libraryID: row[8], in: db), title: row[4], authors: row[5],
                    series: row[6],
                    foundAt: Date(timeIntervalSince1970: row[7]))
            }
        }
    }

    /// Clears the new-title counts: `shelf news` showed them.
    public func markNewsViewed(at: Date = Date()) throws {
        try write { db in
            try db.execute(sql: "UPDATE follow_title SET viewed_at = ? WHERE viewed_at IS NULL", arguments: [at.timeIntervalSince1970])
        }
    }

    /// Counts the titles a sync added (first seen at `since` or later) that match a follow, and records a notice for
    /// each. Returns how many were found.
    static func matchFollows(_ db: Database, libraryID: Int64, since: Double, now: Date) throws -> Int {
        let follows = try Row.fetchAll(db, sql: "SELECT id, kind, name FROM follow").map {
            (id: $0[0] as Int64, kind: FollowKind(rawValue: $0[1]) ?? .author, name: ($0[2] as String).lowercased())
        }
        guard !follows.isEmpty else { return 0 }
        let added = try Row.fetchAll(db, sql: """
            SELECT id, entry_id, title, authors, series_name FROM edition
            WHERE library_id = ? AND first_seen_at >= ? AND in_catalog = 1
            """, arguments: [libraryID, since])
        var found = 0
        for row in added {
            let authors = Set((row[3] as String).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            let series = (row[4] as String?)?.lowercased()
            for follow in follows {
                let matches = follow.kind == .author ? authors.contains(follow.name) : series == follow.name
                guard matches else { continue }
                try db.execute(
                    sql: "INSERT OR IGNORE INTO follow_title (follow_id, edition_id, found_at) VALUES (?, ?, ?)",
                    arguments: [follow.id, row[0], now.timeIntervalSince1970])
                guard db.changesCount > 0 else { continue }
                found += 1
                let entryID: String = row[1]
                let what = follow.kind == .author ? "by \(row[3] as String)" : "in the series \(row[4] as String? ?? "")"
                try Notices.record(
                    db, kind: .newTitle, libraryID: libraryID, editionID: row[0], key: "new-title:\(entryID)",
                    text: "\(row[2] as String): new \(what): shelf show \(try ShortID.shortID(of: entryID, libraryID: libraryID, in: db))",
                    at: now)
            }
        }
        return found
    }
}
