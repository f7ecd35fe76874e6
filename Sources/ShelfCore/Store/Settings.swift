import Foundation
import GRDB

extension Store {
    /// A small value kept in the positions database's `setting` table (the player's skip, this device's id), nil
    /// when never set.
    public func setting(_ key: String) throws(StoreError) -> String? {
        try readPositions { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
    }

    /// Keeps `value` under `key`, replacing what was there.
    public func setSetting(_ key: String, to value: String) throws(StoreError) {
        try writePositions { db in
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [key, value])
        }
    }
}
