import Foundation

/// The lock a `shelf listen` holds on the title it plays: a second player of the title, and `shelf archive` or
/// `shelf return` of it, look here first.
public enum PlayingLock {
    /// The lock file of `edition` (a store row id) in `library`.
    public static func file(home: Home, library: Int64, edition: Int64) -> URL {
        home.temporary.appendingPathComponent("listen-\(library)-\(edition).lock")
    }

    /// Holds the title's lock while `body` removes its files, so no player starts meanwhile; throws
    /// `PlayingError` when a player holds it, unless `force` (the player then notices its files are gone).
    public static func whileNotPlaying<T>(
        home: Home, library: Int64, edition: Int64, title: String, action: PlayingError.Action, force: Bool,
        _ body: () throws -> T
    ) throws -> T {
        guard !force else { return try body() }
        let path = file(home: home, library: library, edition: edition)
        guard let lock = try FileLock.acquire(path, timeout: 0) else {
            throw PlayingError.playing(title: title, pid: FileLock.holder(of: path), action: action)
        }
        return try withExtendedLifetime(lock) { try body() }
    }
}

/// Why a title's files cannot be removed now.
public enum PlayingError: ShelfFailure, Equatable {
    /// What was refused.
    public enum Action: String, Sendable { case archive, `return` }

    /// `shelf archive` or `shelf return` of a title that `shelf listen` (`pid`) is playing now.
    case playing(title: String, pid: Int32?, action: Action)

    public var exitCode: ShelfExit { .busy }

    public var description: String {
        switch self {
        case .playing(let title, let pid, let action):
            let verb = action.rawValue
            return "cannot \(verb) \(title): it is playing now (shelf listen\(pid.map { ", pid \($0)" } ?? "")); quit the "
                + "player first, or add --force to \(verb) it anyway (the player stops and keeps its position)"
        }
    }
}
