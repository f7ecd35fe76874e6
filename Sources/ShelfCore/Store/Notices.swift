import Foundation
import GRDB

/// What kind of thing a notice tells the patron.
public enum NoticeKind: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case holdReady = "hold-ready"
    case newLoan = "new-loan"
    case dueSoon = "due-soon"
    /// A loan's `until` passed: its files were cleared.
    case expired
    /// A loan or hold left the loans feed (returned elsewhere, cancelled).
    case ended
    case downloaded
    case downloadFailed = "download-failed"
    /// The publisher changed a title the patron has downloaded.
    case updated
    /// A followed author or series has a title the catalog did not have before.
    case newTitle = "new-title"
    case announcement
    /// A library started failing, or recovered (fed by the retry and backoff logic).
    case libraryFailing = "library-failing"
    case libraryRecovered = "library-recovered"
    /// The library's `--keep` rule archived a finished title.
    case archived
    /// A sync kept what it did not trust (an empty loans feed or catalog, a crawl bound, a skipped feed).
    case syncWarning = "sync-warning"
    /// Another device saved a newer place in a title: this computer's is held back until the patron answers.
    case positionOffer = "position-offer"

    /// The phrase a summary line uses for `count` notices of this kind ("500 holds ready").
    public func summary(_ count: Int) -> String {
        let s = count == 1 ? "" : "s"
        return switch self {
        case .holdReady: "\(count) hold\(s) ready to borrow"
        case .newLoan: "\(count) new loan\(s)"
        case .dueSoon: "\(count) loan\(s) due within 3 days"
        case .expired: "\(count) loan\(s) expired"
        case .ended: "\(count) loan\(s) or hold\(s) ended"
        case .downloaded: "\(count) download\(s) done"
        case .downloadFailed: "\(count) download\(s) failed"
        case .updated: "\(count) title\(s) updated"
        case .newTitle: "\(count) new title\(s) by authors or in series you follow"
        case .announcement: "\(count) library announcement\(s)"
        case .libraryFailing: "\(count) librar\(count == 1 ? "y" : "ies") failing"
        case .libraryRecovered: "\(count) librar\(count == 1 ? "y" : "ies") recovered"
        case .archived: "\(count) finished title\(s) archived to keep the library's --keep"
        case .syncWarning: "\(count) sync warning\(s)"
        case .positionOffer: "\(count) place\(s) another device saved, waiting for your answer"
        }
    }
}

/// One thing the patron is told once (table `notice`).
public struct Notice: Codable, Sendable, Equatable {
    public var id: Int64
    public var library: String
    public var kind: NoticeKind
    public var key: String
    /// The title it is about, when there is one.
    public var titleID: String?
    public var text: String
    public var at: Date
    public var seenAt: Date?

    /// The one line a sync prints for it.
    public var line: String { text }
}

/// The notice log: the one place table `notice` is written. Each happening has a unique key within its library,
/// so recording it again (the next sync, a loans feed that lists a loan twice) is ignored.
public enum Notices {
    /// Records a notice unless one with the same key is stored; returns whether it is new. `told`: the patron
    /// caused it and was told already (a borrow), so it is logged as seen, printed and notified.
    @discardableResult
    public static func record(
        _ db: Database, kind: NoticeKind, libraryID: Int64, editionID: Int64?, key: String, text: String,
        at: Date = Date(), told: Bool = false
    ) throws -> Bool {
        let toldAt = told ? at.timeIntervalSince1970 : nil
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO notice (library_id, edition_id, kind, key, text, at, seen_at, printed_at, notified_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [libraryID, editionID, kind, key, text, at.timeIntervalSince1970, toldAt, toldAt, toldAt])
        return db.changesCount > 0
    }

    static func fetch(_ db: Database, where condition: String, arguments: StatementArguments) throws -> [Notice] {
        try Row.fetchAll(db, sql: """
            SELECT n.id, l.name, n.kind, n.key, e.entry_id, n.text, n.at, n.seen_at
            FROM notice n JOIN library l ON l.id = n.library_id LEFT JOIN edition e ON e.id = n.edition_id
            WHERE \(condition) ORDER BY n.id
            """, arguments: arguments).map { row in
            Notice(
                id: row[0], library: row[1], kind: NoticeKind(rawValue: row[2]) ?? .announcement, key: row[3],
                titleID: row[4], text: row[5], at: Date(timeIntervalSince1970: row[6]), seenAt: row.date("seen_at"))
        }
    }
}

extension Store {
    /// Records a notice unless one with the same key is stored; returns whether it is new. `told`: the command
    /// the patron ran has said it already, so it is logged as seen, printed and notified.
    @discardableResult
    public func recordNotice(
        kind: NoticeKind, libraryID: Int64, editionID: Int64? = nil, key: String, text: String, told: Bool = false
    ) throws -> Bool {
        try write { db in
            try Notices.record(
                db, kind: kind, libraryID: libraryID, editionID: editionID, key: key, text: text, told: told)
        }
    }

    /// The notices of the libraries given (all when nil), oldest first; only those `shelf events` has not shown when
    /// `unseen`.
    public func notices(libraryIDs: [Int64]? = nil, unseen: Bool = false) throws(StoreError) -> [Notice] {
        try read { db in
            var condition = unseen ? "n.seen_at IS NULL" : "1"
            if let libraryIDs { condition += " AND n.library_id IN (\(libraryIDs.map(String.init).joined(separator: ",")))" }
            return try Notices.fetch(db, where: condition, arguments: [])
        }
    }

    /// Marks notices as shown by `shelf events`.
    public func markNoticesSeen(_ ids: [Int64], at: Date = Date()) throws {
        try mark(ids, column: "seen_at", at: at)
    }

    /// Takes the notices of a library no sync has printed yet, marking them printed: each is printed once.
    public func takeUnprinted(libraryID: Int64, at: Date = Date()) throws -> [Notice] {
        try write { db in
            let notices = try Notices.fetch(
                db, where: "n.library_id = ? AND n.printed_at IS NULL", arguments: [libraryID])
            try db.execute(
                sql: "UPDATE notice SET printed_at = ? WHERE library_id = ? AND printed_at IS NULL",
                arguments: [at.timeIntervalSince1970, libraryID])
            return notices
        }
    }

    /// Marks notices as printed (a command that showed them itself).
    public func markNoticesPrinted(_ ids: [Int64], at: Date = Date()) throws {
        try mark(ids, column: "printed_at", at: at)
    }

    /// The notices no desktop notification was sent for yet.
    public func unnotified(libraryIDs: [Int64]) throws(StoreError) -> [Notice] {
        try read { db in
            try Notices.fetch(
                db, where: "n.notified_at IS NULL AND n.library_id IN (\(libraryIDs.map(String.init).joined(separator: ",")))",
                arguments: [])
        }
    }

    /// Marks notices as sent to the desktop: never twice.
    public func markNoticesNotified(_ ids: [Int64], at: Date = Date()) throws {
        try mark(ids, column: "notified_at", at: at)
    }

    private func mark(_ ids: [Int64], column: String, at: Date) throws {
        guard !ids.isEmpty else { return }
        try write { db in
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ ids[$0..<min($0 + 500, ids.count)] }) {
                try db.execute(
                    sql: "UPDATE notice SET \(column) = ? WHERE \(column) IS NULL AND id IN (\(chunk.map(String.init).joined(separator: ",")))",
                    arguments: [at.timeIntervalSince1970])
            }
        }
    }
}
