import Foundation
import GRDB

/// The check at open: a database file whose pages are damaged is named before any command reads or writes through
/// it. SQLite itself notices damage only on the pages a statement touches, so `shelf list` showed 18,538 of 20,000
/// titles from a file with 16 KB of garbage in its middle, and said nothing.
///
/// `PRAGMA quick_check` reads every page (40 ms for a store of 20,000 titles), so it runs only when the file or its
/// write-ahead log changed since the last check that passed: the size and modification time of both are noted in
/// `checked` beside them. A command after a sync checks once; the commands after it, not at all.
enum StoreCheck {
    /// Throws `StoreError.corrupt` naming `file` when its pages are damaged.
    static func verify(_ queue: DatabaseQueue, file: URL, notes: URL) throws(StoreError) {
        let key = file.lastPathComponent
        let signature = Self.signature(of: file)
        if Self.noted(in: notes)[key] == signature { return }
        let problems: [String]
        do {
            problems = try Self.problems(in: queue)
        } catch {
            throw Store.translate(error, path: file.path)
        }
        guard problems == ["ok"] else {
            throw .corrupt(path: file.path, reason: Self.firstProblem(problems))
        }
        Self.note(key, signature, in: notes)
    }

    /// What `PRAGMA quick_check` says of the database: `["ok"]` when it finds no damage, else its first problems.
    static func problems(in queue: DatabaseQueue) throws -> [String] {
        try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(3)") }
    }

    /// The first problem quick_check names, short enough for one line.
    package static func firstProblem(_ problems: [String]) -> String {
        // A problem may span lines, the first naming the database ("*** in database main ***").
        let lines = problems.flatMap { $0.split(separator: "\n").map(String.init) }
        let line = lines.first { $0 != "ok" && !$0.hasPrefix("***") } ?? "quick_check failed"
        return line.count > 100 ? String(line.prefix(100)) + "…" : line
    }

    /// Size and modification time of the file and of its -wal (an empty one, which every open may make anew, is
    /// as good as none).
    static func signature(of file: URL) -> String {
        [file.path, file.path + "-wal"].map { path in
            var info = stat()
            guard stat(path, &info) == 0, info.st_size > 0 else { return "-" }
            return "\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }.joined(separator: " ")
    }

    /// The signatures of the last checks that passed, by file name.
    private static func noted(in notes: URL) -> [String: String] {
        guard let text = try? String(contentsOf: notes, encoding: .utf8) else { return [:] }
        var found: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { found[String(parts[0])] = String(parts[1]) }
        }
        return found
    }

    /// Notes a passed check (written whole, atomically; a home that cannot be written checks each time).
    private static func note(_ key: String, _ signature: String, in notes: URL) {
        var found = noted(in: notes)
        found[key] = signature
        let text = found.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)\n" }.joined()
        try? Data(text.utf8).write(to: notes, options: .atomic)
    }
}
