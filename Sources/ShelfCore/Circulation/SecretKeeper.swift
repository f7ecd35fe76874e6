import Foundation
import Synchronization

/// Where a sign-in's secrets (the PIN or password, the tokens) are kept apart from its file, when the desktop offers
/// a place: the Secret Service keyring (`org.freedesktop.secrets` on the session bus: gnome-keyring, KeePassXC…).
/// `shelf` installs one (`CredentialStore.keeper`); the file then holds everything else.
public protocol SecretKeeper: Sendable {
    /// What it is, for `shelf doctor`: "the desktop keyring (Secret Service on the session bus)".
    var name: String { get }
    /// Nil when it can be used now; else why not ("no Secret Service on the session bus", "the keyring is locked").
    func unavailable() -> String?
    /// Keeps `secret` for the sign-in `key` names, replacing what was kept.
    func store(_ secret: Data, key: SecretKey) throws(SecretKeeperError)
    /// What is kept for `key`, nil when nothing is.
    func load(_ key: SecretKey) throws(SecretKeeperError) -> Data?
    /// Forgets what is kept for `key`; true when something was.
    func erase(_ key: SecretKey) throws(SecretKeeperError) -> Bool
}

/// Which sign-in a secret belongs to: the library's name, in which credentials folder (one home's sign-ins never
/// meet another's in the one keyring).
public struct SecretKey: Sendable, Equatable {
    public var library: String
    public var folder: String

    /// The attributes the keyring finds it by.
    public var attributes: [String: String] {
        ["application": "shelf", "shelf-library": library, "shelf-credentials": folder]
    }

    /// The label the keyring shows.
    public var label: String { "shelf sign-in for library \(library)" }
}

/// Why the keyring could not be used.
public struct SecretKeeperError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// How the secrets a credentials file leaves out are kept: the file's `secretsIn` member.
enum SecretsPlace: String, Codable {
    case keyring
}

extension CredentialStore {
    /// The keyring shelf keeps secrets in when one can be used; `shelf` installs the Secret Service one at start.
    /// `SHELF_KEYRING=off` keeps them in the files (0600) instead, and moves any kept in the keyring back there.
    public static let keeper = Mutex<(any SecretKeeper)?>(nil)

    /// Whether the patron chose files over the keyring (`SHELF_KEYRING=off`).
    static var keyringRefused: Bool {
        ["off", "no", "0", "file", "files"].contains(ProcessInfo.processInfo.environment["SHELF_KEYRING"]?.lowercased() ?? "")
    }

    /// Where new sign-ins' secrets go now: the keyring when one is installed, wanted and usable, else nil (files).
    public static func usableKeeper() -> (any SecretKeeper)? {
        guard !keyringRefused, let keeper = keeper.withLock({ $0 }), keeper.unavailable() == nil else { return nil }
        return keeper
    }

    /// Where secrets are kept, for `shelf doctor`: the keyring's name, or why files are used.
    public static func secretsPlace() -> (inKeyring: Bool, line: String) {
        guard let keeper = keeper.withLock({ $0 }) else { return (false, "in files only you can read (no keyring support in this program)") }
        if keyringRefused { return (false, "in files only you can read (SHELF_KEYRING=off)") }
        if let why = keeper.unavailable() { return (false, "in files only you can read (\(why))") }
        return (true, "in \(keeper.name)")
    }
}
