import Foundation

/// Where shelf keeps its database, lock and temporary files.
public struct Home: Sendable {
    public let directory: URL
    /// Where sign-in credentials are kept: the XDG state directory, or inside an explicit home.
    public let credentials: URL

    public init(directory: URL, credentials: URL? = nil) {
        self.directory = directory
        self.credentials = credentials ?? directory.appendingPathComponent("credentials", isDirectory: true)
    }

    /// `--home`, else `$SHELF_HOME` (data and credentials both inside it); otherwise data in
    /// `$XDG_DATA_HOME/shelf` (`~/.local/share/shelf`) and credentials in `$XDG_STATE_HOME/shelf/credentials`
    /// (`~/.local/state/shelf/credentials`).
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Home {
        if let explicit, !explicit.isEmpty { return Home(directory: URL(fileURLWithPath: explicit, isDirectory: true)) }
        if let home = environment["SHELF_HOME"], !home.isEmpty {
            return Home(directory: URL(fileURLWithPath: home, isDirectory: true))
        }
        let user = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        // The XDG specification ignores relative paths in these variables.
        func xdg(_ name: String, _ fallback: String) -> URL {
            if let value = environment[name], value.hasPrefix("/") { return URL(fileURLWithPath: value, isDirectory: true) }
            return user.appendingPathComponent(fallback, isDirectory: true)
        }
        return Home(
            directory: xdg("XDG_DATA_HOME", ".local/share").appendingPathComponent("shelf", isDirectory: true),
            credentials: xdg("XDG_STATE_HOME", ".local/state").appendingPathComponent("shelf/credentials", isDirectory: true))
    }

    /// Where an edition's downloaded files live.
    public func files(library: Int64, edition: Int64) -> URL {
        books(library: library).appendingPathComponent("\(edition)", isDirectory: true)
    }

    /// Where a library's downloaded titles live, one folder each.
    public func books(library: Int64) -> URL {
        directory.appendingPathComponent("books/\(library)", isDirectory: true)
    }

    /// The catalog: libraries, editions, loans, downloads.
    public var database: URL { directory.appendingPathComponent("shelf.sqlite") }
    /// The listening state: positions, bookmarks and the annotation queue, apart so a sync never locks them.
    public var positionsDatabase: URL { directory.appendingPathComponent("positions.sqlite") }
    /// The databases' last passed checks (`StoreCheck`): a file's size and time, noted so it is checked again only
    /// when it changed.
    public var checkNotes: URL { directory.appendingPathComponent("checked") }
    /// A copy of the patron's rows of the catalog (`PatronMirror`).
    public var libraryMirror: URL { directory.appendingPathComponent("libraries.json") }
    /// The libraries the last `shelf library find` listed, for `shelf library add NAME --from-registry N`.
    public var foundLibraries: URL { directory.appendingPathComponent("found-libraries.json") }
    public var syncLock: URL { directory.appendingPathComponent("sync.lock") }
    /// Scratch space on the same filesystem as the data, so finished files can be renamed into place.
    public var temporary: URL { directory.appendingPathComponent("tmp", isDirectory: true) }

    /// Whether the home exists and this process cannot write it (a read-only mount, another user's folder).
    public var isReadOnly: Bool {
        FileManager.default.fileExists(atPath: directory.path) && access(directory.path, W_OK) != 0
    }

    /// Creates the directories (mode 0700: a patron's loans are private).
    public func prepare() throws(StoreError) {
        if isReadOnly { throw .readOnlyHome(path: directory.path, needsUpgrade: false) }
        do {
            try FileManager.default.createDirectory(
                at: temporary, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw .cannotOpen(path: directory.path, reason: "cannot create the directory: \(error.localizedDescription)")
        }
    }
}
