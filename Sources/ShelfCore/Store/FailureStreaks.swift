import Foundation
import GRDB

/// Failures in a row of one library's sync or one title's download, and when the next unattended try is due.
public struct FailureStreak: Codable, Sendable, Equatable {
    public var firstFailedAt: Date
    public var failures: Int
    public var nextTryAt: Date
    public var lastReason: String

    /// The wait after `failures` failures in a row: none after the first (the next run tries again, as a
    /// passing fault deserves), then 30 minutes, doubling up to a day, so cron every 30 minutes does not
    /// hammer a library that is down, nor tell the patron about it each time.
    public static func wait(after failures: Int) -> TimeInterval {
        failures <= 1 ? 0 : min(86_400, 1_800 * pow(2, Double(failures - 2)))
    }
}

/// What a sync (or a download) changed about a failure streak: the values the caller reports, once each.
public enum FailureTransition: Codable, Sendable, Equatable {
    /// The first failure after successes: worth telling the patron once.
    case startedFailing(reason: String)
    /// Another failure in a streak already reported: told only when not `--quiet`.
    case stillFailing(failures: Int, nextTry: Date, reason: String)
    /// Not tried: the streak's next try is later. Not an error for cron.
    case backingOff(until: Date, failures: Int, reason: String)
    /// The first success after a streak: worth telling once.
    case recovered(failures: Int, since: Date)

    /// Failures in the streak this transition ends or continues (1 for the first).
    public var failuresBefore: Int {
        switch self {
        case .startedFailing: 1
        case .stillFailing(let failures, _, _), .backingOff(_, let failures, _), .recovered(let failures, _): failures
        }
    }

    /// Whether the patron hears of it under `--quiet`: only the start and the end of a streak.
    public var isNews: Bool {
        switch self {
        case .startedFailing, .recovered: true
        case .stillFailing, .backingOff: false
        }
    }
}

extension Store {
    /// The current streak of failures, or nil when the last try succeeded; `editionID` nil means the library's sync.
    public func failureStreak(libraryID: Int64, editionID: Int64? = nil) throws(StoreError) -> FailureStreak? {
        try read { db in try Self.streak(db, libraryID: libraryID, editionID: editionID) }
    }

    /// Adds a failure to the streak (starting one), and sets when the next unattended try is due.
    @discardableResult
    public func noteFailure(libraryID: Int64, editionID: Int64? = nil, reason: String, at now: Date = Date()) throws
        -> FailureStreak
    {
        try write { db in
            var streak = try Self.streak(db, libraryID: libraryID, editionID: editionID)
                ?? FailureStreak(firstFailedAt: now, failures: 0, nextTryAt: now, lastReason: reason)
            streak.failures += 1
            streak.lastReason = reason
            streak.nextTryAt = now.addingTimeInterval(FailureStreak.wait(after: streak.failures))
            try db.execute(sql: """
                DELETE FROM failure_streak WHERE library_id = ? AND IFNULL(edition_id, 0) = IFNULL(?, 0)
                """, arguments: [libraryID, editionID])
            try db.execute(sql: """
                INSERT INTO failure_streak (library_id, edition_id, first_failed_at, failures, next_try_at, last_reason)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [
                    libraryID, editionID, streak.firstFailedAt.timeIntervalSince1970, streak.failures,
                    streak.nextTryAt.timeIntervalSince1970, reason,
                ])
            return streak
        }
    }

    /// Forgets a library's sync back-off after the patron changed something that may mend it (signed in, changed
    /// the library's settings): the next unattended sync tries at once rather than waiting out the streak.
    public func clearBackoff(libraryID: Int64) throws {
        try write { db in try Self.deleteStreak(db, libraryID: libraryID, editionID: nil) }
    }

    /// Ends a streak after a success; returns the streak that ended, if there was one.
    @discardableResult
    public func endFailureStreak(libraryID: Int64, editionID: Int64? = nil) throws -> FailureStreak? {
        try write { db in
            let streak = try Self.streak(db, libraryID: libraryID, editionID: editionID)
            if streak != nil { try Self.deleteStreak(db, libraryID: libraryID, editionID: editionID) }
            return streak
        }
    }

    static func deleteStreak(_ db: Database, libraryID: Int64, editionID: Int64?) throws {
        try db.execute(sql: """
            DELETE FROM failure_streak WHERE library_id = ? AND IFNULL(edition_id, 0) = IFNULL(?, 0)
            """, arguments: [libraryID, editionID])
    }

    private static func streak(_ db: Database, libraryID: Int64, editionID: Int64?) throws -> FailureStreak? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT first_failed_at, failures, next_try_at, last_reason FROM failure_streak
            WHERE library_id = ? AND IFNULL(edition_id, 0) = IFNULL(?, 0)
            """, arguments: [libraryID, editionID])
        else { return nil }
        return FailureStreak(
            firstFailedAt: Date(timeIntervalSince1970: row[0]), failures: row[1],
            nextTryAt: Date(timeIntervalSince1970: row[2]), lastReason: row[3])
    }
}
