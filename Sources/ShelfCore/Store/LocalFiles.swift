import Foundation
import GRDB

/// An edition's files on this computer, and their removal: the second half of ending a loan, returning or
/// archiving, done after the state change is committed so a crash never leaves files without a state.
public struct LocalFiles: Sendable {
    let store: Store
    let home: Home

    public init(store: Store, home: Home) {
        self.store = store
        self.home = home
    }

    /// Removes the files of a library's editions in Clearing and moves them to New.
    public func finishClearing(_ library: Library) throws {
        let editions = try store.read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, entry_id FROM edition WHERE library_id = ? AND in_catalog IN (0, 1) AND state = 'clearing'",
                arguments: [library.id])
        }
        for row in editions {
            let rowID: Int64 = row[0]
            try removeFiles(library: library, rowID: rowID)
            _ = try store.write { db in
                try db.execute(sql: "DELETE FROM part WHERE edition_id = ?", arguments: [rowID])
                try db.execute(sql: "DELETE FROM download_queue WHERE edition_id = ?", arguments: [rowID])
            }
            try store.applyLifecycle(
                .cleared, to: EditionRef(libraryID: library.id, rowID: rowID, entryID: row[1]), reason: "local files removed")
        }
    }

    /// Where an edition's files may be: the book, an update staged beside it, a package still being unpacked.
    func paths(library: Library, rowID: Int64) -> [URL] {
        let directory = home.files(library: library.id, edition: rowID)
        let siblings = ["\(rowID).next", "\(rowID).old"].map {
            directory.deletingLastPathComponent().appendingPathComponent($0)
        }
        let package = home.temporary.appendingPathComponent("package-\(library.id)-\(rowID).zip")
        return [directory] + siblings + [package, package.appendingPathExtension("part"), package.appendingPathExtension("part.json")]
    }

    /// Whether any of an edition's files, complete or half-downloaded, is on disk.
    public func hasFiles(library: Library, rowID: Int64) -> Bool {
        paths(library: library, rowID: rowID).contains { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Removes every file of an edition, nothing left behind; the caller changes its state.
    func removeFiles(library: Library, rowID: Int64) throws {
        for path in paths(library: library, rowID: rowID) where FileManager.default.fileExists(atPath: path.path) {
            do {
                try FileManager.default.removeItem(at: path)
            } catch {
                throw StoreError.files(
                    "cannot remove \(path.path): \(error.localizedDescription); fix the folder's permissions and try again "
                        + "(`shelf sync` finishes a removal left half-way)")
            }
        }
    }

    /// Removes the files a download left half-way (a title back in New after an interruption) and forgets its
    /// parts; the title stays where it is. Returns whether there was anything to remove.
    public func clearPartial(library: Library, rowID: Int64) throws -> Bool {
        guard hasFiles(library: library, rowID: rowID) else { return false }
        try removeFiles(library: library, rowID: rowID)
        _ = try store.write { db in
            try db.execute(sql: "DELETE FROM part WHERE edition_id = ?", arguments: [rowID])
        }
        return true
    }
}
