import Foundation
import GRDB

/// Which command showed a title before any sync saw it in the catalog.
public enum FoundBy: String, Codable, Sendable, DatabaseValueConvertible {
    case browse
    case search

    /// How long a found title the patron never acted on is kept after it was last shown: long enough to decide
    /// on a search result days later, short enough that searching does not grow the store without end.
    static let lifetime: TimeInterval = 30 * 86_400

    var eventDetail: String {
        switch self {
        case .browse: "shown by shelf browse"
        case .search: "shown by shelf search"
        }
    }
}

extension Store {
    /// Stores the publications `shelf browse` or `shelf search` showed, so `show`, `borrow` and `download` take
    /// their ids at once, and returns their list lines, one per entry, in the order given.
    ///
    /// Titles already stored are left as a sync wrote them; new ones are kept off the catalog (`shelf list` does
    /// not show them until a sync sees them or the patron borrows, reserves or downloads one), and a sync forgets
    /// those the patron never acted on once no browse or search has shown them for 30 days.
    public func recordFound(_ entries: [OPDSEntry], in library: Library, by finder: FoundBy, now: Date = Date())
        throws -> [EditionSummary]
    {
        guard !entries.isEmpty else { return [] }
        let records = entries.map(EntryRecord.init)
        let rowIDs = try write { db in
            let applier = try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: now)
            let rowIDs = try records.map { try applier.applyFound($0, by: finder) }
            try applier.finish()
            return rowIDs
        }
        var summaries: [Int64: EditionSummary] = [:]
        return try zip(rowIDs, entries).map { rowID, entry in
            // A feed may list a title twice (Palace lanes share titles): it is read once.
            if let known = summaries[rowID] { return known }
            let line = try summary(of: EditionRef(libraryID: library.id, rowID: rowID, entryID: entry.id), now: now)
            summaries[rowID] = line
            return line
        }
    }
}
