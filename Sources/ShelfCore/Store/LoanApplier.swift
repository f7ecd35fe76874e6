import Foundation
import GRDB

/// Something about the patron's shelf that a sync should tell them.
public struct ShelfNotice: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// A hold's copy is waiting to be borrowed.
        case holdReady = "hold-ready"
        /// A loan ends within three days.
        case dueSoon = "due-soon"
        /// A loan or hold is no longer on the patron's shelf.
        case ended
    }

    public var kind: Kind
    public var id: String
    public var title: String
    public var message: String
}

/// Writes the patron's loans and holds from the loans feed, and ends those the feed no longer lists.
final class LoanApplier {
    private let db: Database
    private let libraryID: Int64
    private let syncID: Int64?
    private let now: Date
    private let applier: EntryApplier
    private(set) var notices: [ShelfNotice] = []

    init(db: Database, libraryID: Int64, syncID: Int64?, now: Date, applier: EntryApplier) throws {
        self.db = db
        self.libraryID = libraryID
        self.syncID = syncID
        self.now = now
        self.applier = applier
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS seen_loans (edition_id INTEGER PRIMARY KEY)")
        try db.execute(sql: "DELETE FROM temp.seen_loans")
    }

    /// Records one entry of the loans feed (or of a borrow response). Returns the edition's row id.
    /// Palace's rel of the link a loan gives for reporting the minutes heard.
    static let timeTrackingRel = "http://palaceproject.io/terms/timeTracking"

    @discardableResult
    func apply(_ record: EntryRecord) throws -> Int64 {
        let entry = record.entry
        let editionID = try Store.editionRowID(db, libraryID: libraryID, entryID: entry.id, key: record.key.key)
            ?? applier.insertOffCatalog(record)
        try db.execute(sql: "INSERT OR IGNORE INTO temp.seen_loans (edition_id) VALUES (?)", arguments: [editionID])
        // The patron borrowed, returned or reserved it with shelf after this sync read the feed: theirs is the later
        // word, and the next sync reads the feed again.
        if try actedSinceSyncBegan(editionID) { return editionID }
        let kind: Entitlement = switch record.entitlement {
        case .hold: .hold
        case .holdReady: .holdReady
        case .loan, .free, .none: .loan
        }
        let old = try Row.fetchOne(db, sql: "SELECT kind, until FROM loan WHERE edition_id = ?", arguments: [editionID])
        let oldKind: Entitlement? = old?["kind"]
        let availability = record.availability
        let acquisitions = (try? String(decoding: JSONEncoder().encode(entry.acquisitions), as: UTF8.self)) ?? "[]"
        try db.execute(sql: """
            INSERT INTO loan (edition_id, library_id, kind, since, until, holds_position, holds_total, copies_total,
                              copies_available, revoke_url, acquisitions, first_seen_at, updated_at, time_tracking_url)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (edition_id) DO UPDATE SET kind = excluded.kind, since = excluded.since,
                until = excluded.until, holds_position = excluded.holds_position, holds_total = excluded.holds_total,
                copies_total = excluded.copies_total, copies_available = excluded.copies_available,
                revoke_url = excluded.revoke_url, acquisitions = excluded.acquisitions, updated_at = excluded.updated_at,
                time_tracking_url = excluded.time_tracking_url
            """, arguments: [
                editionID, libraryID, kind, availability?.since?.timeIntervalSince1970,
                availability?.until?.timeIntervalSince1970, record.holds?.position, record.holds?.total,
                record.copies?.total, record.copies?.available, entry.revokeURL, acquisitions,
                now.timeIntervalSince1970, now.timeIntervalSince1970,
                entry.links.first { $0.rel == Self.timeTrackingRel }?.href,
            ])
        if oldKind != kind {
            let detail: String
            switch kind {
            case .loan:
                detail = "on loan" + (availability?.until.map { " until \(Self.day($0))" } ?? "")
            case .hold:
                detail = "on hold" + (record.holds?.position.map { ", #\($0) in line" } ?? "")
            default:
                detail = "hold ready" + (availability?.until.map { ", borrow by \(Self.day($0))" } ?? "")
            }
            try event(editionID, EventKind(kind), detail)
        }
        let since = availability?.since ?? availability?.until
        let stamp = since.map { String(Int($0.timeIntervalSince1970)) } ?? Self.day(now)
        if kind == .holdReady && oldKind != .holdReady {
            let short = try ShortID.shortID(of: entry.id, libraryID: libraryID, in: db)
            let message = "ready to borrow" + (availability?.until.map { " until \(Circulation.shortDate($0))" } ?? "")
                + ": shelf borrow \(short)"
            try notice(.holdReady, editionID, key: "hold-ready:\(entry.id):\(stamp)", entry.title, message, id: entry.id)
        }
        if kind == .loan && oldKind != .loan {
            let message = "new loan" + (availability?.until.map { ", due \(Circulation.shortDate($0))" } ?? "")
            try notice(.newLoan, editionID, key: "loan:\(entry.id):\(stamp)", entry.title, message, id: entry.id)
        }
        // Once per loan: the key names the loan's end, so only a renewal (a new end) tells again.
        if kind == .loan, let until = availability?.until, until.timeIntervalSince(now) < 3 * 86_400,
            until > now
        {
            try notice(.dueSoon, editionID, key: "due:\(entry.id):\(Int(until.timeIntervalSince1970))", entry.title,
                       Circulation.daysLeft(until: until, now: now) + " (due \(Circulation.shortDate(until)))", id: entry.id)
        }
        return editionID
    }

    /// How many loans and holds are stored.
    func storedCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM loan WHERE library_id = ?", arguments: [libraryID]) ?? 0
    }

    /// Ends the loans and holds the feed no longer lists; a downloaded edition's files go to Clearing.
    func endUnseen() throws -> Int {
        let rows = try Row.fetchAll(db, sql: """
            SELECT l.edition_id, l.kind, e.title, e.entry_id FROM loan l JOIN edition e ON e.id = l.edition_id
            WHERE l.library_id = ? AND l.edition_id NOT IN (SELECT edition_id FROM temp.seen_loans)
            """, arguments: [libraryID])
        for row in rows {
            let editionID: Int64 = row[0]
            // Borrowed or reserved with shelf after this sync read the feed.
            if try actedSinceSyncBegan(editionID) { continue }
            let kind: String = row[1]
            let what = kind == Entitlement.loan.rawValue ? "loan" : "hold"
            try end(editionID: editionID, reason: "the \(what) is no longer on the loans shelf (returned elsewhere or expired)")
            try notice(.ended, editionID, key: "ended:\(row[3] as String):\(Int(now.timeIntervalSince1970))", row[2],
                       "\(what) ended", id: row[3])
        }
        return rows.count
    }

    /// Removes a loan or hold and moves a local copy to Clearing; the files are removed after the commit.
    func end(editionID: Int64, reason: String) throws {
        try db.execute(sql: "DELETE FROM loan WHERE edition_id = ?", arguments: [editionID])
        try event(editionID, .ended, reason)
        try Store.transition(db, editionID, libraryID: libraryID, .loanEnded, reason: reason, note: "the loan ended",
                             syncID: syncID, now: now)
    }

    /// Records a notice for the patron; a ShelfNotice for the summary only when it is new (never twice). What a
    /// borrow or reserve answered was just said by that command, except a due date that is near: a sync says it.
    private func notice(
        _ kind: NoticeKind, _ editionID: Int64, key: String, _ title: String, _ message: String, id: String
    ) throws {
        guard try Notices.record(
            db, kind: kind, libraryID: libraryID, editionID: editionID, key: key, text: "\(title): \(message)", at: now,
            told: syncID == nil && kind != .dueSoon)
        else { return }
        let summaryKind: ShelfNotice.Kind? = switch kind {
        case .holdReady: .holdReady
        case .dueSoon: .dueSoon
        case .ended: .ended
        default: nil
        }
        if let summaryKind { notices.append(ShelfNotice(kind: summaryKind, id: id, title: title, message: message)) }
    }

    /// Whether the patron's own command (no sync's) changed the title's loan or hold after a sync began: only a
    /// sync asks, since it applies a feed it read earlier.
    private func actedSinceSyncBegan(_ editionID: Int64) throws -> Bool {
        guard syncID != nil else { return false }
        return try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT 1 FROM event WHERE edition_id = ? AND at > ? AND sync_id IS NULL
                AND kind IN ('loan', 'hold', 'hold-ready', 'ended') LIMIT 1
            """), arguments: [editionID, now.timeIntervalSince1970]) ?? false
    }

    private func event(_ editionID: Int64, _ kind: EventKind, _ detail: String) throws {
        try EventRecord.append(
            db, libraryID: libraryID, editionID: editionID, syncID: syncID, at: now.timeIntervalSince1970, kind: kind,
            detail: detail)
    }

    /// `2026-11-21`, the day in UTC (part of a notice's key, so it must not move with the time zone).
    private static func day(_ date: Date) -> String { String(OPDSDate.format(date).prefix(10)) }
}
