import Foundation
import GRDB

/// Something a sync kept rather than trust what it read (an empty loans feed, an empty catalog, a crawl cut short by
/// its bound, a feed of a crawl that failed), for as long as it keeps happening (table `sync_guard`).
struct SyncGuard: Sendable, Equatable {
    /// What kept something, stable from run to run (`empty-loans`, `skipped-feed URL: reason`).
    var key: String
    /// The warning, one line.
    var text: String

    /// The key of the guard a navigation root's feed of every title found lacking leaves: while it holds, the next
    /// sync crawls every section (`FeedFetcher.routeLacked`).
    static let crawlFallback = "crawl-fallback"

    /// Records the guards that held in this sync: a guard that did not hold in the sync before is an event (told
    /// already when `told`, else by the sync's event lines, so `--quiet` prints it once); one that no longer holds is
    /// forgotten, so its next occurrence is news again.
    static func note(_ guards: [SyncGuard], _ db: Database, library: Library, told: Bool, at now: Date) throws {
        let before = Set(try String.fetchAll(
            db, sql: "SELECT key FROM sync_guard WHERE library_id = ?", arguments: [library.id]))
        let holding = Set(guards.map(\.key))
        for key in before.subtracting(holding) {
            try db.execute(sql: "DELETE FROM sync_guard WHERE library_id = ? AND key = ?", arguments: [library.id, key])
        }
        for guardRecord in guards where !before.contains(guardRecord.key) {
            try db.execute(
                sql: "INSERT OR IGNORE INTO sync_guard (library_id, key, since) VALUES (?, ?, ?)",
                arguments: [library.id, guardRecord.key, now.timeIntervalSince1970])
            _ = try Notices.record(
                db, kind: .syncWarning, libraryID: library.id, editionID: nil,
                key: "guard:\(guardRecord.key):\(Int(now.timeIntervalSince1970 * 1000))",
                text: "\(library.name): warning: \(guardRecord.text)", at: now, told: told)
        }
    }
}
