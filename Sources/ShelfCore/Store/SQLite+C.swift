import GRDB
import GRDBSQLite

/// SQLite's SQLITE_TRANSIENT: the C macro is a cast Swift does not import.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// A prepared GRDB statement driven through SQLite's C API, for the sync's per-entry statements: binding
/// values one by one avoids boxing every argument, which dominated the cost of a large sync.
///
/// Use it only inside the `Database` access that prepared it.
struct HotStatement {
    private let db: Database
    private let handle: OpaquePointer
    private var index: Int32 = 0

    /// Prepares (or reuses) `sql` on `db`. The corresponding C function is `sqlite3_prepare_v3`, through GRDB's cache.
    init(_ db: Database, _ sql: String) throws {
        self.db = db
        handle = try db.cachedStatement(sql: sql).sqliteStatement
        // A cached statement may hold the last run's row (and its read lock) until reset.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Clears the previous run and its values. The corresponding C functions are `sqlite3_reset` and
    /// `sqlite3_clear_bindings`.
    mutating func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        index = 0
    }

    /// Binds the next parameter. The corresponding C function is `sqlite3_bind_text`.
    mutating func bind(_ value: String?) {
        index += 1
        guard var value else { return }
        let handle = handle
        let index = index
        value.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
                    _ = sqlite3_bind_text(handle, index, text, Int32(bytes.count), transient)
                }
            } else {
                _ = sqlite3_bind_text(handle, index, "", 0, transient)
            }
        }
    }

    /// Binds the next parameter as a blob. The corresponding C function is `sqlite3_bind_blob`.
    mutating func bind(blob value: [UInt8]) {
        index += 1
        let handle = handle
        let index = index
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(bytes.count), transient)
        }
    }

    /// Binds the next parameter. The corresponding C function is `sqlite3_bind_int64`.
    mutating func bind(_ value: Int64?) {
        index += 1
        if let value { sqlite3_bind_int64(handle, index, value) }
    }

    mutating func bind(_ value: Int?) { bind(value.map(Int64.init)) }

    mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    /// Binds the next parameter. The corresponding C function is `sqlite3_bind_double`.
    mutating func bind(_ value: Double?) {
        index += 1
        if let value { sqlite3_bind_double(handle, index, value) }
    }

    /// Runs the statement to its next row: true while rows come. The corresponding C function is `sqlite3_step`.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws {
        _ = try step()
    }

    /// A column of the current row. The corresponding C function is `sqlite3_column_int64`.
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// A column of the current row, nil when NULL. The corresponding C functions are `sqlite3_column_text` and
    /// `sqlite3_column_bytes`.
    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// Hands a text column's UTF-8 bytes to `body` without making a String (empty when NULL); valid only inside it.
    func withUTF8<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let text = sqlite3_column_text(handle, column)
        return try body(UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(handle, column))))
    }

    /// A column of the current row, nil when NULL. The corresponding C function is `sqlite3_column_int64`.
    func int(_ column: Int32) -> Int? { isNull(column) ? nil : Int(sqlite3_column_int64(handle, column)) }

    /// A column of the current row, nil when NULL. The corresponding C function is `sqlite3_column_double`.
    func double(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(handle, column) }

    /// A column of the current row: true unless 0 or NULL.
    func bool(_ column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }

    /// Whether a column of the current row is NULL. The corresponding C function is `sqlite3_column_type`.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
}
