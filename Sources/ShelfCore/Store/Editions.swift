import Foundation
import GRDB

/// One line of `shelf list`.
public struct EditionSummary: Codable, Sendable, Equatable {
    /// The Atom `id`: an edition's identity.
    public var id: String
    /// A short form of the id for typing (`shelf show 9781488208676`).
    public var shortID: String
    public var title: String
    public var authors: String
    public var narrators: String
    public var medium: String
    /// The DRM scheme that keeps this audiobook from playing in shelf, or nil.
    public var protection: String?
    public var state: LifecycleState
    public var entitlement: Entitlement
    public var availability: String?
    public var availableSince: Date?
    public var availableUntil: Date?
    public var holdsPosition: Int?
    public var holdsTotal: Int?
    public var copiesAvailable: Int?
    public var copiesTotal: Int?
    public var inCatalog: Bool
    /// Set for a title only `shelf browse` or `shelf search` has shown, which no sync has seen in the catalog.
    public var foundBy: FoundBy?
    public var isDraft: Bool
    public var isPaid: Bool
    public var actions: [EditionAction]
    /// "14 days left", "#3 in line for 2 copies", … ; empty when there is nothing to say.
    public var circulation: String
    /// Where a loan is returned or a hold cancelled.
    public var revokeURL: String?
    /// How far the patron has got, for audiobooks (new when never played); nil for other media.
    public var consumption: Consumption?
    /// How much of the audiobook has been heard, 0…100, when known.
    public var percent: Double?
    /// The running time the catalog gives, in seconds.
    public var duration: Double?
    /// The series the title belongs to, with its place in it.
    public var series: Series?
    /// When a hold may come (`Store.holdWait`): set by `shelf holds` and `shelf show`, not by lists.
    public var holdWait: HoldWait?

    /// The columns `init(row:listening:now:)` reads, by position: `Store.summarySelect` selects exactly these, so no
    /// column is looked up by name, and none a list does not show (summaries, detail JSON) is read at all.
    enum Column: Int {
        case rowID, entryID, title, authors, narrators, medium, protection, state, entitlement, availability
        case availableSince, availableUntil, holdsPosition, holdsTotal, copiesAvailable, copiesTotal, inCatalog, isDraft
        case isPaid, hasLocalCopy, hasBorrow, loanKind, loanSince, loanUntil, loanPosition, loanHoldsTotal
        case loanCopiesTotal, loanCopiesAvailable, loanRevokeURL, duration, seriesName, seriesPosition, seriesURL, foundBy
        case shortID, shortWidth
    }

    /// Reads the current row of a `Store.summarySelect` statement through SQLite's C API (GRDB's generic decoding
    /// of each column was most of `shelf list`'s time). `listening` is how far the patron is, from the positions
    /// database (nil when never played). The short id is the stored one (`Store.widenShortIDs`).
    ///
    /// `forTable` reads only what `shelf list`'s table shows and its filters need: no narrators, time on loan since,
    /// duration, series (unless `withSeries`), return link or actions (unless `withActions`, or the title is for
    /// sale, whose AVAILABILITY depends on them).
    init(
        columns row: HotStatement, listening: (Consumption, Double?)?, now: Date, forTable: Bool = false,
        withSeries: Bool = false, withActions: Bool = false
    ) {
        func string(_ column: Column) -> String? { row.string(Int32(column.rawValue)) }
        func int(_ column: Column) -> Int? { row.int(Int32(column.rawValue)) }
        func bool(_ column: Column) -> Bool { row.bool(Int32(column.rawValue)) }
        func date(_ column: Column) -> Date? {
            row.double(Int32(column.rawValue)).map(Date.init(timeIntervalSince1970:))
        }
        id = string(.entryID) ?? ""
        let id = id
        // As stored (`Store.widenShortIDs`); a title added in a sync still running shows its id's base form.
        shortID = ShortID.shown(text: string(.shortID), width: int(.shortWidth), of: id)
        title = string(.title) ?? ""
        authors = string(.authors) ?? ""
        narrators = forTable ? "" : string(.narrators) ?? ""
        medium = string(.medium) ?? ""
        protection = string(.protection)
        state = string(.state).flatMap(LifecycleState.init(rawValue:)) ?? .new
        // Loans and holds come from the loans feed (the `loan` row below); what the catalog says of them is the
        // anonymous view, so only its open-access "free" counts here.
        entitlement = string(.entitlement).flatMap(Entitlement.init(rawValue:)) == .free ? .free : .none
        availability = string(.availability)
        availableSince = forTable ? nil : date(.availableSince)
        availableUntil = date(.availableUntil)
        holdsPosition = int(.holdsPosition)
        holdsTotal = int(.holdsTotal)
        copiesAvailable = int(.copiesAvailable)
        copiesTotal = int(.copiesTotal)
        inCatalog = bool(.inCatalog)
        foundBy = string(.foundBy).flatMap(FoundBy.init(rawValue:))
        isDraft = bool(.isDraft)
        isPaid = bool(.isPaid)
        if !forTable {
            duration = row.double(Int32(Column.duration.rawValue))
        }
        if !forTable || withSeries {
            series = string(.seriesName).map { Series(name: $0, position: string(.seriesPosition), href: string(.seriesURL)) }
        }
        // The loans feed speaks for the patron; the catalog, read anonymously, cannot.
        if let loanKind = string(.loanKind).flatMap(Entitlement.init(rawValue:)) {
            entitlement = loanKind
            availableSince = forTable ? nil : date(.loanSince)
            availableUntil = date(.loanUntil)
            holdsPosition = int(.loanPosition)
            holdsTotal = int(.loanHoldsTotal) ?? holdsTotal
            copiesTotal = int(.loanCopiesTotal) ?? copiesTotal
            copiesAvailable = int(.loanCopiesAvailable) ?? copiesAvailable
            revokeURL = forTable ? nil : string(.loanRevokeURL)
        }
        if !forTable || withActions || isPaid {
            let hasBorrow = bool(.hasBorrow)
            let status = availability?.lowercased()
            let canBorrowNow = hasBorrow && (status == "available" || (status == nil && (copiesAvailable ?? 1) > 0))
            let canReserve = hasBorrow && (status == "unavailable" || (status == nil && copiesAvailable == 0))
            let context = ActionContext(
                lifecycle: Lifecycle(state: state, hasLocalCopy: bool(.hasLocalCopy)), entitlement: entitlement,
                canBorrowNow: canBorrowNow, canReserve: canReserve, isPaid: isPaid, isDraft: isDraft,
                isPlayable: medium == "audiobook" && protection == nil)
            actions = context.actions
        } else {
            actions = []
        }
        if medium == "audiobook" {
            consumption = listening?.0 ?? .new
            percent = listening?.1
        }
        circulation = ""
        circulation = Circulation.describe(self, now: now)
    }

    /// Free, on loan, ready to borrow, or with a copy to borrow now (`shelf list --available`).
    public var canBeHadNow: Bool {
        entitlement == .free || entitlement == .loan || entitlement == .holdReady || actions.contains(.borrow)
    }

    /// "new", "43%", "finished" for audiobooks, "" otherwise: the PROGRESS column of `shelf list`.
    public var progress: String { consumption?.label(percent: percent) ?? "" }

    /// "audiobook", "audiobook (Findaway DRM)", "ebook": the TYPE column of `shelf list`.
    public var kind: String { protection.map { "\(medium) (\($0) DRM)" } ?? medium }

    /// The TITLE column of `shelf list`: the title, marked when the catalog no longer has it.
    public var listTitle: String { title + (inCatalog || foundBy != nil ? "" : " (removed)") }

    /// The part of an id a patron would type: an ISBN, the first block of a UUID, or the start of a hash of an id
    /// that is neither (see `ShortID`); not widened for uniqueness (`shelf list` widens it).
    public static func shortForm(of id: String) -> String { ShortID.base(of: id) }
}

/// Circulation phrases shared by `list`, `show` and `status`.
public enum Circulation {
    /// "14 days left", "#3 in line for 2 copies", "ready to borrow until Nov 30", …
    public static func describe(_ edition: EditionSummary, now: Date) -> String {
        switch edition.entitlement {
        case .loan:
            guard let until = edition.availableUntil else { return "on loan" }
            return "on loan, " + daysLeft(until: until, now: now)
        case .hold:
            var text = "on hold"
            if let position = edition.holdsPosition {
                text += ", #\(position) in line"
                if let copies = edition.copiesTotal { text += " for \(copies) cop\(copies == 1 ? "y" : "ies")" }
            }
            return text
        case .holdReady:
            guard let until = edition.availableUntil else { return "ready to borrow" }
            return "ready to borrow until \(shortDate(until))"
        case .free:
            return "free"
        case .none:
            if edition.isDraft { return "not yet published" }
            if edition.isPaid && !edition.actions.contains(.borrow) && !edition.actions.contains(.reserve) {
                return "for sale"
            }
            switch edition.availability?.lowercased() {
            case "available":
                if let available = edition.copiesAvailable, let total = edition.copiesTotal {
                    return "available, \(available) of \(total) cop\(total == 1 ? "y" : "ies")"
                }
                return "available"
            case "unavailable":
                let holds = edition.holdsTotal.map { ", \($0) waiting" } ?? ""
                return "all copies out\(holds)"
            case let status?:
                return status
            case nil:
                return edition.isPaid ? "for sale" : ""
            }
        }
    }

    /// "14 days left", "1 day left", "due today", "expired".
    public static func daysLeft(until: Date, now: Date) -> String {
        let seconds = until.timeIntervalSince(now)
        if seconds < 0 { return "expired" }
        let days = Int((seconds / 86_400).rounded(.down))
        if days == 0 { return "due today" }
        return "\(days) day\(days == 1 ? "" : "s") left"
    }

    /// "Nov 30" this year, "Nov 30 2027" otherwise.
    public static func shortDate(_ date: Date) -> String { LocalTime.shortDate(date) }
}

/// A line of an edition's history.
public struct EditionEvent: Codable, Sendable, Equatable {
    public var at: Date
    public var kind: String
    public var detail: String
    /// The edition's title (in `shelf status`).
    public var title: String?
    public var id: String?
}

/// An acquisition link as `shelf show` lists it.
public struct StoredAcquisition: Codable, Sendable, Equatable {
    public var kind: String
    public var rel: String
    public var href: String
    public var type: String?
    public var indirect: [IndirectAcquisition]
    /// Every chain of media types root → leaf.
    public var paths: [[String]]
    public var price: String?
}

/// Everything `shelf show` prints.
public struct EditionDetail: Codable, Sendable, Equatable {
    public var summary: EditionSummary
    public var subtitle: String?
    public var description: String?
    public var publisher: String?
    public var issued: String?
    public var language: String?
    public var distributor: String?
    public var additionalType: String?
    public var updated: String?
    public var published: String?
    public var coverURL: String?
    public var thumbnailURL: String?
    public var revokeURL: String?
    public var annotationsURL: String?
    public var contributors: [Contributor]
    public var categories: [Category]
    public var links: [OPDSLink]
    public var acquisitions: [StoredAcquisition]
    public var stateReason: String?
    public var stateChangedAt: Date
    public var firstSeenAt: Date
    public var changedAt: Date
    public var removedAt: Date?
    /// The parts of a downloaded (or downloading) audiobook, in order.
    public var parts: [PartStatus]
    public var history: [EditionEvent]
}

/// Which editions `shelf list` shows.
public struct EditionFilter: Sendable {
    /// Only titles that can be had now: free, on loan, ready, or with a copy to borrow.
    public var availableOnly = false
    public var state: LifecycleState?
    public var includeRemoved = false
    /// Only titles of the series with this name, compared without regard to case.
    public var series: String?

    public init(
        availableOnly: Bool = false, state: LifecycleState? = nil, includeRemoved: Bool = false, series: String? = nil
    ) {
        self.availableOnly = availableOnly
        self.state = state
        self.includeRemoved = includeRemoved
        self.series = series
    }
}

/// What `shelf status` prints.
public struct StatusReport: Codable, Sendable, Equatable {
    public var library: String
    public var url: String
    public var catalogTitle: String?
    public var lastSyncAt: Date?
    public var lastSyncOKAt: Date?
    public var lastSyncStatus: String?
    public var lastSyncMessage: String?
    /// Titles in the catalog per lifecycle state (every state listed, zero included).
    public var states: [String: Int]
    public var titles: Int
    public var removed: Int
    public var loans: Int
    public var holds: Int
    /// The changes the last successful sync recorded.
    public var lastChanges: [EditionEvent]
}

extension Store {
    /// Exactly the columns of `EditionSummary.Column`, in its order.
    /// `EditionSummary.Column`'s expressions, in its order.
    private static let summaryColumns = [
        "e.id", "e.entry_id", "e.title", "e.authors", "e.narrators", "e.medium", "e.protection", "e.state",
        "e.entitlement", "e.availability_status", "e.availability_since", "e.availability_until", "e.holds_position",
        "e.holds_total", "e.copies_available", "e.copies_total", "e.in_catalog", "e.is_draft", "e.is_paid",
        "e.has_local_copy", "e.has_borrow",
        "l.kind", "l.since", "l.until", "l.holds_position", "l.holds_total", "l.copies_total", "l.copies_available",
        "l.revoke_url",
        "e.duration", "e.series_name", "e.series_position", "e.series_url", "e.found_by", "e.short_id",
        "e.short_width",
    ]

    static let summarySelect = select()

    /// The editions as `shelf list` reads them: the planner takes the edition_list index, in title order.
    static let listSource = "edition e"
    /// The editions of a state few titles are in, through its index (`forEachEdition`).
    static let stateSource = "edition e INDEXED BY edition_status"

    static func select(from source: String = listSource) -> String {
        precondition(summaryColumns.count == EditionSummary.Column.shortWidth.rawValue + 1)
        return "SELECT \(summaryColumns.joined(separator: ", ")) FROM \(source) LEFT JOIN loan l ON l.edition_id = e.id"
    }

    /// An edition's detail column read back (`DetailCodec`) from a row holding it and the columns it is read with:
    /// `entry_id`, `authors` and `narrators`. Nil when it cannot be read.
    static func editionDetail(_ row: Row) -> EditionDetailJSON? {
        DetailCodec.readDetail(
            stored(row["detail"]), entryID: row["entry_id"], authors: row["authors"] ?? "", narrators: row["narrators"] ?? "")
    }

    /// The row id of a library's edition with this id, nil when there is none. No index holds ids alone (migration
    /// v28): it is found through the key index, by the id's key (`key`: `ShortID.key(of: entryID).key`, when known).
    static func editionRowID(_ db: Database, libraryID: Int64, entryID: String, key: String? = nil) throws -> Int64? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM edition WHERE library_id = ? AND short_key = ? AND entry_id = ?"),
            arguments: [libraryID, key ?? ShortID.key(of: entryID).key, entryID])
    }

    /// The detail of the edition with row id `rowID`; nil when there is none or it cannot be read.
    static func editionDetail(_ db: Database, rowID: Int64) throws -> EditionDetailJSON? {
        try Row.fetchOne(db, sql: "SELECT entry_id, detail, authors, narrators FROM edition WHERE id = ?", arguments: [rowID])
            .flatMap(editionDetail)
    }

    /// An acquisition's indirect column read back (`DetailCodec`, until migration v27); nil when it cannot be read.
    static func storedIndirect(_ value: DatabaseValue, entryID: String) -> [IndirectAcquisition]? {
        DetailCodec.readIndirect(stored(value), entryID: entryID)
    }

    /// Everything known about one edition.
    public func edition(_ query: String, in library: Library, now: Date = Date()) throws(StoreError) -> EditionDetail {
        try edition(try resolveEdition(query, in: library), now: now)
    }

    /// One edition's line of `shelf list`, without the details `edition(_:)` gathers.
    public func summary(of edition: EditionRef, now: Date = Date()) throws(StoreError) -> EditionSummary {
        let listening = try consumption(of: edition)
        return try read { db in
            guard let summary = try Self.summary(db, rowID: edition.rowID, listening: listening, now: now)
            else {
                throw StoreError.editionNotFound(edition.entryID)
            }
            return summary
        }
    }

    /// The summary of the edition with this row id, nil when there is none.
    static func summary(
        _ db: Database, rowID: Int64, listening: (Consumption, Double?)?, now: Date
    ) throws -> EditionSummary? {
        var statement = try HotStatement(db, "\(Self.summarySelect) WHERE e.id = ?")
        statement.bind(rowID)
        guard try statement.step() else { return nil }
        let summary = EditionSummary(columns: statement, listening: listening, now: now)
        statement.reset()
        return summary
    }

    /// A detail or indirect column as stored: a blob (`DetailCodec`), or the JSON of rows written before it.
    private static func stored(_ value: DatabaseValue) -> DetailCodec.Stored {
        switch value.storage {
        case .blob(let data): .bytes(Array(data))
        case .string(let text): .text(text)
        default: .text("")
        }
    }

    /// Everything known about one edition.
    public func edition(_ edition: EditionRef, now: Date = Date()) throws(StoreError) -> EditionDetail {
        let rowID = edition.rowID
        let listening = try consumption(of: edition)
        return try read { db in
            guard let summary = try Self.summary(db, rowID: rowID, listening: listening, now: now) else {
                throw StoreError.editionNotFound(edition.entryID)
            }
            let row = try Row.fetchOne(db, sql: "SELECT * FROM edition WHERE id = ?", arguments: [rowID])!
            let detail = Self.editionDetail(row)
                ?? EditionDetailJSON(authors: [], contributors: [], categories: [], links: [])
            let acquisitions = (detail.acquisitions ?? []).map { acquisition in
                StoredAcquisition(
                    kind: acquisition.kind.rawValue, rel: acquisition.rel, href: acquisition.href, type: acquisition.type,
                    indirect: acquisition.indirect, paths: acquisition.paths,
                    price: acquisition.price.map { [$0.value, $0.currency].compactMap { $0 }.joined(separator: " ") })
            }
            let history = try Row.fetchAll(
                db, sql: "SELECT at, kind, detail FROM event WHERE edition_id = ? ORDER BY at, id", arguments: [rowID]
            ).map { EditionEvent(at: Date(timeIntervalSince1970: $0["at"]), kind: $0["kind"], detail: $0["detail"]) }
            return EditionDetail(
                summary: summary,
                subtitle: row["subtitle"], description: row["summary"],
                publisher: detail.publisher, issued: detail.issued, language: detail.language,
                distributor: detail.distributor, additionalType: detail.additionalType, updated: detail.updated,
                published: detail.published, coverURL: detail.coverURL, thumbnailURL: detail.thumbnailURL,
                revokeURL: detail.revokeURL, annotationsURL: detail.annotationsURL,
                contributors: detail.authors.map { var c = $0; if c.roles.isEmpty { c.roles = ["aut"] }; return c }
                    + detail.contributors,
                categories: detail.categories, links: detail.links, acquisitions: acquisitions,
                stateReason: row["state_reason"], stateChangedAt: Date(timeIntervalSince1970: row["state_changed_at"]),
                firstSeenAt: Date(timeIntervalSince1970: row["first_seen_at"]),
                changedAt: Date(timeIntervalSince1970: row["changed_at"]),
                removedAt: row.date("removed_at"),
                parts: try Self.partRecords(db, rowID).map(\.partStatus),
                history: history)
        }
    }

    /// Counts per state, the last sync, and what it changed.
    public func status(of library: Library) throws(StoreError) -> StatusReport {
        try read { db in
            var states = Dictionary(uniqueKeysWithValues: LifecycleState.allCases.map { ($0.rawValue, 0) })
            var titles = 0
            var removed = 0
            // Every count in one pass over the edition_status index.
            var counts = try HotStatement(db, """
                SELECT in_catalog, state, found_by, COUNT(*) FROM edition WHERE library_id = ?
                GROUP BY in_catalog, state, found_by
                """)
            defer { counts.reset() }
            counts.bind(library.id)
            while try counts.step() {
                let count = Int(counts.int64(3))
                if counts.bool(0) {
                    titles += count
                    if let state = counts.string(1) { states[state, default: 0] += count }
                } else if counts.isNull(2) {
                    removed += count
                }
            }
            let shelf = try Self.shelfCounts(db, libraryID: library.id)
            let lastRun = try Int64.fetchOne(
                db, sql: "SELECT id FROM sync_run WHERE library_id = ? AND status = 'ok' ORDER BY id DESC LIMIT 1",
                arguments: [library.id])
            let changes = try Row.fetchAll(db, sql: """
                SELECT ev.at, ev.kind, ev.detail, e.title, e.entry_id FROM event ev JOIN edition e ON e.id = ev.edition_id
                WHERE ev.sync_id = ? ORDER BY ev.id LIMIT 50
                """, arguments: [lastRun]).map {
                EditionEvent(at: Date(timeIntervalSince1970: $0[0]), kind: $0[1], detail: $0[2], title: $0[3], id: $0[4])
            }
            return StatusReport(
                library: library.name, url: library.url, catalogTitle: library.catalogTitle,
                lastSyncAt: library.lastSyncAt, lastSyncOKAt: library.lastSyncOKAt,
                lastSyncStatus: library.lastSyncStatus, lastSyncMessage: library.lastSyncMessage, states: states,
                titles: titles, removed: removed,
                loans: shelf.loans, holds: shelf.holds,
                lastChanges: changes)
        }
    }

    /// How many loans and holds (ready or not) the patron has at a library.
    static func shelfCounts(_ db: Database, libraryID: Int64) throws -> (loans: Int, holds: Int) {
        let row = try Row.fetchOne(db, sql: """
            SELECT COUNT(*) FILTER (WHERE kind = 'loan'), COUNT(*) FILTER (WHERE kind != 'loan')
            FROM loan WHERE library_id = ?
            """, arguments: [libraryID])
        return (row?[0] ?? 0, row?[1] ?? 0)
    }
}
