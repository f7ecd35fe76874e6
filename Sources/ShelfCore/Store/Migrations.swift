import Foundation
import GRDB

/// The store's schema, as append-only named migrations: never edit one that has landed; add another.
enum Migrations {
    /// The migration that makes the titles' table again (`Store` reclaims the old table's pages after it).
    static let rebuiltEditions = "v28-facts-in-detail-short-widths"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-libraries-feeds-editions-events") { db in
            try db.execute(sql: """
                CREATE TABLE library (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    url TEXT NOT NULL,
                    is_default INTEGER NOT NULL DEFAULT 0,
                    catalog_title TEXT,
                    crawlable_url TEXT,
                    shelf_url TEXT,
                    auth_document_url TEXT,
                    created_at REAL NOT NULL,
                    last_sync_at REAL,
                    last_sync_ok_at REAL,
                    last_sync_status TEXT,
                    last_sync_message TEXT
                );

                -- One row per fetched page of a feed: its validators and where it led.
                CREATE TABLE feed_page (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    url TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    etag TEXT,
                    last_modified TEXT,
                    next_url TEXT,
                    entry_count INTEGER NOT NULL DEFAULT 0,
                    fetched_at REAL NOT NULL,
                    UNIQUE (library_id, kind, url)
                );

                CREATE TABLE edition (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    entry_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    subtitle TEXT,
                    authors TEXT NOT NULL DEFAULT '',
                    narrators TEXT NOT NULL DEFAULT '',
                    summary TEXT,
                    publisher TEXT,
                    issued TEXT,
                    language TEXT,
                    distributor TEXT,
                    additional_type TEXT,
                    medium TEXT NOT NULL,
                    updated TEXT,
                    published TEXT,
                    cover_url TEXT,
                    thumbnail_url TEXT,
                    revoke_url TEXT,
                    annotations_url TEXT,
                    is_draft INTEGER NOT NULL DEFAULT 0,
                    is_paid INTEGER NOT NULL DEFAULT 0,
                    availability_status TEXT,
                    availability_since REAL,
                    availability_until REAL,
                    holds_total INTEGER,
                    holds_position INTEGER,
                    copies_total INTEGER,
                    copies_available INTEGER,
                    entitlement TEXT NOT NULL DEFAULT 'none',
                    -- contributors, categories and other links as JSON
                    detail TEXT NOT NULL DEFAULT '{}',
                    -- hash of everything stored from the entry: equal means nothing to write
                    content_hash INTEGER NOT NULL,
                    -- hash of updated + acquisition rel/href: a change here is a publisher change
                    change_hash INTEGER NOT NULL,
                    page_id INTEGER REFERENCES feed_page(id) ON DELETE SET NULL,
                    in_catalog INTEGER NOT NULL DEFAULT 1,
                    first_seen_at REAL NOT NULL,
                    changed_at REAL NOT NULL,
                    removed_at REAL,
                    state TEXT NOT NULL DEFAULT 'new',
                    has_local_copy INTEGER NOT NULL DEFAULT 0,
                    state_reason TEXT,
                    state_changed_at REAL NOT NULL,
                    UNIQUE (library_id, entry_id)
                );
                CREATE INDEX edition_page ON edition(page_id);
                CREATE INDEX edition_state ON edition(library_id, state);

                CREATE TABLE acquisition (
                    id INTEGER PRIMARY KEY,
                    edition_id INTEGER NOT NULL REFERENCES edition(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    rel TEXT NOT NULL,
                    href TEXT NOT NULL,
                    type TEXT,
                    indirect TEXT NOT NULL DEFAULT '[]',
                    availability_status TEXT,
                    availability_since REAL,
                    availability_until REAL,
                    holds_total INTEGER,
                    holds_position INTEGER,
                    copies_total INTEGER,
                    copies_available INTEGER,
                    price TEXT,
                    currency TEXT
                );
                CREATE INDEX acquisition_edition ON acquisition(edition_id);

                CREATE TABLE sync_run (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    started_at REAL NOT NULL,
                    finished_at REAL,
                    status TEXT NOT NULL,
                    pages INTEGER NOT NULL DEFAULT 0,
                    pages_not_modified INTEGER NOT NULL DEFAULT 0,
                    entries INTEGER NOT NULL DEFAULT 0,
                    added INTEGER NOT NULL DEFAULT 0,
                    changed INTEGER NOT NULL DEFAULT 0,
                    removed INTEGER NOT NULL DEFAULT 0,
                    message TEXT
                );

                -- What happened to an edition, and when: the history `shelf show` prints.
                CREATE TABLE event (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    edition_id INTEGER REFERENCES edition(id) ON DELETE CASCADE,
                    sync_id INTEGER REFERENCES sync_run(id) ON DELETE SET NULL,
                    at REAL NOT NULL,
                    kind TEXT NOT NULL,
                    detail TEXT NOT NULL
                );
                CREATE INDEX event_edition ON event(edition_id, at);
                CREATE INDEX event_sync ON event(sync_id);
                """)
        }
        migrator.registerMigration("v2-loans-and-holds") { db in
            try db.execute(sql: """
                -- The patron's loans and holds, from the library's loans feed: what the catalog, read anonymously,
                -- cannot say. One row per edition on the patron's shelf.
                CREATE TABLE loan (
                    edition_id INTEGER PRIMARY KEY REFERENCES edition(id) ON DELETE CASCADE,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    since REAL,
                    until REAL,
                    holds_position INTEGER,
                    holds_total INTEGER,
                    copies_total INTEGER,
                    copies_available INTEGER,
                    revoke_url TEXT,
                    -- the loan's own acquisition links (fulfilment), as JSON
                    acquisitions TEXT NOT NULL DEFAULT '[]',
                    first_seen_at REAL NOT NULL,
                    updated_at REAL NOT NULL
                );
                CREATE INDEX loan_library ON loan(library_id, kind);
                """)
        }
        migrator.registerMigration("v3-fulfilment") { db in
            try db.execute(sql: """
                -- What fulfilment learnt for an edition: the manifest and when the URLs in it stop working.
                CREATE TABLE fulfilment (
                    edition_id INTEGER PRIMARY KEY REFERENCES edition(id) ON DELETE CASCADE,
                    manifest TEXT NOT NULL,
                    manifest_url TEXT,
                    expires_at REAL,
                    fetched_at REAL NOT NULL
                );

                -- One row per part of a downloaded or downloading edition.
                CREATE TABLE part (
                    edition_id INTEGER NOT NULL REFERENCES edition(id) ON DELETE CASCADE,
                    idx INTEGER NOT NULL,
                    href_path TEXT NOT NULL,
                    file TEXT NOT NULL,
                    title TEXT,
                    duration REAL,
                    bytes INTEGER,
                    status TEXT NOT NULL,
                    reason TEXT,
                    updated_at REAL NOT NULL,
                    PRIMARY KEY (edition_id, idx)
                );
                """)
        }
        migrator.registerMigration("v4-edition-protection") { db in
            // The DRM scheme that keeps an audiobook from playing in shelf, when every audio path has one.
            try db.execute(sql: "ALTER TABLE edition ADD COLUMN protection TEXT")
        }
        migrator.registerMigration("v5-download-queue") { db in
            try db.execute(sql: """
                -- Titles waiting to be downloaded, drained in position order.
                CREATE TABLE download_queue (
                    edition_id INTEGER PRIMARY KEY REFERENCES edition(id) ON DELETE CASCADE,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    position REAL NOT NULL,
                    priority TEXT NOT NULL DEFAULT 'normal',
                    added_at REAL NOT NULL,
                    last_error TEXT
                );
                """)
        }
        migrator.registerMigration("v6-listening") { db in
            try db.execute(sql: """
                -- Small values the store keeps about itself (this device's id).
                CREATE TABLE setting (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );

                -- How far the patron is in a title, and how fast they listen to it.
                CREATE TABLE listening (
                    edition_id INTEGER PRIMARY KEY REFERENCES edition(id) ON DELETE CASCADE,
                    speed REAL NOT NULL DEFAULT 1.0,
                    consumption TEXT NOT NULL DEFAULT 'new',
                    percent REAL,
                    updated_at REAL NOT NULL
                );

                -- The last position per device: this one's, and those read from the library's annotation service.
                CREATE TABLE device_position (
                    edition_id INTEGER NOT NULL REFERENCES edition(id) ON DELETE CASCADE,
                    device TEXT NOT NULL,
                    device_name TEXT,
                    part INTEGER NOT NULL,
                    seconds REAL NOT NULL,
                    reading_order_item TEXT NOT NULL,
                    at REAL NOT NULL,
                    PRIMARY KEY (edition_id, device)
                );

                CREATE TABLE bookmark (
                    id INTEGER PRIMARY KEY,
                    edition_id INTEGER NOT NULL REFERENCES edition(id) ON DELETE CASCADE,
                    part INTEGER NOT NULL,
                    seconds REAL NOT NULL,
                    reading_order_item TEXT NOT NULL,
                    device TEXT NOT NULL,
                    at REAL NOT NULL
                );
                CREATE INDEX bookmark_edition ON bookmark(edition_id, at);

                -- Positions and bookmarks waiting to be posted to the annotation service: one idling position per
                -- edition (the newest replaces it), any number of bookmarks.
                CREATE TABLE annotation_outbox (
                    id INTEGER PRIMARY KEY,
                    edition_id INTEGER NOT NULL REFERENCES edition(id) ON DELETE CASCADE,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    motivation TEXT NOT NULL,
                    part INTEGER NOT NULL,
                    seconds REAL NOT NULL,
                    reading_order_item TEXT NOT NULL,
                    device TEXT NOT NULL,
                    at REAL NOT NULL,
                    last_error TEXT
                );
                CREATE UNIQUE INDEX annotation_outbox_idling ON annotation_outbox(edition_id) WHERE motivation = 'idling';
                CREATE INDEX annotation_outbox_library ON annotation_outbox(library_id, id);

                -- The library's annotation service (a feed-level link), where positions are posted.
                ALTER TABLE library ADD COLUMN annotations_url TEXT;
                """)
        }
        migrator.registerMigration("v7-outbox-motivation-names") { db in
            // The queue keys its one pending position per edition on the short names ('idling', 'bookmarking');
            // rows queued under the full motivation URIs are renamed, keeping only the newest position per edition.
            try db.execute(sql: """
                UPDATE annotation_outbox SET motivation = 'bookmarking' WHERE motivation = 'http://www.w3.org/ns/oa#bookmarking';
                DELETE FROM annotation_outbox WHERE motivation = 'http://librarysimplified.org/terms/annotation/idling'
                    AND id NOT IN (SELECT MAX(id) FROM annotation_outbox
                                   WHERE motivation = 'http://librarysimplified.org/terms/annotation/idling' GROUP BY edition_id);
                UPDATE annotation_outbox SET motivation = 'idling'
                WHERE motivation = 'http://librarysimplified.org/terms/annotation/idling'
                    AND edition_id NOT IN (SELECT edition_id FROM annotation_outbox WHERE motivation = 'idling');
                DELETE FROM annotation_outbox WHERE motivation = 'http://librarysimplified.org/terms/annotation/idling';
                """)
        }
        migrator.registerMigration("v8-listening-state-in-its-own-file") { db in
            // Moved to positions.sqlite (PositionsMigrations), so a sync never locks a position being saved; the rows
            // were copied there before this runs (PositionsMigrations.moveListeningState).
            try db.execute(sql: """
                DROP TABLE annotation_outbox;
                DROP TABLE bookmark;
                DROP TABLE device_position;
                DROP TABLE listening;
                DROP TABLE setting;
                """)
        }
        migrator.registerMigration("v9-edition-duration-and-series") { db in
            // What OPDS 1 (`dcterms:duration`, `schema:series`) and OPDS 2 (`duration`, `belongsTo.series`) feeds say
            // of an edition's running time, in seconds, and the series it belongs to, with its place in it.
            try db.execute(sql: """
                ALTER TABLE edition ADD COLUMN duration REAL;
                ALTER TABLE edition ADD COLUMN series_name TEXT;
                ALTER TABLE edition ADD COLUMN series_position TEXT;
                ALTER TABLE edition ADD COLUMN series_url TEXT;
                -- Without validators the next sync reads every page whole once, so stored editions get them too
                -- (a page answering 304 would leave them empty until it changes).
                UPDATE feed_page SET etag = NULL, last_modified = NULL;
                """)
        }
        migrator.registerMigration("v10-titles-found-by-browse-and-search") { db in
            // A title `shelf browse` or `shelf search` showed before any sync saw it: `found_by` says which
            // ('browse', 'search'), `found_at` when it was last shown. A sync that sees it in the catalog clears both.
            try db.execute(sql: """
                ALTER TABLE edition ADD COLUMN found_by TEXT;
                ALTER TABLE edition ADD COLUMN found_at REAL;
                """)
        }
        migrator.registerMigration("v11-crawl-bounds") { db in
            try db.execute(sql: """
                -- How deep and how wide a sync may crawl a navigation catalog; NULL takes shelf's defaults.
                ALTER TABLE library ADD COLUMN crawl_depth INTEGER;
                ALTER TABLE library ADD COLUMN crawl_feeds INTEGER;
                -- The feeds a page links to (one URL a line), so a page that answers 304 still leads on.
                ALTER TABLE feed_page ADD COLUMN navigation TEXT;
                """)
        }
        migrator.registerMigration("v12-failure-backoff") { db in
            try db.execute(sql: """
                -- A run of failures in a row: a library's sync (edition_id NULL) or one title's download. The next
                -- unattended try waits until next_try_at; a success deletes the row.
                CREATE TABLE failure_streak (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    edition_id INTEGER REFERENCES edition(id) ON DELETE CASCADE,
                    first_failed_at REAL NOT NULL,
                    failures INTEGER NOT NULL,
                    next_try_at REAL NOT NULL,
                    last_reason TEXT NOT NULL
                );
                CREATE UNIQUE INDEX failure_streak_key ON failure_streak(library_id, IFNULL(edition_id, 0));
                """)
        }
        migrator.registerMigration("v13-notices") { db in
            try db.execute(sql: """
                -- What the patron is told, once each: a hold ready, a new loan, a loan due soon or expired, a download
                -- done or failed, a title updated, a followed author's or series' new title, a library announcement.
                -- `key` names the happening (a hold ready on one date, a loan due on one day), so a repeat is ignored.
                CREATE TABLE notice (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    edition_id INTEGER REFERENCES edition(id) ON DELETE SET NULL,
                    kind TEXT NOT NULL,
                    key TEXT NOT NULL,
                    text TEXT NOT NULL,
                    at REAL NOT NULL,
                    -- when `shelf events` showed it, a sync printed it, a desktop notification was sent
                    seen_at REAL,
                    printed_at REAL,
                    notified_at REAL,
                    UNIQUE (library_id, key)
                );
                CREATE INDEX notice_unseen ON notice(library_id, seen_at);
                """)
        }
        migrator.registerMigration("v14-follows-and-download-policy") { db in
            try db.execute(sql: """
                -- What a sync downloads by itself: 'none', 'loans' (NULL: the default) or 'all'; how many finished
                -- downloaded titles to keep at most; a size budget in bytes for the library's downloads.
                ALTER TABLE library ADD COLUMN auto_download TEXT;
                ALTER TABLE library ADD COLUMN keep_finished INTEGER;
                ALTER TABLE library ADD COLUMN max_bytes INTEGER;
                -- Send a desktop notification per new event after each sync (as `shelf sync --notify` does).
                ALTER TABLE library ADD COLUMN notify INTEGER NOT NULL DEFAULT 0;

                -- Authors and series the patron follows; their titles a sync found since `shelf news` last showed them.
                CREATE TABLE follow (
                    id INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL,
                    name TEXT NOT NULL COLLATE NOCASE,
                    created_at REAL NOT NULL,
                    UNIQUE (kind, name)
                );
                CREATE TABLE follow_title (
                    follow_id INTEGER NOT NULL REFERENCES follow(id) ON DELETE CASCADE,
                    edition_id INTEGER NOT NULL REFERENCES edition(id) ON DELETE CASCADE,
                    found_at REAL NOT NULL,
                    viewed_at REAL,
                    PRIMARY KEY (follow_id, edition_id)
                );
                """)
        }
        migrator.registerMigration("v15-edition-status-index") { db in
            try db.execute(sql: """
                -- `shelf status` counts from this index alone, never reading the wide edition rows.
                CREATE INDEX edition_status ON edition(library_id, in_catalog, state, found_by);
                -- What `shelf show` finds a title by without reading every id: the key of its short id (see
                -- ShortID: a UUID, a token such as an ISBN, or a hash of the id) and the id reversed, so the end
                -- of an id is the start of an indexed value. Both are set when an edition is inserted.
                ALTER TABLE edition ADD COLUMN short_key TEXT;
                ALTER TABLE edition ADD COLUMN reversed_id TEXT;
                """)
            let update = try db.makeStatement(sql: "UPDATE edition SET short_key = ?, reversed_id = ? WHERE id = ?")
            let rows = try Row.fetchCursor(db, sql: "SELECT id, entry_id FROM edition")
            while let row = try rows.next() {
                let entryID: String = row[1]
                let reversed = String(String.UnicodeScalarView(entryID.unicodeScalars.reversed()))
                try update.execute(arguments: [ShortID.key(of: entryID).key, reversed, row[0] as Int64])
            }
            try db.execute(sql: """
                CREATE INDEX edition_short_key ON edition(library_id, short_key);
                CREATE INDEX edition_reversed_id ON edition(library_id, reversed_id);
                -- `shelf list` reads in title order from this index: no sort of every row before the first is
                -- printed (nor the sorter's memory, twice, for its two passes).
                CREATE INDEX edition_title ON edition(library_id, title COLLATE NOCASE, entry_id);
                """)
        }
        migrator.registerMigration("v16-list-covering-index") { db in
            try db.execute(sql: """
                -- Whether the title has a borrow link, kept with the edition by the sync that writes its links, so
                -- a list needs no lookup in the acquisition table for each row.
                ALTER TABLE edition ADD COLUMN has_borrow INTEGER NOT NULL DEFAULT 0;
                UPDATE edition SET has_borrow = 1
                    WHERE id IN (SELECT edition_id FROM acquisition WHERE kind = 'borrow');
                -- `shelf list` reads every column it shows from this one index, in title order, and never the wide
                -- edition rows (their summaries and detail JSON make them a few KB each): at 100,000 titles that is
                -- 25 MB read in order instead of a random walk over 160 MB. The columns are Store.summarySelect's.
                DROP INDEX IF EXISTS edition_title;
                CREATE INDEX edition_list ON edition(
                    library_id, title COLLATE NOCASE, entry_id, authors, narrators, medium, protection, state,
                    entitlement, availability_status, availability_since, availability_until, holds_position,
                    holds_total, copies_available, copies_total, in_catalog, is_draft, is_paid, has_local_copy,
                    has_borrow, duration, series_name, series_position, series_url, found_by, short_key);
                """)
        }
        migrator.registerMigration("v17-archived-by") { db in
            try db.execute(sql: """
                -- Who archived a title that stays on loan: 'patron' (`shelf archive`) or 'keep' (the library's
                -- `--keep` rule). Neither the downloads at the end of a sync nor `download --all` bring such a title
                -- back; a download the patron asks for by name, or the loan ending, clears it.
                ALTER TABLE edition ADD COLUMN archived_by TEXT;
                """)
        }
        migrator.registerMigration("v18-sync-guards") { db in
            try db.execute(sql: """
                -- The guards that held at a library's last sync (an empty loans feed kept, a crawl bound, a skipped
                -- feed): a guard new to this table is an event, told once however many runs it holds.
                CREATE TABLE sync_guard (
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    since REAL NOT NULL,
                    PRIMARY KEY (library_id, key)
                );
                """)
        }
        migrator.registerMigration("v19-step-undo") { db in
            try db.execute(sql: """
                -- What a run writing in steps (a sync applying what it fetched) has to undo if it never finishes:
                -- each step's changes, inverted (an SQLite session changeset), written in the step's transaction.
                -- The run's last step deletes them in its own: a run killed before leaves them for the next to undo.
                CREATE TABLE step_undo (
                    journal TEXT NOT NULL,
                    step INTEGER NOT NULL,
                    changes BLOB NOT NULL,
                    PRIMARY KEY (journal, step)
                );
                -- A library's first sync records no title rows (a whole catalog, twice over): undoing it removes the
                -- library's titles above the largest id there was before it began.
                CREATE TABLE step_undo_titles (
                    journal TEXT PRIMARY KEY,
                    library_id INTEGER NOT NULL,
                    above INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v20-page-ids-digest") { db in
            try db.execute(sql: """
                -- A digest of the ids a page held, in order, when last read whole: a page that answers 304 still
                -- tells which titles it repeats, so a server paging for ever is stopped at the same page each sync.
                ALTER TABLE feed_page ADD COLUMN ids_digest INTEGER;
                """)
        }
        migrator.registerMigration("v21-patron-mirror") { db in
            try db.execute(sql: """
                -- Whether libraries.json (PatronMirror) is behind the patron's rows: set by these triggers, cleared
                -- when the file is written.
                CREATE TABLE mirror_state (id INTEGER PRIMARY KEY CHECK (id = 1), dirty INTEGER NOT NULL);
                INSERT INTO mirror_state (id, dirty) VALUES (1, 1);
                CREATE TRIGGER mirror_library_insert AFTER INSERT ON library
                    BEGIN UPDATE mirror_state SET dirty = 1; END;
                CREATE TRIGGER mirror_library_delete AFTER DELETE ON library
                    BEGIN UPDATE mirror_state SET dirty = 1; END;
                CREATE TRIGGER mirror_library_update AFTER UPDATE OF name, url, is_default, catalog_title, crawlable_url,
                    shelf_url, auth_document_url, annotations_url, crawl_depth, crawl_feeds, auto_download, keep_finished,
                    max_bytes, notify ON library
                    BEGIN UPDATE mirror_state SET dirty = 1; END;
                CREATE TRIGGER mirror_follow_insert AFTER INSERT ON follow BEGIN UPDATE mirror_state SET dirty = 1; END;
                CREATE TRIGGER mirror_follow_delete AFTER DELETE ON follow BEGIN UPDATE mirror_state SET dirty = 1; END;
                CREATE TRIGGER mirror_edition_kept AFTER UPDATE OF has_local_copy, archived_by ON edition
                    BEGIN UPDATE mirror_state SET dirty = 1; END;
                CREATE TRIGGER mirror_queue_insert AFTER INSERT ON download_queue
                    BEGIN UPDATE mirror_state SET dirty = 1; END;
                CREATE TRIGGER mirror_queue_delete AFTER DELETE ON download_queue
                    BEGIN UPDATE mirror_state SET dirty = 1; END;
                """)
        }
        migrator.registerMigration("v22-position-sync-and-playtime") { db in
            try db.execute(sql: """
                -- The patron's switch for syncing positions with the library (NULL: as the library's patron profile
                -- says, else on), the profile's address and what it said last (simplified:synchronize_annotations).
                ALTER TABLE library ADD COLUMN sync_positions INTEGER;
                ALTER TABLE library ADD COLUMN profile_url TEXT;
                ALTER TABLE library ADD COLUMN profile_sync_annotations INTEGER;
                -- Where a loan's minutes heard are reported (Palace's timeTracking link), when it gives one.
                ALTER TABLE loan ADD COLUMN time_tracking_url TEXT;
                DROP TRIGGER mirror_library_update;
                CREATE TRIGGER mirror_library_update AFTER UPDATE OF name, url, is_default, catalog_title, crawlable_url,
                    shelf_url, auth_document_url, annotations_url, crawl_depth, crawl_feeds, auto_download, keep_finished,
                    max_bytes, notify, sync_positions ON library
                    BEGIN UPDATE mirror_state SET dirty = 1; END;
                """)
        }
        migrator.registerMigration("v23-plain-descriptions") { db in
            // Descriptions were kept as the catalog sent them (HTML, entities and all) and decoded on each `show`;
            // they are now kept as plain text, so the ones stored before are decoded once here.
            // A thousand rows at a time, so a large catalog's descriptions are never all in memory.
            let update = try db.makeStatement(sql: "UPDATE edition SET summary = ? WHERE id = ?")
            var after: Int64 = 0
            while true {
                let rows = try Row.fetchAll(
                    db, sql: "SELECT id, summary FROM edition WHERE id > ? AND summary IS NOT NULL ORDER BY id LIMIT 1000",
                    arguments: [after])
                guard let last = rows.last else { break }
                after = last["id"]
                for row in rows {
                    let stored: String = row["summary"]
                    let plain = PlainText.fromHTML(stored)
                    guard plain != stored else { continue }
                    try update.execute(arguments: [plain.isEmpty ? nil : plain, row["id"] as Int64])
                }
            }
        }
        migrator.registerMigration("v24-stored-short-ids") { db in
            // Each title's short id as `shelf list` shows it, kept with it (brought up to date by the writes that
            // add titles: `Store.widenShortIDs`), and the widest of a library's: a list prints its first row
            // without first reading every key of the library to widen the ids, and sizes its ID column without
            // measuring. The list index carries the short id in place of the key it was worked out from.
            try db.execute(sql: """
                ALTER TABLE edition ADD COLUMN short_id TEXT;
                ALTER TABLE library ADD COLUMN short_id_width INTEGER;
                DROP INDEX IF EXISTS edition_list;
                CREATE INDEX edition_list ON edition(
                    library_id, title COLLATE NOCASE, entry_id, authors, narrators, medium, protection, state,
                    entitlement, availability_status, availability_since, availability_until, holds_position,
                    holds_total, copies_available, copies_total, in_catalog, is_draft, is_paid, has_local_copy,
                    has_borrow, duration, series_name, series_position, series_url, found_by, short_id);
                """)
            // Filled in by v28, in the form it keeps them in.
        }
        migrator.registerMigration("v25-compact-detail") { db in
            // What only `shelf show` reads (contributors, categories, other links; each acquisition's indirect
            // types) as DetailCodec bytes, not JSON: about 900 bytes a Palace-style title less. A thousand rows at a
            // time, so a large catalog is never all in memory; a value that is not JSON the store wrote is left.
            let detail = try db.makeStatement(sql: "UPDATE edition SET detail = ? WHERE id = ?")
            var after: Int64 = 0
            while true {
                let rows = try Row.fetchAll(
                    db, sql: "SELECT id, entry_id, detail, authors, narrators FROM edition WHERE id > ? ORDER BY id LIMIT 1000",
                    arguments: [after])
                guard let last = rows.last else { break }
                after = last["id"]
                for row in rows {
                    guard case .string(let text) = (row["detail"] as DatabaseValue).storage,
                          let json = try? JSONDecoder().decode(EditionDetailJSON.self, from: Data(text.utf8))
                    else { continue }
                    // Written as this shelf writes a detail, which starts from the row's names (`DetailCodec`).
                    let entry = json.entry(id: row["entry_id"])
                    try detail.execute(arguments: [
                        Data(DetailCodec.detail(of: entry, names: (row["authors"], row["narrators"]))), row["id"] as Int64,
                    ])
                }
            }
            let indirect = try db.makeStatement(sql: "UPDATE acquisition SET indirect = ? WHERE id = ?")
            after = 0
            while true {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT a.id, e.entry_id, a.indirect FROM acquisition a JOIN edition e ON e.id = a.edition_id
                    WHERE a.id > ? ORDER BY a.id LIMIT 1000
                    """, arguments: [after])
                guard let last = rows.last else { break }
                after = last["id"]
                for row in rows {
                    guard case .string(let text) = (row["indirect"] as DatabaseValue).storage,
                          let nodes = try? JSONDecoder().decode([IndirectAcquisition].self, from: Data(text.utf8))
                    else { continue }
                    try indirect.execute(
                        arguments: [Data(DetailCodec.indirect(nodes, entryID: row["entry_id"])), row["id"] as Int64])
                }
            }
        }
        migrator.registerMigration("v26-no-reversed-id") { db in
            // Every id kept again reversed, with an index, to find a title by the end of its id: about 110 bytes a
            // title, and a sixth of the random index writes of a large sync. An end of an id is found through the
            // key index (an id's key is the end of it) or, for the few ids keyed by a hash, by a scan of the ids.
            try db.execute(sql: """
                DROP INDEX IF EXISTS edition_reversed_id;
                ALTER TABLE edition DROP COLUMN reversed_id;
                """)
        }
        migrator.registerMigration("v27-acquisitions-in-detail") { db in
            // Each title's acquisitions were rows of their own, with an index: 380 bytes a Palace-style title, mostly
            // relation URIs, media types and hrefs holding the library's address and the entry's id. They go into
            // the title's detail (`DetailCodec` version 3), with its cover, thumbnail, revoke and annotations URLs,
            // whose columns go: about 120 bytes with the URLs. A thousand titles at a time.
            let write = try db.makeStatement(sql: "UPDATE edition SET detail = ? WHERE id = ?")
            var after: Int64 = 0
            while true {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT id, entry_id, detail, authors, narrators, cover_url, thumbnail_url, revoke_url,
                           annotations_url
                    FROM edition WHERE id > ? ORDER BY id LIMIT 1000
                    """, arguments: [after])
                guard let first = rows.first, let last = rows.last else { break }
                after = last["id"]
                var acquisitions: [Int64: [Acquisition]] = [:]
                for row in try Row.fetchAll(db, sql: """
                    SELECT a.*, e.entry_id FROM acquisition a JOIN edition e ON e.id = a.edition_id
                    WHERE a.edition_id BETWEEN ? AND ? ORDER BY a.edition_id, a.position
                    """, arguments: [first["id"] as Int64, after])
                {
                    acquisitions[row["edition_id"], default: []].append(Self.acquisition(row))
                }
                for row in rows {
                    let id: Int64 = row["id"]
                    let entryID: String = row["entry_id"]
                    let detail = Store.editionDetail(row)
                    var entry = detail?.entry(id: entryID) ?? OPDSEntry(id: entryID, title: "")
                    entry.coverURL = detail?.coverURL ?? row["cover_url"]
                    entry.thumbnailURL = detail?.thumbnailURL ?? row["thumbnail_url"]
                    entry.revokeURL = detail?.revokeURL ?? row["revoke_url"]
                    entry.annotationsURL = detail?.annotationsURL ?? row["annotations_url"]
                    entry.acquisitions = acquisitions[id] ?? []
                    let names: (String, String) = (row["authors"], row["narrators"])
                    try write.execute(arguments: [Data(DetailCodec.detail(of: entry, names: names)), id])
                }
            }
            try db.execute(sql: """
                DROP TABLE acquisition;
                ALTER TABLE edition DROP COLUMN cover_url;
                ALTER TABLE edition DROP COLUMN thumbnail_url;
                ALTER TABLE edition DROP COLUMN revoke_url;
                ALTER TABLE edition DROP COLUMN annotations_url;
                """)
        }
        migrator.registerMigration(rebuiltEditions) { db in
            // What only `shelf show` prints of a title's own facts (publisher, issued, language, distributor,
            // additional type, updated, published) had columns of their own, about 120 bytes of a Palace-style title:
            // they go into its detail (`DetailCodec` version 4), a date as a number, about 20 bytes. A short id was
            // kept as text in the row and again in the list index (72 bytes for ids whose keys share long prefixes):
            // now as the width of its key's prefix (`ShortID.stored`). A thousand titles at a time.
            //
            // Then the table is made again without those columns and without its `UNIQUE (library_id, entry_id)`,
            // whose index held every id a second time (63 bytes a title): an id is found through the key index (its
            // key, then the id). Every write that adds a title looks for its id so, in the transaction that adds it
            // (`EntryApplier`, `StoreSalvage.insertTitleStub`). (A trigger refusing a second row made SQLite keep
            // an undo journal of every insert in a file: eight times the writes of a sync.) The index of titles by
            // state (15 bytes a title) goes too: the status index, which begins with whether a title is in the catalog
            // and then its state, finds a state's titles as well (`in_catalog IN (0, 1) AND state = ?`).
            try db.execute(sql: "ALTER TABLE edition ADD COLUMN short_width INTEGER")
            let write = try db.makeStatement(
                sql: "UPDATE edition SET detail = ?, short_id = ?, short_width = ?, short_key = ? WHERE id = ?")
            var after: Int64 = 0
            while true {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT id, entry_id, detail, authors, narrators, publisher, issued, language, distributor,
                           additional_type, updated, published, short_id
                    FROM edition WHERE id > ? ORDER BY id LIMIT 1000
                    """, arguments: [after])
                guard let last = rows.last else { break }
                after = last["id"]
                for row in rows {
                    let entryID: String = row["entry_id"]
                    var entry = Store.editionDetail(row)?.entry(id: entryID)
                        ?? OPDSEntry(id: entryID, title: "")
                    (entry.publisher, entry.issued, entry.language) = (row["publisher"], row["issued"], row["language"])
                    (entry.distributor, entry.additionalType) = (row["distributor"], row["additional_type"])
                    (entry.updated, entry.published) = (row["updated"], row["published"])
                    let key = ShortID.key(of: entryID)
                    let shortID = (row["short_id"] as String?).map { ShortID.stored($0, key: key) }
                    try write.execute(arguments: [
                        Data(DetailCodec.detail(of: entry, names: (row["authors"], row["narrators"]))),
                        shortID?.text, shortID?.width, key.key, row["id"] as Int64,
                    ])
                }
            }
            // Short ids a store upgraded from before v24 never had; the others are the same, and not written again.
            for libraryID in try Int64.fetchAll(db, sql: "SELECT id FROM library") {
                try Store.refreshShortIDs(db, libraryID: libraryID)
            }
            let kept = """
                id, library_id, entry_id, title, subtitle, authors, narrators, summary, medium, is_draft, is_paid,
                availability_status, availability_since, availability_until, holds_total, holds_position,
                copies_total, copies_available, entitlement, detail, content_hash, change_hash, page_id, in_catalog,
                first_seen_at, changed_at, removed_at, state, has_local_copy, state_reason, state_changed_at,
                protection, duration, series_name, series_position, series_url, found_by, found_at, short_key,
                has_borrow, archived_by, short_id, short_width
                """
            try db.execute(sql: """
                CREATE TABLE edition_new (
                    id INTEGER PRIMARY KEY,
                    library_id INTEGER NOT NULL REFERENCES library(id) ON DELETE CASCADE,
                    entry_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    subtitle TEXT,
                    authors TEXT NOT NULL DEFAULT '',
                    narrators TEXT NOT NULL DEFAULT '',
                    summary TEXT,
                    medium TEXT NOT NULL,
                    is_draft INTEGER NOT NULL DEFAULT 0,
                    is_paid INTEGER NOT NULL DEFAULT 0,
                    availability_status TEXT,
                    availability_since REAL,
                    availability_until REAL,
                    holds_total INTEGER,
                    holds_position INTEGER,
                    copies_total INTEGER,
                    copies_available INTEGER,
                    entitlement TEXT NOT NULL DEFAULT 'none',
                    -- contributors, categories, links, URLs, acquisitions and facts (DetailCodec)
                    detail BLOB NOT NULL DEFAULT x'',
                    -- hash of everything stored from the entry: equal means nothing to write
                    content_hash INTEGER NOT NULL,
                    -- hash of updated + acquisition rel/href: a change here is a publisher change
                    change_hash INTEGER NOT NULL,
                    page_id INTEGER REFERENCES feed_page(id) ON DELETE SET NULL,
                    in_catalog INTEGER NOT NULL DEFAULT 1,
                    first_seen_at REAL NOT NULL,
                    changed_at REAL NOT NULL,
                    removed_at REAL,
                    state TEXT NOT NULL DEFAULT 'new',
                    has_local_copy INTEGER NOT NULL DEFAULT 0,
                    state_reason TEXT,
                    state_changed_at REAL NOT NULL,
                    protection TEXT,
                    duration REAL,
                    series_name TEXT,
                    series_position TEXT,
                    series_url TEXT,
                    found_by TEXT,
                    found_at REAL,
                    -- the id's key (ShortID.key): finds the title by its id, its short id, or the end of its id
                    short_key TEXT NOT NULL,
                    has_borrow INTEGER NOT NULL DEFAULT 0,
                    archived_by TEXT,
                    -- the short id shown (ShortID.stored): as text only when it is an end of the id
                    short_id TEXT,
                    -- the short id shown as the width of its key's prefix; neither: the key's first 8 characters
                    short_width INTEGER
                );
                INSERT INTO edition_new (\(kept)) SELECT \(kept) FROM edition;
                DROP TABLE edition;
                ALTER TABLE edition_new RENAME TO edition;
                CREATE INDEX edition_page ON edition(page_id);
                CREATE INDEX edition_status ON edition(library_id, in_catalog, state, found_by);
                CREATE INDEX edition_short_key ON edition(library_id, short_key);
                CREATE TRIGGER mirror_edition_kept AFTER UPDATE OF has_local_copy, archived_by ON edition
                    BEGIN UPDATE mirror_state SET dirty = 1; END;
                CREATE INDEX edition_list ON edition(
                    library_id, title COLLATE NOCASE, entry_id, authors, narrators, medium, protection, state,
                    entitlement, availability_status, availability_since, availability_until, holds_position,
                    holds_total, copies_available, copies_total, in_catalog, is_draft, is_paid, has_local_copy,
                    has_borrow, duration, series_name, series_position, series_url, found_by, short_id, short_width);
                """)
        }
        return migrator
    }

    /// A row of the table `acquisition` (until migration v27) as the acquisition it was written from.
    private static func acquisition(_ row: Row) -> Acquisition {
        var acquisition = Acquisition(
            kind: AcquisitionKind(rawValue: row["kind"]) ?? .generic, rel: row["rel"], href: row["href"], type: row["type"],
            indirect: Store.storedIndirect(row["indirect"], entryID: row["entry_id"]) ?? [])
        acquisition.setCirculation(
            status: row["availability_status"], since: row["availability_since"], until: row["availability_until"],
            holds: (row["holds_total"], row["holds_position"]), copies: (row["copies_total"], row["copies_available"]),
            price: row["price"], currency: row["currency"])
        return acquisition
    }
}
