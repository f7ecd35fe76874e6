import Foundation
import GRDB

extension Store {
    /// The editions of a library, by title.
    public func editions(of library: Library, filter: EditionFilter = EditionFilter(), now: Date = Date()) throws(StoreError)
        -> [EditionSummary]
    {
        var result: [EditionSummary] = []
        try forEachEdition(of: library, filter: filter, now: now) { result.append($0) }
        return result
    }

    /// Hands each edition of a library to `body`, by title, as the cursor reads it (nothing gathered).
    /// `cursorEnded` runs once the last row has been read. `forTable`: only what `shelf list`'s table shows
    /// (`EditionSummary.init(columns:listening:now:forTable:withSeries:withActions:)`).
    ///
    /// A `--state` that at most `stateIndexLimit` titles are in is read through the `edition_status` index and sorted,
    /// its short ids widened against their neighbours in the key index, instead of filtering every title of the
    /// library out of the title-ordered index (`shelf list --state downloaded` read all 100,000 titles of a large
    /// catalog to print a few). Both ways give the same rows, in the same order, with the same short ids.
    public func forEachEdition(
        of library: Library, filter: EditionFilter = EditionFilter(), now: Date = Date(),
        cursorEnded: () -> Void = {}, stateIndexLimit: Int = 1000, forTable: Bool = false,
        _ body: (EditionSummary) throws -> Void
    ) throws(StoreError) {
        var conditions = ["e.library_id = ?"]
        // A title only browse or search found is not the catalog's, nor removed from it: listed once acted on.
        conditions.append(filter.includeRemoved
            ? "(e.found_by IS NULL OR l.kind IS NOT NULL OR e.state != 'new')"
            : "(e.in_catalog = 1 OR l.kind IS NOT NULL OR e.state != 'new')")
        if filter.state != nil { conditions.append("e.state = ?") }
        // SQLite folds case for ASCII only; the name is compared below, in full Unicode.
        let series = filter.series?.trimmingCharacters(in: .whitespacesAndNewlines)
        if series != nil { conditions.append("e.series_name IS NOT NULL") }
        let listening = try consumption(in: library.id)
        try read { db in
            // The rows stream in index order, each page read once a pass: a page cache would hold what is never read
            // again, and at 100,000 titles its 4 MB were a tenth of the command's memory.
            let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -4096
            try db.execute(sql: "PRAGMA cache_size = -512")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
            // The keys of a state's few titles, when it has few (nil: read the whole library in title order).
            let stateKeys = try filter.state.flatMap { state in
                try Self.fewKeys(db, libraryID: library.id, state: state, limit: stateIndexLimit)
            }
            // Every column comes from the edition_list index, in its order: no wide row is read, nothing sorted; or,
            // for a state few titles are in, those rows through the state index, sorted.
            let source = stateKeys == nil ? Self.listSource : Self.stateSource
            // A title is in the catalog or not: both, so the status index is read at the state's titles alone.
            if stateKeys != nil { conditions.append("e.in_catalog IN (0, 1)") }
            let rest = "WHERE \(conditions.joined(separator: " AND ")) ORDER BY e.title COLLATE NOCASE, e.entry_id"
            var statement = try HotStatement(db, "\(Self.select(from: source)) \(rest)")
            defer { statement.reset() }
            let rowIDColumn = Int32(EditionSummary.Column.rowID.rawValue)
            // Runs the statement from its first row.
            func start() {
                statement.reset()
                statement.bind(library.id)
                if let state = filter.state { statement.bind(state.rawValue) }
            }
            // Each row that passes the filter, as a summary.
            func forEachSummary(_ body: (EditionSummary) throws -> Void) throws {
                start()
                while try statement.step() {
                    let edition = EditionSummary(
                        columns: statement, listening: listening[statement.int64(rowIDColumn)], now: now,
                        forTable: forTable, withSeries: series != nil, withActions: filter.availableOnly)
                    if filter.availableOnly && !edition.canBeHadNow { continue }
                    if let series, edition.series?.name.compare(series, options: .caseInsensitive) != .orderedSame {
                        continue
                    }
                    try body(edition)
                }
            }
            try forEachSummary(body)
            cursorEnded()
        }
    }

    /// The stored short keys of the titles in `state`, when there are at most `limit` of them and each has one; nil
    /// otherwise.
    static func fewKeys(_ db: Database, libraryID: Int64, state: LifecycleState, limit: Int) throws -> [String]? {
        guard limit > 0 else { return nil }
        // Counted in the index alone first: a state with many titles (`--state new`) reads no row for its keys.
        let few = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM (
                SELECT 1 FROM edition INDEXED BY edition_status
                WHERE library_id = ? AND in_catalog IN (0, 1) AND state = ? LIMIT ?)
            """, arguments: [libraryID, state.rawValue, limit + 1]) ?? 0
        guard few <= limit else { return nil }
        let keys = try String?.fetchAll(
            db, sql: """
                SELECT short_key FROM edition INDEXED BY edition_status
                WHERE library_id = ? AND in_catalog IN (0, 1) AND state = ?
                """,
            arguments: [libraryID, state.rawValue])
        let stored = keys.compactMap { $0 }
        return stored.count == keys.count ? stored : nil
    }

    /// Finds an edition by its full id, its short id, the start of its key (see `ShortID`) or the end of the id,
    /// through indexes; any other part of the id that matches exactly one is looked for in every id.
    public func resolveEdition(_ query: String, in library: Library) throws(StoreError) -> EditionRef {
        try resolveEditionNoting(query, in: library).edition
    }

    /// A string for LIKE that matches `text` literally.
    private static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    /// The titles of a library whose id ends with `end` (their row id and id): through the key index when `end`
    /// holds the id's last `:` or `/` (`ShortID.holdsTail`: every such id has the key `end` has), else read from
    /// every id.
    private static func titles(endingWith end: String, _ db: Database, libraryID: Int64) throws -> [Row] {
        guard ShortID.holdsTail(end) else {
            return try Row.fetchAll(
                db, sql: "SELECT id, entry_id FROM edition WHERE library_id = ? AND entry_id LIKE ? ESCAPE '\\' LIMIT 10",
                arguments: [libraryID, "%" + likeEscaped(end)])
        }
        return try Row.fetchAll(
            db, sql: "SELECT id, entry_id FROM edition WHERE library_id = ? AND short_key = ? LIMIT 100",
            arguments: [libraryID, ShortID.key(of: end).key]
        ).filter { ($0[1] as String).hasSuffix(end) }
    }

    /// `resolveEdition`, with a line to tell the patron when the query found one title although it also names
    /// another: the whole id of one title that is also the end of another's id, which the whole match wins.
    public func resolveEditionNoting(_ query: String, in library: Library) throws(StoreError)
        -> (edition: EditionRef, note: String?)
    {
        var note: String?
        let matches = try read { db -> [Row] in
            if let row = try Row.fetchOne(
                db, sql: "SELECT id, entry_id FROM edition WHERE library_id = ? AND short_key = ? AND entry_id = ?",
                arguments: [library.id, ShortID.key(of: query).key, query])
            {
                let others = try [":" + query, "/" + query]
                    .flatMap { try Self.titles(endingWith: $0, db, libraryID: library.id).map { $0[1] as String } }
                    .filter { $0 != query }
                if let other = others.first {
                    let shown = try ShortID.shortID(of: other, libraryID: library.id, in: db)
                    note = "\(query) is the whole id of one title and the end of another's (\(other), shown as "
                        + "\(shown)); this is the whole match"
                }
                return [row]
            }
            // A key shown whole (a token such as an ISBN) is found by itself, before the keys it begins.
            let keyed = try Row.fetchAll(
                db, sql: "SELECT id, entry_id FROM edition WHERE library_id = ? AND short_key = ? LIMIT 10",
                arguments: [library.id, query])
            if !keyed.isEmpty { return keyed }
            // The start of a key, or an end of an id that holds its last `:` or `/` (a short id shown apart): both
            // through the key index.
            var indexed = try Row.fetchAll(db, sql: """
                SELECT id, entry_id FROM edition WHERE library_id = ? AND short_key >= ? AND short_key < ? LIMIT 10
                """, arguments: [library.id, query, ShortID.upperBound(of: query)])
            let indexedEnd = ShortID.holdsTail(query)
            if indexedEnd {
                for row in try Self.titles(endingWith: query, db, libraryID: library.id)
                where !indexed.contains(where: { $0[0] as Int64 == row[0] as Int64 }) {
                    indexed.append(row)
                }
            }
            if !indexed.isEmpty { return Array(indexed.prefix(10)) }
            // Any other end of an id, then any part of it: read from every id of the library.
            if !indexedEnd {
                let ends = try Self.titles(endingWith: query, db, libraryID: library.id)
                if !ends.isEmpty { return ends }
            }
            return try Row.fetchAll(
                db, sql: "SELECT id, entry_id FROM edition WHERE library_id = ? AND entry_id LIKE ? ESCAPE '\\' LIMIT 10",
                arguments: [library.id, "%" + Self.likeEscaped(query) + "%"])
        }
        guard !matches.isEmpty else { throw .editionNotFound(query) }
        guard matches.count == 1 else { throw .ambiguousEdition(query, matches.map { $0[1] }) }
        return (EditionRef(libraryID: library.id, rowID: matches[0][0], entryID: matches[0][1]), note)
    }
}
