import Foundation

/// Where shelf keeps its database, lock and temporary files.
public struct Home: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `--home`, else `$SHELF_HOME`, else `$XDG_DATA_HOME/shelf`, else `~/.local/share/shelf`.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Home {
        if let explicit, !explicit.isEmpty { return Home(directory: URL(fileURLWithPath: explicit, isDirectory: true)) }
        if let home = environment["SHELF_HOME"], !home.isEmpty {
            return Home(directory: URL(fileURLWithPath: home, isDirectory: true))
        }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return Home(directory: URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("shelf"))
        }
        let user = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return Home(directory: user.appendingPathComponent(".local/share/shelf", isDirectory: true))
    }

    public var database: URL { directory.appendingPathComponent("shelf.sqlite") }
    public var syncLock: URL { directory.appendingPathComponent("sync.lock") }
    /// Scratch space on the same filesystem as the data, so finished files can be renamed into place.
    public var temporary: URL { directory.appendingPathComponent("tmp", isDirectory: true) }

    /// Creates the directories (mode 0700: a patron's loans are private).
    public func prepare() throws(StoreError) {
        do {
            try FileManager.default.createDirectory(
                at: temporary, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw .cannotOpen(path: directory.path, reason: "cannot create the directory: \(error.localizedDescription)")
        }
    }
}
