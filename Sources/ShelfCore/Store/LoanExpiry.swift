import Foundation
import GRDB

extension Store {
    /// Ends the loans whose `until` has passed, offline too, and clears their files: a cheap check every command
    /// makes at start-up (one indexed query when nothing expired). Returns how many loans ended.
    @discardableResult
    public func expireLoans(home: Home, now: Date = Date()) throws -> Int {
        let expired = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT l.edition_id, l.library_id, e.entry_id, e.title, l.until FROM loan l
                JOIN edition e ON e.id = l.edition_id
                WHERE l.kind = 'loan' AND l.until IS NOT NULL AND l.until <= ?
                """, arguments: [now.timeIntervalSince1970])
        }
        guard !expired.isEmpty else { return 0 }
        var libraries = Set<Int64>()
        try write { db in
            for row in expired {
                let editionID: Int64 = row[0]
                let libraryID: Int64 = row[1]
                let entryID: String = row[2]
                let title: String = row[3]
                let until: Double = row[4]
                libraries.insert(libraryID)
                try db.execute(sql: "DELETE FROM loan WHERE edition_id = ?", arguments: [editionID])
                try EventRecord.append(
                    db, libraryID: libraryID, editionID: editionID, syncID: nil, at: now.timeIntervalSince1970,
                    kind: .ended, detail: "the loan expired")
                let moved = try Self.transition(
                    db, editionID, libraryID: libraryID, .loanEnded, reason: "the loan expired", note: "the loan expired",
                    now: now)
                let cleared = moved.from.hasLocalCopy || moved.from.state != .new
                try Notices.record(
                    db, kind: .expired, libraryID: libraryID, editionID: editionID, key: "expired:\(entryID):\(Int(until))",
                    text: "\(title): the loan expired" + (cleared ? "; its files were removed" : ""), at: now)
            }
        }
        for library in try self.libraries() where libraries.contains(library.id) {
            try LocalFiles(store: self, home: home).finishClearing(library)
        }
        return expired.count
    }
}
