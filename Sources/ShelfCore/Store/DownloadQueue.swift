import Foundation
import GRDB

/// A title waiting in the download queue.
public struct QueuedDownload: Codable, Sendable, Equatable {
    public var position: Int
    public var id: String
    public var shortID: String
    public var title: String
    public var priority: QueuePriority
    public var state: LifecycleState
    public var lastError: String?
    /// Parts already downloaded, of how many (0 of 0 before the manifest is known).
    public var partsDone: Int
    public var parts: Int
}

/// How urgently a title is wanted.
public enum QueuePriority: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    /// To the top of the queue.
    case high
    /// To the bottom.
    case normal
}

/// Where to move a title in the queue.
public enum QueueMove: String, Sendable, CaseIterable {
    case top, bottom, up, down
}

/// The persisted download queue of one library (table `download_queue`, whose one owner this is): titles are
/// drained in position order. What leaves it after a download is decided in Fulfilment (`settle`).
public struct DownloadQueue: Sendable {
    let store: Store
    let library: Library

    public init(store: Store, library: Library) {
        self.store = store
        self.library = library
    }

    /// Adds a title (or changes its priority): `high` goes to the top, `normal` to the bottom.
    public func enqueue(_ edition: EditionRef, priority: QueuePriority = .normal) throws {
        let rowID = edition.rowID
        try store.write { db in
            let bounds = try Row.fetchOne(
                db, sql: "SELECT MIN(position), MAX(position) FROM download_queue WHERE library_id = ?", arguments: [library.id])
            let low: Double = bounds?[0] ?? 0
            let high: Double = bounds?[1] ?? 0
            let position = priority == .high ? low - 1 : high + 1
            let exists = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM download_queue WHERE edition_id = ?", arguments: [rowID]) ?? false
            if exists {
                if priority == .high {
                    try db.execute(sql: "UPDATE download_queue SET position = ?, priority = 'high' WHERE edition_id = ?",
                                   arguments: [position, rowID])
                }
            } else {
                try db.execute(sql: """
                    INSERT INTO download_queue (edition_id, library_id, position, priority, added_at) VALUES (?, ?, ?, ?, ?)
                    """, arguments: [rowID, library.id, position, priority, Date().timeIntervalSince1970])
            }
        }
    }

    /// Removes a title from the queue (done, or no longer wanted).
    /// Takes a title out of the queue; false when it was not in it.
    @discardableResult
    public func remove(_ edition: EditionRef) throws -> Bool {
        let rowID = edition.rowID
        return try store.write { db in
            try db.execute(sql: "DELETE FROM download_queue WHERE edition_id = ?", arguments: [rowID])
            return db.changesCount > 0
        }
    }

    /// Notes why the last attempt stopped, keeping the title queued.
    public func recordError(_ edition: EditionRef, _ error: String?) throws {
        let rowID = edition.rowID
        try store.write { db in
            try db.execute(sql: "UPDATE download_queue SET last_error = ? WHERE edition_id = ?", arguments: [error, rowID])
        }
    }

    /// Moves a title within the queue.
    public func move(_ edition: EditionRef, _ move: QueueMove) throws {
        let rowID = edition.rowID
        try store.write { db in
            let ordered = try Int64.fetchAll(
                db, sql: "SELECT edition_id FROM download_queue WHERE library_id = ? ORDER BY position, added_at",
                arguments: [library.id])
            guard var index = ordered.firstIndex(of: rowID) else {
                let title = try String.fetchOne(db, sql: "SELECT title FROM edition WHERE id = ?", arguments: [rowID]) ?? ""
                throw StoreError.notQueued(
                    title: title, id: try ShortID.shortID(of: edition.entryID, libraryID: library.id, in: db))
            }
            var order = ordered
            order.remove(at: index)
            switch move {
            case .top: index = 0
            case .bottom: index = order.count
            case .up: index = max(0, index - 1)
            case .down: index = min(order.count, index + 1)
            }
            order.insert(rowID, at: index)
            for (position, id) in order.enumerated() {
                try db.execute(sql: "UPDATE download_queue SET position = ? WHERE edition_id = ?", arguments: [Double(position), id])
            }
        }
    }

    /// The queued titles in order, resolved.
    public func editions() throws(StoreError) -> [EditionRef] {
        try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT q.edition_id, e.entry_id FROM download_queue q JOIN edition e ON e.id = q.edition_id
                WHERE q.library_id = ? ORDER BY q.position, q.added_at
                """, arguments: [library.id])
                .map { EditionRef(libraryID: library.id, rowID: $0[0], entryID: $0[1]) }
        }
    }

    /// The queue in order.
    public func entries() throws(StoreError) -> [QueuedDownload] {
        try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT q.priority, q.last_error, e.entry_id, e.title, e.state,
                       (SELECT COUNT(*) FROM part p WHERE p.edition_id = e.id AND p.status = 'downloaded') AS done,
                       (SELECT COUNT(*) FROM part p WHERE p.edition_id = e.id) AS parts
                FROM download_queue q JOIN edition e ON e.id = q.edition_id
                WHERE q.library_id = ? ORDER BY q.position, q.added_at
                """, arguments: [library.id]).enumerated().map { index, row in
                try QueuedDownload(
                    position: index + 1, id: row["entry_id"],
                    shortID: ShortID.shortID(of: row["entry_id"], libraryID: library.id, in: db),
                    title: row["title"], priority: row["priority"],
                    state: LifecycleState(rawValue: row["state"]) ?? .new, lastError: row["last_error"],
                    partsDone: row["done"], parts: row["parts"])
            }
        }
    }
}
