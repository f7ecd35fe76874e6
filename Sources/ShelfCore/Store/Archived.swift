import Foundation
import GRDB

/// Who archived a title that stays on loan (column `edition.archived_by`): its files were removed on purpose, and
/// no policy brings them back. A download the patron asks for by name, or the loan ending, clears it
/// (`Store.transition`).
public enum ArchivedBy: String, Codable, Sendable, DatabaseValueConvertible {
    /// `shelf archive`.
    case patron
    /// The library's `--keep` rule, after the title was finished.
    case keep
}

extension Store {
    /// Records who archived a title.
    public func markArchived(_ edition: EditionRef, by who: ArchivedBy) throws {
        try write { db in
            try db.execute(sql: "UPDATE edition SET archived_by = ? WHERE id = ?", arguments: [who, edition.rowID])
        }
    }

    /// Who archived a title, if anyone did.
    public func archivedBy(_ edition: EditionRef) throws(StoreError) -> ArchivedBy? {
        try read { db in
            try ArchivedBy.fetchOne(db, sql: "SELECT archived_by FROM edition WHERE id = ?", arguments: [edition.rowID])
        }
    }

    /// The entry ids of a library's archived titles.
    public func archivedIDs(in libraryID: Int64) throws(StoreError) -> Set<String> {
        try read { db in
            Set(try String.fetchAll(
                db, sql: "SELECT entry_id FROM edition WHERE library_id = ? AND archived_by IS NOT NULL", arguments: [libraryID]))
        }
    }
}
