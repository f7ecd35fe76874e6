import Foundation
import GRDB

/// What applying one entry did.
enum EntryOutcome: Equatable {
    case added
    /// The publisher changed the edition (`updated`, or an acquisition `rel`/`href`).
    case changed
    /// Other stored fields changed (availability, metadata).
    case refreshed
    case unchanged
    /// It was gone from the catalog and came back.
    case restored
    /// It was already applied (or its page already counted) this sync: another feed lists it too. Nothing is
    /// written, so the first feed that lists a title is the one it is stored from.
    case duplicate
}

/// Writes parsed entries into the store inside the sync's transaction, diffing against what is there.
final class EntryApplier {
    private let db: Database
    private let libraryID: Int64
    private let syncID: Int64?
    private let now: Double
    /// The keys (`edition.short_key`) of the titles added since the last `finish`: their short ids, and their
    /// neighbours', are widened by it.
    private var addedKeys: Set<String> = []

    init(db: Database, libraryID: Int64, syncID: Int64?, now: Date) throws {
        self.db = db
        self.libraryID = libraryID
        self.syncID = syncID
        self.now = now.timeIntervalSince1970
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS seen (edition_id INTEGER PRIMARY KEY)")
        try db.execute(sql: "DELETE FROM temp.seen")
    }

    private struct Stored {
        var id: Int64
        var contentHash: Int64
        var changeHash: Int64
        var pageID: Int64?
        var inCatalog: Bool
        var lifecycle: Lifecycle
        var availabilityStatus: String?
        /// Set while the title is known only from `shelf browse` or `shelf search`.
        var foundBy: FoundBy?
    }

    /// The stored edition with this id, found through the key index (`key`: the id's `ShortID.key`).
    private func stored(_ entryID: String, key: String) throws -> Stored? {
        var statement = try HotStatement(db, """
            SELECT id, content_hash, change_hash, page_id, in_catalog, state, has_local_copy, availability_status,
                   found_by
            FROM edition WHERE library_id = ? AND short_key = ? AND entry_id = ?
            """)
        statement.reset()
        statement.bind(libraryID)
        statement.bind(key)
        statement.bind(entryID)
        guard try statement.step() else { return nil }
        // The statement is reset before returning so no read stays open across the transaction.
        defer { statement.reset() }
        let state = statement.string(5).flatMap(LifecycleState.init(rawValue:)) ?? .new
        return Stored(
            id: statement.int64(0), contentHash: statement.int64(1), changeHash: statement.int64(2),
            pageID: statement.isNull(3) ? nil : statement.int64(3), inCatalog: statement.int64(4) != 0,
            lifecycle: Lifecycle(state: state, hasLocalCopy: statement.int64(6) != 0),
            availabilityStatus: statement.string(7), foundBy: statement.string(8).flatMap(FoundBy.init(rawValue:)))
    }

    /// Ends the writes of one transaction (or of one step of a sync's): the short ids of the titles added since the
    /// last call, and of their neighbours in the key index, are widened (`Store.widenShortIDs`).
    func finish() throws {
        guard !addedKeys.isEmpty else { return }
        try Store.widenShortIDs(db, libraryID: libraryID, addedKeys: addedKeys)
        addedKeys.removeAll(keepingCapacity: true)
    }

    /// Applies one entry seen on page `pageID`.
    func apply(_ record: EntryRecord, pageID: Int64) throws -> EntryOutcome {
        let entry = record.entry
        guard let old = try stored(entry.id, key: record.key.key) else {
            let id = try insert(record, pageID: pageID)
            _ = try markSeen(id)
            return .added
        }
        guard try markSeen(old.id) else { return .duplicate }
        var outcome = try refresh(old, with: record, pageID: pageID)
        if old.foundBy != nil {
            // Browse or search showed it before a sync saw it: from now on it is simply part of the catalog.
            try db.cachedStatement(sql: """
                UPDATE edition SET in_catalog = 1, removed_at = NULL, found_by = NULL, found_at = NULL WHERE id = ?
                """).execute(arguments: [old.id])
            if outcome != .changed { outcome = .added }
        } else if !old.inCatalog {
            try db.cachedStatement(sql: "UPDATE edition SET in_catalog = 1, removed_at = NULL WHERE id = ?")
                .execute(arguments: [old.id])
            try event(old.id, .restored, "back in the catalog")
            if outcome != .changed { outcome = .restored }
        }
        return outcome
    }

    /// Writes what changed in a stored edition, the way a sync does; `pageID` nil keeps the edition's page.
    private func refresh(_ old: Stored, with record: EntryRecord, pageID: Int64?) throws -> EntryOutcome {
        guard old.contentHash != record.contentHash else {
            if let pageID, old.pageID != pageID {
                try db.cachedStatement(sql: "UPDATE edition SET page_id = ? WHERE id = ?").execute(arguments: [pageID, old.id])
            }
            return .unchanged
        }
        // A change hash of 0 is a title a repair brought back from the list index (`StoreSalvage`): what it had is
        // not known, so its entry is written as it is, not taken for the publisher's change.
        let changed = old.changeHash != record.changeHash && old.changeHash != 0
        let before = changed ? try Store.editionDetail(db, rowID: old.id) : nil
        try update(old.id, record, pageID: pageID ?? old.pageID)
        if changed {
            try recordChange(old, before: before, record)
            return .changed
        }
        if old.availabilityStatus != record.availability?.status {
            try event(old.id, .availability, "\(old.availabilityStatus ?? "none") → \(record.availability?.status ?? "none")")
        }
        return .refreshed
    }

    /// Records an entry `shelf browse` or `shelf search` showed, so its id can be acted on before any sync; returns
    /// the edition's row id.
    ///
    /// A title a sync stored (or the loans feed brought) is left as it is: syncs own the catalog. A title found
    /// before is refreshed from the entry and its time of finding renewed; a new one is stored off the catalog.
    func applyFound(_ record: EntryRecord, by finder: FoundBy) throws -> Int64 {
        guard let old = try stored(record.entry.id, key: record.key.key) else {
            let id = try insert(record, pageID: nil)
            try db.cachedStatement(sql: "UPDATE edition SET in_catalog = 0, found_by = ?, found_at = ? WHERE id = ?")
                .execute(arguments: [finder.rawValue, now, id])
            try event(id, .found, finder.eventDetail)
            return id
        }
        guard old.foundBy != nil else { return old.id }
        _ = try refresh(old, with: record, pageID: nil)
        try db.cachedStatement(sql: "UPDATE edition SET found_by = ?, found_at = ? WHERE id = ?")
            .execute(arguments: [finder.rawValue, now, old.id])
        return old.id
    }

    /// Counts every edition last seen on `pageID` as present (the page answered 304).
    ///
    /// Only editions in the catalog: one removed since keeps the page it was last seen on, and must not count as
    /// seen (it would then be taken for a duplicate when it comes back on another page).
    func markPageSeen(_ pageID: Int64) throws -> Int {
        try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO temp.seen SELECT id FROM edition WHERE page_id = ? AND in_catalog = 1")
            .execute(arguments: [pageID])
        return db.changesCount
    }

    /// Unlinks from a page just read whole the editions it no longer holds (not seen so far this sync): a later
    /// sync that hears 304 for the page must not count them as present. Without this, a title a library dropped
    /// while a guard kept every title (a partial sync) stayed linked to its old page, and was never removed.
    func unlinkUnseen(fromPage pageID: Int64) throws {
        try db.cachedStatement(sql: """
            UPDATE edition SET page_id = NULL WHERE page_id = ? AND id NOT IN (SELECT edition_id FROM temp.seen)
            """).execute(arguments: [pageID])
    }

    /// Marks editions in the catalog but not seen this sync as removed; returns their titles.
    ///
    /// Titles only browse or search found are not part of the catalog, so never marked removed: those the patron
    /// never acted on are forgotten once no browse or search has shown them for `FoundBy.lifetime`.
    func removeUnseen() throws -> [String] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, title FROM edition
            WHERE library_id = ? AND in_catalog = 1 AND id NOT IN (SELECT edition_id FROM temp.seen)
            """, arguments: [libraryID])
        for row in rows {
            let id: Int64 = row[0]
            try db.execute(
                sql: "UPDATE edition SET in_catalog = 0, removed_at = ? WHERE id = ?", arguments: [now, id])
            try event(id, .removed, "no longer in the catalog")
        }
        _ = try forgetStaleFinds(before: now - FoundBy.lifetime)
        return rows.map { $0[1] }
    }

    /// Deletes the titles only browse or search found, last shown before `cutoff`, that the patron never acted on:
    /// no loan or hold, no download (queued, begun or done), no state or loan event in their history.
    func forgetStaleFinds(before cutoff: Double) throws -> Int {
        let acts = EventKind.patronActs.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        try db.execute(sql: """
            DELETE FROM edition
            WHERE library_id = ? AND found_by IS NOT NULL AND in_catalog = 0 AND found_at < ?
              AND state = 'new' AND has_local_copy = 0
              AND NOT EXISTS (SELECT 1 FROM loan l WHERE l.edition_id = edition.id)
              AND NOT EXISTS (SELECT 1 FROM download_queue q WHERE q.edition_id = edition.id)
              AND NOT EXISTS (SELECT 1 FROM fulfilment f WHERE f.edition_id = edition.id)
              AND NOT EXISTS (SELECT 1 FROM part p WHERE p.edition_id = edition.id)
              AND NOT EXISTS (SELECT 1 FROM event ev WHERE ev.edition_id = edition.id AND ev.kind IN (\(acts)))
            """, arguments: [libraryID, cutoff])
        return db.changesCount
    }

    /// How many editions are in the catalog now.
    /// Takes an edition's availability, copies and holds from a fresh entry (the answer to a return).
    func refreshCopies(_ editionID: Int64, from entry: OPDSEntry) throws {
        try db.execute(sql: """
            UPDATE edition SET availability_status = ?, copies_available = ?, copies_total = ?, holds_total = ? WHERE id = ?
            """, arguments: [entry.availability?.status, entry.copies?.available, entry.copies?.total,
                             entry.holds?.total, editionID])
    }

    func catalogCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM edition WHERE library_id = ? AND in_catalog = 1",
                         arguments: [libraryID]) ?? 0
    }

    /// Marks an edition seen this sync; false when it already was.
    private func markSeen(_ id: Int64) throws -> Bool {
        var statement = try HotStatement(db, "INSERT OR IGNORE INTO temp.seen (edition_id) VALUES (?)")
        statement.reset()
        statement.bind(id)
        try statement.run()
        return db.changesCount > 0
    }

    private func event(_ editionID: Int64, _ kind: EventKind, _ detail: String) throws {
        try EventRecord.append(db, libraryID: libraryID, editionID: editionID, syncID: syncID, at: now, kind: kind, detail: detail)
    }

    /// Binds the columns of `columnNames`, in order.
    private func bindColumns(_ record: EntryRecord, to statement: inout HotStatement) {
        let entry = record.entry
        for text in [entry.title, entry.subtitle, record.authors, record.narrators, record.description, record.medium] {
            statement.bind(text)
        }
        statement.bind(entry.isDraft)
        statement.bind(entry.isPaid)
        statement.bindCirculation(record.availability, record.holds, record.copies)
        statement.bind(record.entitlement.rawValue)
        statement.bind(blob: DetailCodec.detail(of: entry, names: (record.authors, record.narrators)))
        statement.bind(record.contentHash)
        statement.bind(record.changeHash)
        statement.bind(record.protection)
        statement.bind(entry.duration)
        statement.bind(entry.series?.name)
        statement.bind(entry.series?.position)
        statement.bind(entry.series?.href)
        statement.bind(entry.acquisitions.contains { $0.kind == .borrow })
    }

    private static let columnNames = """
        title, subtitle, authors, narrators, summary, medium, is_draft, is_paid,
        availability_status, availability_since, availability_until, holds_total, holds_position, copies_total,
        copies_available, entitlement, detail, content_hash, change_hash, protection, duration, series_name,
        series_position, series_url, has_borrow
        """

    private static let insertSQL = """
        INSERT INTO edition (\(columnNames), library_id, entry_id, page_id, in_catalog, first_seen_at,
                             changed_at, state, has_local_copy, state_changed_at, short_key, short_id,
                             short_width)
        VALUES (\(Array(repeating: "?", count: columnNames.split(separator: ",").count).joined(separator: ",")),
                ?, ?, ?, 1, ?, ?, 'new', 0, ?, ?, ?, ?)
        """

    private static let updateSQL: String = {
        let assignments = columnNames.split(separator: ",")
            .map { "\($0.trimmingCharacters(in: .whitespacesAndNewlines)) = ?" }
            .joined(separator: ", ")
        return "UPDATE edition SET \(assignments), page_id = ?, changed_at = ? WHERE id = ?"
    }()

    /// Adds an edition known only from the loans feed (or a borrow response): not part of the catalog.
    func insertOffCatalog(_ record: EntryRecord) throws -> Int64 {
        let id = try insert(record, pageID: nil)
        try db.execute(sql: "UPDATE edition SET in_catalog = 0 WHERE id = ?", arguments: [id])
        return id
    }

    private func insert(_ record: EntryRecord, pageID: Int64?) throws -> Int64 {
        var statement = try HotStatement(db, Self.insertSQL)
        statement.reset()
        bindColumns(record, to: &statement)
        statement.bind(libraryID)
        statement.bind(record.entry.id)
        statement.bind(pageID)
        statement.bind(now)
        statement.bind(now)
        statement.bind(now)
        // The id never changes, so these are set once; an update leaves them be.
        let (key, byPrefix) = record.key
        statement.bind(key)
        // Widened against the keys stored so far; `finish` widens it against those added after it.
        var neighbours = try KeyNeighbours(db, libraryID: libraryID)
        let shown = try ShortIDWidths.provisional(key: key, byPrefix: byPrefix, neighbours: &neighbours)
        let stored = ShortID.stored(shown, key: record.key)
        statement.bind(stored.text)
        statement.bind(stored.width)
        try statement.run()
        addedKeys.insert(key)
        return db.lastInsertedRowID
    }

    private func update(_ id: Int64, _ record: EntryRecord, pageID: Int64?) throws {
        var statement = try HotStatement(db, Self.updateSQL)
        statement.reset()
        bindColumns(record, to: &statement)
        statement.bind(pageID)
        statement.bind(now)
        statement.bind(id)
        try statement.run()
    }

    /// Records what the publisher changed and moves the lifecycle (a Downloaded edition becomes Updated).
    /// `before`: the edition's detail before the update, which holds its acquisitions and `updated`.
    private func recordChange(_ old: Stored, before: EditionDetailJSON?, _ record: EntryRecord) throws {
        var parts: [String] = []
        if before?.updated != record.entry.updated {
            parts.append("updated \(before?.updated ?? "none") → \(record.entry.updated ?? "none")")
        }
        let oldLinks = (before?.acquisitions ?? []).map { (rel: $0.rel, href: $0.href) }
        let newLinks = record.entry.acquisitions.map { (rel: $0.rel, href: $0.href) }
        for index in 0..<max(oldLinks.count, newLinks.count) {
            let before = index < oldLinks.count ? oldLinks[index] : nil
            let after = index < newLinks.count ? newLinks[index] : nil
            switch (before, after) {
            case let (before?, after?):
                let name = AcquisitionKind(rel: after.rel)?.rawValue ?? after.rel
                if before.rel != after.rel {
                    parts.append("acquisition rel \(AcquisitionKind(rel: before.rel)?.rawValue ?? before.rel) → \(name)")
                }
                if before.href != after.href { parts.append("\(name) href \(before.href) → \(after.href)") }
            case let (before?, nil):
                parts.append("acquisition removed: \(AcquisitionKind(rel: before.rel)?.rawValue ?? before.rel) \(before.href)")
            case let (nil, after?):
                parts.append("acquisition added: \(AcquisitionKind(rel: after.rel)?.rawValue ?? after.rel) \(after.href)")
            case (nil, nil):
                break
            }
        }
        try event(old.id, .changed, parts.isEmpty ? "the publisher changed the edition" : parts.joined(separator: "; "))
        let moved = try Store.transition(
            db, old.id, libraryID: libraryID, .feedChanged, reason: "the publisher changed the edition",
            note: "the publisher changed the edition", syncID: syncID, now: Date(timeIntervalSince1970: now))
        let version = record.entry.updated ?? String(Int(now))
        if moved.to.state == .updated && moved.from.state != .updated {
            try Notices.record(
                db, kind: .updated, libraryID: libraryID, editionID: old.id, key: "updated:\(record.entry.id):\(version)",
                text: "\(record.entry.title): updated by the publisher", at: Date(timeIntervalSince1970: now))
        } else if let who = try ArchivedBy.fetchOne(
            db.cachedStatement(sql: "SELECT archived_by FROM edition WHERE id = ?"), arguments: [old.id])
        {
            // Archived on purpose: the update is news, not a reason to download the title again.
            let by = who == .patron ? "you archived it" : "it was archived when finished"
            try Notices.record(
                db, kind: .updated, libraryID: libraryID, editionID: old.id, key: "updated:\(record.entry.id):\(version)",
                text: "\(record.entry.title): updated by the publisher; \(by), so it was not downloaded "
                    + "(`shelf download \(try ShortID.shortID(of: record.entry.id, libraryID: libraryID, in: db))` gets it)",
                at: Date(timeIntervalSince1970: now))
        }
    }
}

extension HotStatement {
    /// Binds the seven circulation columns (availability status, since, until; holds total, position; copies
    /// total, available) that editions and acquisitions share, in that order.
    mutating func bindCirculation(_ availability: Availability?, _ holds: Holds?, _ copies: Copies?) {
        bind(availability?.status)
        bind(availability?.since?.timeIntervalSince1970)
        bind(availability?.until?.timeIntervalSince1970)
        bind(holds?.total)
        bind(holds?.position)
        bind(copies?.total)
        bind(copies?.available)
    }
}
