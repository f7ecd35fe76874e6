import Foundation
import GRDB

/// What a line of an edition's history records.
enum EventKind: String, DatabaseValueConvertible {
    /// The lifecycle moved (Downloaded → Updated, …).
    case state
    /// The publisher changed the edition (`updated`, an acquisition's `rel` or `href`).
    case changed
    /// The catalog's availability changed, and nothing else the publisher controls.
    case availability
    case removed, restored
    /// The patron's loan or hold began, became ready, or ended.
    case loan, hold
    case holdReady = "hold-ready"
    case ended
    /// `shelf browse` or `shelf search` showed the title before any sync saw it in the catalog.
    case found

    /// The event for the patron's new standing at the library.
    init(_ entitlement: Entitlement) {
        switch entitlement {
        case .hold: self = .hold
        case .holdReady: self = .holdReady
        case .loan, .free, .none: self = .loan
        }
    }

    /// The kinds that record something the patron did or has at the library (a loan, a hold, a download):
    /// a title with any of them in its history is never forgotten.
    static let patronActs: [EventKind] = [.state, .loan, .hold, .holdReady, .ended]
}

/// A line of an edition's history (table `event`): the one place it is written.
enum EventRecord {
    static func append(
        _ db: Database, libraryID: Int64, editionID: Int64, syncID: Int64?, at: Double, kind: EventKind, detail: String
    ) throws {
        try db.cachedStatement(sql: """
            INSERT INTO event (library_id, edition_id, sync_id, at, kind, detail) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [libraryID, editionID, syncID, at, kind, detail])
    }
}
