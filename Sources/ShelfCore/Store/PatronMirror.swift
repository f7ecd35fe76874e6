import Foundation
import GRDB

/// A copy of the patron's own rows of the catalog database, kept beside it in `libraries.json`: the libraries
/// with their settings, the follows, and the titles the patron downloaded, archived or queued (by their rowids, so
/// positions, bookmarks and downloaded files keyed by them find them again). A catalog database that is lost (or
/// whose library rows were) is rebuilt from it, and the next sync fetches the rest.
///
/// Triggers on those rows mark the copy stale (`mirror_state.dirty`, migration v21); after each write that did, the
/// store writes the file anew (`Store.refreshMirror`). The file is small: a few hundred bytes a library and a
/// hundred a title.
public enum PatronMirror {
    /// What the file holds.
    struct Snapshot: Codable, Equatable {
        var libraries: [MirrorRow]
        var follows: [MirrorRow]
        var titles: [MirrorRow]

        /// One row, as column name and value (text, integer, real or null).
        struct MirrorRow: Codable, Equatable {
            var values: [String: MirrorValue]
        }

        enum MirrorValue: Codable, Equatable {
            case null
            case integer(Int64)
            case real(Double)
            case text(String)

            init(_ value: DatabaseValue) {
                switch value.storage {
                case .int64(let number): self = .integer(number)
                case .double(let number): self = .real(number)
                case .string(let text): self = .text(text)
                default: self = .null
                }
            }

            var databaseValue: DatabaseValue {
                switch self {
                case .null: .null
                case .integer(let number): number.databaseValue
                case .real(let number): number.databaseValue
                case .text(let text): text.databaseValue
                }
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if container.decodeNil() {
                    self = .null
                } else if let number = try? container.decode(Int64.self) {
                    self = .integer(number)
                } else if let number = try? container.decode(Double.self) {
                    self = .real(number)
                } else {
                    self = .text(try container.decode(String.self))
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .null: try container.encodeNil()
                case .integer(let number): try container.encode(number)
                case .real(let number): try container.encode(number)
                case .text(let text): try container.encode(text)
                }
            }
        }
    }

    static let libraryColumns = [
        "id", "name", "url", "is_default", "catalog_title", "crawlable_url", "shelf_url", "auth_document_url",
        "annotations_url", "created_at", "crawl_depth", "crawl_feeds", "auto_download", "keep_finished", "max_bytes",
        "notify", "sync_positions",
    ]
    static let followColumns = ["id", "kind", "name", "created_at"]
    static let titleColumns = ["id", "library_id", "entry_id", "title", "medium", "archived_by"]

    /// The patron's rows as they are now.
    static func snapshot(_ db: Database) throws -> Snapshot {
        func rows(_ sql: String, _ columns: [String]) throws -> [Snapshot.MirrorRow] {
            try GRDB.Row.fetchAll(db, sql: sql).map { row in
                Snapshot.MirrorRow(values: Dictionary(uniqueKeysWithValues: columns.map { ($0, Snapshot.MirrorValue(row[$0] as DatabaseValue)) }))
            }
        }
        return Snapshot(
            libraries: try rows("SELECT \(libraryColumns.joined(separator: ", ")) FROM library ORDER BY id", libraryColumns),
            follows: try rows("SELECT \(followColumns.joined(separator: ", ")) FROM follow ORDER BY id", followColumns),
            titles: try rows("""
                SELECT \(titleColumns.joined(separator: ", ")) FROM edition
                WHERE has_local_copy = 1 OR archived_by IS NOT NULL OR id IN (SELECT edition_id FROM download_queue)
                ORDER BY id
                """, titleColumns))
    }

    /// Writes `snapshot` to `file` whole (Foundation's atomic write: a temporary file renamed over it), readable
    /// by the patron alone.
    static func write(_ snapshot: Snapshot, to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(snapshot).write(to: file, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }

    /// The copy in `file`, if there is a readable one.
    static func read(_ file: URL) -> Snapshot? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(Snapshot.self, from: data)
    }

    /// Puts the copy's rows back where they are missing (by id; a library whose name is taken is left out), each
    /// title as a stub the next sync writes whole (`StoreSalvage.insertTitleStub`). How many libraries came back.
    ///
    /// Only the columns a row holds are written: a copy made before a column existed leaves it to its default.
    /// (A null in its place would break a NOT NULL column, and `INSERT OR IGNORE` would then drop the whole row.)
    static func restore(_ snapshot: Snapshot, into db: Database) throws -> Int {
        func insert(_ table: String, _ columns: [String], _ rows: [Snapshot.MirrorRow]) throws -> Int {
            var inserted = 0
            for row in rows {
                let held = columns.filter { row.values[$0] != nil }
                try db.cachedStatement(sql: """
                    INSERT OR IGNORE INTO \(table) (\(held.joined(separator: ", ")))
                    VALUES (\(held.map { _ in "?" }.joined(separator: ", ")))
                    """).execute(arguments: StatementArguments(held.map { row.values[$0]!.databaseValue }))
                inserted += db.changesCount
            }
            return inserted
        }
        let restored = try insert("library", libraryColumns, snapshot.libraries)
        _ = try insert("follow", followColumns, snapshot.follows)
        for title in snapshot.titles {
            guard case .integer(let id)? = title.values["id"] else { continue }
            let held = titleColumns.filter { title.values[$0] != nil }
            _ = try StoreSalvage.insertTitleStub(
                db, id: id, columns: held, values: held.map { title.values[$0]!.databaseValue })
        }
        return restored
    }
}
