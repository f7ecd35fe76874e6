import Foundation

/// `shelf library remove`: everything shelf keeps for a library goes — its sign-in (card, PIN, tokens), its rows
/// in the store, and the books' files on disk — so nothing of it is left for a later library of the same name.
public struct LibraryRemoval: Sendable {
    /// What removing a library would erase, for the confirmation question and the report.
    public struct Plan: Codable, Sendable, Equatable {
        public var library: String
        public var url: String
        /// Whether a card and PIN, or a user name and password, are stored for it.
        public var signedIn: Bool
        /// Downloaded titles (folders under the library's books directory, updates staged beside them included).
        public var titlesOnDisk: Int
        /// Their size in bytes.
        public var bytesOnDisk: Int64

        /// Whether files on disk would be deleted, which needs the patron's confirmation.
        public var deletesFiles: Bool { titlesOnDisk > 0 || bytesOnDisk > 0 }
    }

    let store: Store
    let home: Home

    /// Creates the removal for the store and home given.
    public init(store: Store, home: Home) {
        self.store = store
        self.home = home
    }

    /// What `remove(_:)` would erase for the library named.
    public func plan(_ name: String) throws -> Plan {
        let library = try store.library(named: name)
        let books = booksDirectory(library)
        // Each title is a folder named by its row id; an update staged beside it (`12.next`) is not another title.
        let titles = ((try? FileManager.default.contentsOfDirectory(atPath: books.path)) ?? [])
            .filter { Int64($0) != nil }.count
        let bytes = Self.size(of: books) + packages(library).reduce(0) { $0 + Self.size(of: $1) }
        let signedIn = FileManager.default.fileExists(atPath: CredentialStore(home: home).file(for: library.name).path)
        return Plan(library: library.name, url: library.url, signedIn: signedIn, titlesOnDisk: titles, bytesOnDisk: bytes)
    }

    /// Erases the library's credentials, then its files, then its rows; returns what was erased.
    ///
    /// The credentials go first, so no failure later can leave them for a library re-added under the name. The
    /// files go before the rows: a later library may be given the same row id, and so the same books directory.
    @discardableResult
    public func remove(_ name: String) throws -> Plan {
        let plan = try plan(name)
        let library = try store.library(named: name)
        CredentialStore(home: home).erase(library.name)
        for path in [booksDirectory(library)] + packages(library) where FileManager.default.fileExists(atPath: path.path) {
            do {
                try FileManager.default.removeItem(at: path)
            } catch {
                throw StoreError.files("cannot remove \(path.path): \(error.localizedDescription); "
                    + "its sign-in was erased: fix the folder's permissions and run `shelf library remove \(name)` again")
            }
        }
        try store.removeLibrary(name: name)
        return plan
    }

    /// Where the library's downloaded titles live: `books/<library id>`.
    private func booksDirectory(_ library: Library) -> URL { home.books(library: library.id) }

    /// Packages of the library's titles being downloaded or unpacked in the scratch directory.
    private func packages(_ library: Library) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: home.temporary.path)) ?? []
        return names.filter { $0.hasPrefix("package-\(library.id)-") }.map { home.temporary.appendingPathComponent($0) }
    }

    /// The bytes of the regular files under `url` (0 when there is nothing).
    private static func size(of url: URL) -> Int64 {
        let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isDirectoryKey])
        guard values?.isDirectory == true,
            let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        else {
            return Int64(values?.fileSize ?? 0)
        }
        var total: Int64 = 0
        for case let file as URL in walker {
            let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += Int64(values?.fileSize ?? 0) }
        }
        return total
    }
}
