import Foundation
import GRDB

extension Store {
    /// Moves an edition's lifecycle through `event`, recording the change in its history.
    @discardableResult
    public func applyLifecycle(_ event: LifecycleEvent, to edition: EditionRef, reason: String? = nil, now: Date = Date())
        throws -> Lifecycle
    {
        try write { db in
            try Self.transition(db, edition.rowID, libraryID: edition.libraryID, event, reason: reason, now: now,
                                keepsReason: true).to
        }
    }

    /// An edition's lifecycle, read alone (without the details `edition(_:)` gathers).
    public func lifecycle(of edition: EditionRef) throws(StoreError) -> Lifecycle {
        try read { db in try Self.lifecycle(db, edition.rowID) }
    }

    static func lifecycle(_ db: Database, _ editionID: Int64) throws -> Lifecycle {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT state, has_local_copy FROM edition WHERE id = ?"), arguments: [editionID])
        guard let row else { throw StoreError.editionNotFound("\(editionID)") }
        return Lifecycle(state: LifecycleState(rawValue: row[0]) ?? .new, hasLocalCopy: row[1])
    }

    /// The one place an edition's lifecycle columns are written: applies `event` to the stored lifecycle, refusing
    /// an invalid transition (`Lifecycle.InvalidTransition`), and records a change in the edition's history.
    ///
    /// - Parameters:
    ///   - note: the history line's ending ("A → B: note"); without one it names the event and the reason.
    ///   - keepsReason: write the reason and time even when the state stays as it was (a step the patron or a
    ///     download took); otherwise an unchanged lifecycle writes nothing.
    @discardableResult
    static func transition(
        _ db: Database, _ editionID: Int64, libraryID: Int64, _ event: LifecycleEvent, reason: String?, note: String? = nil,
        syncID: Int64? = nil, now: Date, keepsReason: Bool = false
    ) throws -> (from: Lifecycle, to: Lifecycle) {
        let current = try lifecycle(db, editionID)
        let next = try current.applying(event)
        // A title downloaded again, or no longer on loan, is no longer one the patron (or the keep rule) archived.
        if next.state == .downloaded || event == .loanEnded {
            try db.cachedStatement(sql: "UPDATE edition SET archived_by = NULL WHERE id = ? AND archived_by IS NOT NULL")
                .execute(arguments: [editionID])
        }
        guard next != current || keepsReason else { return (current, next) }
        try db.cachedStatement(sql: """
            UPDATE edition SET state = ?, has_local_copy = ?, state_reason = ?, state_changed_at = ? WHERE id = ?
            """).execute(arguments: [next.state.rawValue, next.hasLocalCopy, reason, now.timeIntervalSince1970, editionID])
        if next != current {
            let ending = note.map { ": \($0)" } ?? " (\(event.phrase))" + (reason.map { ": \($0)" } ?? "")
            try EventRecord.append(
                db, libraryID: libraryID, editionID: editionID, syncID: syncID, at: now.timeIntervalSince1970, kind: .state,
                detail: "\(current.state.label) → \(next.state.label)\(ending)")
        }
        return (current, next)
    }
}

// The lifecycle's enums are stored as their raw values.
extension LifecycleState: DatabaseValueConvertible {}
extension Entitlement: DatabaseValueConvertible {}
extension LifecycleEvent: DatabaseValueConvertible {}
