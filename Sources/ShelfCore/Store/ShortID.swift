import GRDB

/// The short ids `shelf list` shows and `shelf show` takes.
///
/// Every id has a key, stored in `edition.short_key`: the last part of the id (after its last `:` or `/`) when that
/// is a UUID or a plain token a person can type (letters, digits, `.`, `_`, `-`; at most 24 of them, as an ISBN);
/// otherwise (a loans-feed URL such as `…/works/?urn=urn%3A…%2F44977`) 16 hex digits of a hash of the whole id.
/// A token is shown whole; a UUID or a hash by its first 8 characters, or, as git does, by the shortest longer
/// prefix that no other key of the library shares. Titles whose keys are equal (`urn:x:1` and `urn:y:1` are both
/// keyed `1`; `9781488208676` and `urn:isbn:9781488208676` both `9781488208676`) are each shown by the shortest end
/// of their id, cut at a `:` or `/`, that no other id of theirs ends with (`x:1`, `y:1`), or by the whole id, which
/// finds its title first (`Store.resolveEdition`).
public enum ShortID {
    /// The shortest prefix shown of a UUID or a hash.
    public static let minimumLength = 8

    /// An id's key, and whether it is shown by a prefix (a UUID or a hash) rather than whole (a token).
    public static func key(of id: String) -> (key: String, byPrefix: Bool) {
        if let uuid = uuidKey(of: id, length: 36) { return (uuid, true) }
        let tail = tail(of: id)
        if !tail.isEmpty, tail.utf8.count <= 24, tail.utf8.allSatisfy(isTokenByte) { return (String(tail), false) }
        return (hash(of: id), true)
    }

    /// The short id of `id` in a library, widened against the ids of the library's other titles (as `shelf list`
    /// shows it), for a line that names one title: two lookups in the key index.
    static func shortID(of id: String, libraryID: Int64, in db: Database) throws -> String {
        try ShortIDWidths(db, libraryID: libraryID, id: id).shortID(of: id)
    }

    /// The form shown when no other key of the library shares its first `minimumLength` characters.
    public static func base(of id: String) -> String {
        let (key, byPrefix) = key(of: id)
        return byPrefix ? prefix(key, minimumLength) : key
    }

    /// The first `count` characters of a key shown by a prefix: a UUID's or a hash's, so ASCII, cut as bytes (a
    /// tenth of `shelf list` went into cutting them as characters).
    static func prefix(_ key: String, _ count: Int) -> String {
        String(Substring(key.utf8.prefix(count)))
    }

    /// When the id's last part (after its last `:` or `/`, ignoring those at the very end) is a UUID, which is then
    /// its key, the first `length` characters of it, cut from the id's bytes in place (for each row of `shelf list`
    /// too); else nil.
    private static func uuidKey(of id: String, length: Int) -> String? {
        var id = id
        return id.withUTF8 { utf8 -> String? in
            var end = utf8.count
            while end > 0 && isSeparator(utf8[end - 1]) { end -= 1 }
            var start = end
            while start > 0 && !isSeparator(utf8[start - 1]) { start -= 1 }
            guard end - start == 36 else { return nil }
            var dashes = 0
            for byte in utf8[start..<end] {
                if byte == UInt8(ascii: "-") { dashes += 1 } else if !isHexDigit(byte) { return nil }
            }
            guard dashes == 4 else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: utf8[start..<start + min(length, 36)]), as: UTF8.self)
        }
    }

    /// How a title's short id is kept (`edition.short_id`, `edition.short_width`): nothing for its base form; the
    /// width of a longer prefix of its key; the text only for one shown by an end of its id (`shownApart`). The
    /// text was most of a short id's 72 bytes a title (in the row and in the list index) for ids whose keys share
    /// long prefixes.
    static func stored(_ shown: String, of id: String) -> (text: String?, width: Int?) {
        stored(shown, key: key(of: id))
    }

    /// `stored(_:of:)`, for an id whose key (`key(of:)`) is known.
    static func stored(_ shown: String, key: (key: String, byPrefix: Bool)) -> (text: String?, width: Int?) {
        let (key, byPrefix) = key
        guard shown != (byPrefix ? prefix(key, minimumLength) : key) else { return (nil, nil) }
        guard byPrefix, shown.utf8.count > minimumLength, key.utf8.starts(with: shown.utf8) else { return (shown, nil) }
        return (nil, shown.utf8.count)
    }

    /// The short id kept as `stored(_:of:)` keeps it.
    static func shown(text: String?, width: Int?, of id: String) -> String {
        if let text { return text }
        if let cut = uuidKey(of: id, length: max(minimumLength, width ?? 0)) { return cut }
        return shown(text: nil, width: width, key: key(of: id))
    }

    /// `shown(text:width:of:)`, for an id whose key (`key(of:)`) is known.
    static func shown(text: String?, width: Int?, key: (key: String, byPrefix: Bool)) -> String {
        if let text { return text }
        return key.byPrefix ? prefix(key.key, max(minimumLength, width ?? 0)) : key.key
    }

    /// Whether every id ending with `end` has the key `end` has: `end` holds a `:` or `/` before its last part, so
    /// that part is the id's last part too, and the key is that part (a UUID or a token), not a hash of the id.
    static func holdsTail(_ end: String) -> Bool {
        let tail = tail(of: end)
        guard tail.utf8.count < end.utf8.count, !tail.isEmpty else { return false }
        return key(of: end).key == tail
    }

    /// An upper bound for a range scan of the keys starting with `prefix`.
    static func upperBound(of prefix: String) -> String { prefix + "\u{10FFFF}" }

    /// What follows the last `:` or `/` (ignoring those at the very end), without splitting the whole id.
    private static func tail(of id: String) -> Substring {
        let utf8 = id.utf8
        var end = utf8.endIndex
        while end > utf8.startIndex, let last = utf8[utf8.index(before: end)...].first, isSeparator(last) {
            end = utf8.index(before: end)
        }
        guard end > utf8.startIndex else { return Substring(id) }
        let start = utf8[..<end].lastIndex(where: isSeparator).map { utf8.index(after: $0) } ?? utf8.startIndex
        return Substring(id[start..<end])
    }

    private static func isSeparator(_ byte: UInt8) -> Bool { byte == UInt8(ascii: ":") || byte == UInt8(ascii: "/") }

    private static func hash(of id: String) -> String {
        var hasher = FNV1a()
        hasher.combine(id)
        let hex = String(hasher.value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What each of several ids sharing one key is shown as: the shortest end of it, cut at a `:` or `/` and longer
    /// than the key, that none of the others ends with; or the whole id.
    static func shownApart(_ ids: [String]) -> [String: String] {
        var shown: [String: String] = [:]
        for id in ids {
            let key = key(of: id).key
            var chosen = id
            var index = id.endIndex
            while index > id.startIndex {
                index = id.index(before: index)
                guard id[index] == ":" || id[index] == "/" else { continue }
                let end = String(id[id.index(after: index)...])
                guard end.count > key.count else { continue }
                if !ids.contains(where: { $0 != id && $0.hasSuffix(end) }) {
                    chosen = end
                    break
                }
            }
            shown[id] = chosen
        }
        return shown
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}

/// The keys of a library that share more than `ShortID.minimumLength` characters with another, with the length
/// that sets them apart; every other key is shown at the minimum length. Read in one pass over the key index.
struct ShortIDWidths {
    /// Keyed by a hash of the key, so a catalog whose every id shares a prefix costs 9 bytes a title, not a string.
    private var lengths = HashedLengths()
    /// The titles whose key another title has too, by entry id: what each is shown as instead (`ShortID.shownApart`).
    private var apart: [String: String] = [:]

    init(_ db: Database, libraryID: Int64) throws {
        // Through SQLite's C API, comparing each key's bytes with the one before: no String is made for any key.
        var keys = try HotStatement(
            db, "SELECT short_key FROM edition WHERE library_id = ? AND short_key IS NOT NULL ORDER BY short_key")
        defer { keys.reset() }
        keys.bind(libraryID)
        var previous: [UInt8] = []
        var first = true
        var shared: [String] = []
        while try keys.step() {
            keys.withUTF8(0) { key in
                if !first {
                    let common = Self.commonPrefix(previous, key)
                    let needs = common + 1
                    previous.withUnsafeBufferPointer { record($0, needs) }
                    record(key, needs)
                    if common == key.count && common == previous.count && shared.last.map({ !$0.utf8.elementsEqual(key) }) ?? true {
                        shared.append(String(decoding: key, as: UTF8.self))
                    }
                }
                first = false
                previous.removeAll(keepingCapacity: true)
                previous.append(contentsOf: key)
            }
        }
        try setApart(shared, db, libraryID: libraryID)
    }

    /// Reads the ids of each key more than one title has, and how each is shown apart.
    private mutating func setApart(_ keys: [String], _ db: Database, libraryID: Int64) throws {
        for key in keys {
            let ids = try String.fetchAll(
                db, sql: "SELECT entry_id FROM edition WHERE library_id = ? AND short_key = ?", arguments: [libraryID, key])
            apart.merge(ShortID.shownApart(ids)) { $1 }
        }
    }

    /// Widths for a few stored keys, each against its neighbours in the key index (and against an equal key of
    /// another title): what the full pass above records for them, in three look-ups a key.
    init(_ db: Database, libraryID: Int64, keys: [String]) throws {
        var neighbours = try KeyNeighbours(db, libraryID: libraryID)
        var equal = try HotStatement(db, "SELECT COUNT(*) FROM edition WHERE library_id = ? AND short_key = ?")
        defer { equal.reset() }
        // Runs a look-up for `key`; true when it gave a row.
        func look(_ statement: inout HotStatement, _ key: String) throws -> Bool {
            statement.reset()
            statement.bind(libraryID)
            statement.bind(key)
            return try statement.step()
        }
        var shared: [String] = []
        for key in Set(keys) {
            var needs = Self.length(of: key, apartFrom: try neighbours.of(key))
            if try look(&equal, key), equal.int64(0) > 1 {
                needs = max(needs, key.utf8.count + 1)
                shared.append(key)
            }
            record(key, needs)
        }
        try setApart(shared, db, libraryID: libraryID)
    }

    /// Widths for one id: its key against its neighbours in the index, as `shelf list` widens it.
    init(_ db: Database, libraryID: Int64, id: String) throws {
        try self.init(db, libraryID: libraryID, keys: [ShortID.key(of: id).key])
    }

    /// The short id a title about to be added is first stored with: its key's prefix as long as its neighbours in
    /// the key index ask for (`KeyNeighbours`, two look-ups), so the widening at the end of the write
    /// (`Store.widenShortIDs`) seldom has to rewrite the row it is in, which grows it and splits its page. (Stored
    /// with its base form, a first sync of ids sharing their first 29 characters left a ninth of the table unused.)
    static func provisional(key: String, byPrefix: Bool, neighbours: inout KeyNeighbours) throws -> String {
        guard byPrefix else { return key }
        return ShortID.prefix(key, max(ShortID.minimumLength, length(of: key, apartFrom: try neighbours.of(key))))
    }

    /// How long a prefix of `key` tells it from its neighbours in the key index (0 with none).
    private static func length(of key: String, apartFrom neighbours: (before: String?, after: String?)) -> Int {
        [neighbours.before, neighbours.after].compactMap { $0 }.map { commonPrefix($0, key) + 1 }.max() ?? 0
    }

    /// The short id to show for `id`.
    func shortID(of id: String) -> String { shortID(of: id, key: ShortID.key(of: id)) }

    /// `shortID(of:)`, for an id whose key (`ShortID.key(of:)`) is known.
    func shortID(of id: String, key: (key: String, byPrefix: Bool)) -> String {
        if !apart.isEmpty, let shown = apart[id] { return shown }
        let (key, byPrefix) = key
        guard byPrefix else { return key }
        let length = lengths.isEmpty ? nil : lengths[Self.hash(key)].map(Int.init)
        return ShortID.prefix(key, max(ShortID.minimumLength, length ?? 0))
    }

    private mutating func record(_ key: String, _ needs: Int) {
        var key = key
        key.withUTF8 { record($0, needs) }
    }

    private mutating func record(_ key: UnsafeBufferPointer<UInt8>, _ needs: Int) {
        guard needs > ShortID.minimumLength else { return }
        let hash = Self.hash(key)
        lengths.widen(hash, to: UInt8(min(needs, 255)))
    }

    private static func hash(_ key: String) -> UInt64 {
        var key = key
        return key.withUTF8 { hash($0) }
    }

    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hasher = FNV1a()
        hasher.combine(utf8: key)
        return hasher.value
    }

    private static func commonPrefix(_ a: String, _ b: String) -> Int { commonPrefix(Array(a.utf8), b.utf8) }

    private static func commonPrefix<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Int {
        var count = 0
        for (x, y) in zip(a, b) {
            guard x == y else { break }
            count += 1
        }
        return count
    }
}

/// The keys next to a key in a library's key index (`edition.short_key`, keys equal to it skipped): two look-ups.
struct KeyNeighbours {
    private var before: HotStatement
    private var after: HotStatement
    private let libraryID: Int64

    init(_ db: Database, libraryID: Int64) throws {
        self.libraryID = libraryID
        before = try HotStatement(db, """
            SELECT short_key FROM edition WHERE library_id = ? AND short_key < ? ORDER BY short_key DESC LIMIT 1
            """)
        after = try HotStatement(db, """
            SELECT short_key FROM edition WHERE library_id = ? AND short_key > ? ORDER BY short_key LIMIT 1
            """)
    }

    /// The keys just before and just after `key`, if any.
    mutating func of(_ key: String) throws -> (before: String?, after: String?) {
        (try Self.look(&before, libraryID, key), try Self.look(&after, libraryID, key))
    }

    private static func look(_ statement: inout HotStatement, _ libraryID: Int64, _ key: String) throws -> String? {
        statement.reset()
        statement.bind(libraryID)
        statement.bind(key)
        // Reset before returning, so no read stays open in the write's transaction.
        defer { statement.reset() }
        return try statement.step() ? statement.string(0) : nil
    }
}

/// The shown lengths of `ShortIDWidths`, by the 64-bit hash of the key: an open-addressed table probed linearly from
/// the hash's own low bits (FNV-1a spreads them), so a lookup is a hash of the key and a read or two of an array. The
/// standard library's dictionary hashed each hash again with SipHash: at 100,000 widened keys, a twelfth of
/// `shelf list`.
struct HashedLengths {
    /// The hashes (0 marks an empty slot; a hash of 0 is kept as 1) and, beside them, their lengths.
    private var hashes: [UInt64] = []
    private var lengths: [UInt8] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    subscript(hash: UInt64) -> UInt8? {
        guard !hashes.isEmpty else { return nil }
        let hash = max(hash, 1)
        let mask = hashes.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let stored = hashes[slot]
            if stored == hash { return lengths[slot] }
            if stored == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// Records `length` for `hash`, or keeps the longer of it and the one recorded.
    mutating func widen(_ hash: UInt64, to length: UInt8) {
        if (count + 1) * 2 > hashes.count { grow() }
        let hash = max(hash, 1)
        let mask = hashes.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while hashes[slot] != 0 && hashes[slot] != hash { slot = (slot + 1) & mask }
        if hashes[slot] == 0 {
            hashes[slot] = hash
            count += 1
        }
        lengths[slot] = max(lengths[slot], length)
    }

    /// Doubles the table (at least 64 slots, always a power of two) and places every entry again.
    private mutating func grow() {
        let old = (hashes, lengths)
        let capacity = max(64, hashes.count * 2)
        hashes = Array(repeating: 0, count: capacity)
        lengths = Array(repeating: 0, count: capacity)
        count = 0
        for (hash, length) in zip(old.0, old.1) where hash != 0 { widen(hash, to: length) }
    }
}

extension Store {
    /// Widens the stored short ids after titles with these keys were added: a new key can only lengthen the short ids
    /// of its own title, of titles with the same key and of its two neighbours in the key index (every other key
    /// keeps the neighbours it was set apart from), so those are worked out again, in a few look-ups each
    /// (`ShortIDWidths(_:libraryID:keys:)`), and the library's widest is raised to theirs. Run by the writes that
    /// add titles at the end of their transaction, and by a sync after each step of its apply: a first sync of
    /// 100,000 titles widened all of them in its last step with a full pass (`refreshShortIDs`), holding the write
    /// lock 2 s. A title added since shows its id's base form (`ShortID.base`) until then. Removing a title never
    /// narrows another's short id: it still finds its title, only one character longer than it need be.
    static func widenShortIDs(_ db: Database, libraryID: Int64, addedKeys: Set<String>) throws {
        guard !addedKeys.isEmpty else { return }
        var neighbours = try KeyNeighbours(db, libraryID: libraryID)
        var keys = addedKeys
        for key in addedKeys {
            let (before, after) = try neighbours.of(key)
            keys.formUnion([before, after].compactMap { $0 })
        }
        let widths = try ShortIDWidths(db, libraryID: libraryID, keys: Array(keys))
        var titles = try HotStatement(
            db, "SELECT id, entry_id, short_id, short_width FROM edition WHERE library_id = ? AND short_key = ?")
        defer { titles.reset() }
        let stored = try Int.fetchOne(db, sql: "SELECT short_id_width FROM library WHERE id = ?", arguments: [libraryID])
            ?? ShortID.minimumLength
        var writer = ShortIDWriter(widths: widths, widest: stored)
        for key in keys {
            titles.reset()
            titles.bind(libraryID)
            titles.bind(key)
            try writer.read(&titles)
        }
        titles.reset()
        try writer.write(db, libraryID: libraryID, widthChanged: writer.widest != stored)
    }

    /// Brings the stored short ids of a library's titles (`edition.short_id`) up to date with its keys, and its widest
    /// (`library.short_id_width`): one pass over the key index (`ShortIDWidths`), then over the titles, writing only
    /// those whose short id changed. Run when the stored short ids are made (migration v28); the writes that add
    /// titles widen only what they touch (`widenShortIDs`).
    static func refreshShortIDs(_ db: Database, libraryID: Int64) throws {
        var rows = try HotStatement(db, "SELECT id, entry_id, short_id, short_width FROM edition WHERE library_id = ?")
        defer { rows.reset() }
        rows.bind(libraryID)
        var writer = ShortIDWriter(widths: try ShortIDWidths(db, libraryID: libraryID), widest: ShortID.minimumLength)
        try writer.read(&rows)
        rows.reset()
        try writer.write(db, libraryID: libraryID, widthChanged: true)
    }
}

/// What `widenShortIDs` and `refreshShortIDs` write: each title read whose stored short id is not the one `widths`
/// gives it, and the widest short id seen.
private struct ShortIDWriter {
    let widths: ShortIDWidths
    var widest: Int
    private var changed: [(rowID: Int64, stored: (text: String?, width: Int?))] = []

    init(widths: ShortIDWidths, widest: Int) {
        self.widths = widths
        self.widest = widest
    }

    /// Reads the rows of a statement selecting `id, entry_id, short_id, short_width`, to its end.
    mutating func read(_ rows: inout HotStatement) throws {
        while try rows.step() {
            let id = rows.string(1) ?? ""
            // Worked out once for the three uses.
            let key = ShortID.key(of: id)
            let shown = widths.shortID(of: id, key: key)
            widest = max(widest, TextWidth.of(shown))
            if ShortID.shown(text: rows.string(2), width: rows.int(3), key: key) != shown {
                changed.append((rows.int64(0), ShortID.stored(shown, key: key)))
            }
        }
    }

    /// Writes the short ids that changed, and the library's widest when `widthChanged`.
    func write(_ db: Database, libraryID: Int64, widthChanged: Bool) throws {
        let update = try db.cachedStatement(sql: "UPDATE edition SET short_id = ?, short_width = ? WHERE id = ?")
        for (rowID, stored) in changed { try update.execute(arguments: [stored.text, stored.width, rowID]) }
        if widthChanged {
            try db.execute(sql: "UPDATE library SET short_id_width = ? WHERE id = ?", arguments: [widest, libraryID])
        }
    }
}

extension Store {
    /// The widest short id of a library's titles (`library.short_id_width`), for `shelf list`'s ID column: kept by
    /// the writes that add titles (`widenShortIDs`), so no title is read for it.
    public func shortIDWidth(of library: Library) throws(StoreError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT short_id_width FROM library WHERE id = ?", arguments: [library.id])
        } ?? ShortID.minimumLength
    }
}
