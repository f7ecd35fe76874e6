import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What shelf keeps to act for the patron at one library. Never printed or logged.
public struct Credentials: Codable, Sendable, Equatable {
    public var authType: String
    public var username: String
    public var password: String
    /// The basic-token flow's endpoint.
    public var authenticateURL: String?
    public var token: String?
    public var tokenExpiresAt: Date?
    /// The catalog URL of the library they were given for: they go to that library only, never to another one
    /// that later has the same name or the same library at another URL. Nil in files written before shelf
    /// bound them (see `CredentialStore.load(for:)`).
    public var libraryURL: String?
    /// An OAuth refresh token and where it is spent (the password grant's `refresh` link).
    public var refreshToken: String?
    public var refreshURL: String?
    /// The way a browser sign-in went ("Riverside University"), for messages.
    public var provider: String?
    /// Where a browser sign-in is ended (the flow's `logout` template).
    public var logoutURL: String?
    /// `keyring` when the PIN or password and the tokens are kept in the desktop keyring, not in the file.
    var secretsIn: SecretsPlace?

    /// The secrets the keyring keeps for a file that leaves them out.
    struct Secrets: Codable {
        var password: String
        var token: String?
        var refreshToken: String?
    }

    var secrets: Secrets { Secrets(password: password, token: token, refreshToken: refreshToken) }

    /// These credentials without their secrets, saying where they are.
    func withoutSecrets() -> Credentials {
        var copy = self
        copy.password = ""
        copy.token = nil
        copy.refreshToken = nil
        copy.secretsIn = .keyring
        return copy
    }

    /// These credentials with the secrets the keyring kept.
    func with(_ secrets: Secrets) -> Credentials {
        var copy = self
        copy.password = secrets.password
        copy.token = secrets.token
        copy.refreshToken = secrets.refreshToken
        copy.secretsIn = nil
        return copy
    }

    public init(
        authType: String, username: String, password: String, authenticateURL: String? = nil,
        token: String? = nil, tokenExpiresAt: Date? = nil, libraryURL: String? = nil
    ) {
        self.authType = authType
        self.username = username
        self.password = password
        self.authenticateURL = authenticateURL
        self.token = token
        self.tokenExpiresAt = tokenExpiresAt
        self.libraryURL = libraryURL
    }

    /// The stored kind of a plain HTTP sign-in (no authentication document): `http-basic`, `http-digest`.
    public static func httpType(_ scheme: HTTPLogin.Scheme) -> String { "http-\(scheme.rawValue)" }

    /// The HTTP scheme libcurl signs in with, for credentials from a plain HTTP sign-in; nil for the
    /// Authentication for OPDS flows.
    public var httpScheme: HTTPLogin.Scheme? {
        HTTPLogin.Scheme.allCases.first { Self.httpType($0) == authType }
    }

    /// Whether these are a token obtained once (OAuth, SAML, OpenID Connect) rather than a card and PIN kept.
    public var isTokenOnly: Bool {
        [AuthenticationDocument.samlType, AuthenticationDocument.implicitType, AuthenticationDocument.passwordType]
            .contains(authType) || AuthenticationDocument.oidcTypes.contains(authType)
    }

    /// How the patron signed in, for messages: "SAML, Riverside University", "OAuth", or the masked card.
    public var signInName: String {
        guard isTokenOnly else { return "card \(maskedUsername)" }
        let method = AuthenticationDocument.shortName(of: authType)
        return provider.map { "\(method), \($0)" } ?? method
    }

    /// The card number with all but its last two characters hidden, for messages.
    public var maskedUsername: String {
        username.count <= 2 ? "••" : String(repeating: "•", count: min(username.count - 2, 8)) + username.suffix(2)
    }
}

// Credentials never show in `dump`, string interpolation or `--verbose` by accident.
extension Credentials: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "Credentials(\(authType), card \(maskedUsername), secret redacted)" }
    public var debugDescription: String { description }
}

/// One file per library, readable by the user alone (0600 in a 0700 directory), replaced atomically.
public struct CredentialStore: Sendable {
    public let directory: URL
    /// Called with a one-line warning (a file whose permissions were too open and were fixed).
    public var warn: (@Sendable (String) -> Void)?

    public init(home: Home, warn: (@Sendable (String) -> Void)? = nil) {
        directory = home.credentials
        self.warn = warn
    }

    public func file(for library: String) -> URL { directory.appendingPathComponent("\(library).json") }

    /// The credentials stored for `library`, only when they were given for its URL as it is now; nil when the
    /// patron has not signed in.
    ///
    /// Credentials for another URL (the library was pointed elsewhere, or a removed library of the same name left
    /// them) are never handed out: that throws `credentialsForAnotherURL`, which says to run `shelf login`. A
    /// file written before credentials were bound to a URL is bound to the library's URL on first load, unless it
    /// is older than the library itself: then it was left by an earlier library of that name, and is refused.
    public func load(for library: Library) throws(CirculationError) -> Credentials? {
        guard var credentials = try load(library.name) else { return nil }
        if credentials.libraryURL == nil {
            guard let written = modified(library.name), written >= library.createdAt.addingTimeInterval(-1) else {
                throw .credentialsForAnotherURL(library: library.name, url: nil)
            }
            credentials.libraryURL = library.url
            try save(credentials, for: library.name)
        }
        guard credentials.libraryURL == library.url else {
            throw .credentialsForAnotherURL(library: library.name, url: credentials.libraryURL)
        }
        return credentials
    }

    /// When the credentials file was last written, nil when there is none.
    private func modified(_ library: String) -> Date? {
        var info = stat()
        guard stat(file(for: library).path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// The stored credentials as they are in the file, whatever URL they were given for; nil when the patron has
    /// not signed in. Only `load(for:)` may hand credentials to a request.
    public func load(_ library: String) throws(CirculationError) -> Credentials? {
        let path = file(for: library).path
        var credentials: Credentials
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .credentialsFile(path: path, reason: "is not a plain file (a link?); refusing to use it (remove it and `shelf login` again)")
        }
        guard info.st_uid == getuid() else {
            throw .credentialsFile(path: path, reason: "owned by another user; refusing to use it (remove it and `shelf login` again)")
        }
        if info.st_mode & 0o077 != 0 {
            guard chmod(path, 0o600) == 0 else {
                throw .credentialsFile(path: path, reason: "readable by others and cannot be fixed: \(String(cString: strerror(errno)))")
            }
            warn?("credentials file \(path) was readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); fixed to 600")
        }
        do {
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let data = try FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readToEnd() ?? Data()
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            credentials = try decoder.decode(Credentials.self, from: data)
        } catch {
            throw .credentialsFile(path: path, reason: "unreadable; remove it and run `shelf login` again")
        }
        return try withSecrets(credentials, for: library)
    }

    /// The credentials with their secrets: from the keyring when the file leaves them out. Secrets move to where
    /// they belong now: a file's into the keyring when one can be used, the keyring's into the file under
    /// `SHELF_KEYRING=off`.
    private func withSecrets(_ credentials: Credentials, for library: String) throws(CirculationError) -> Credentials {
        let key = SecretKey(library: library, folder: directory.path)
        guard credentials.secretsIn == .keyring else {
            if let keeper = Self.usableKeeper() { try? save(credentials, for: library, keeper: keeper) }
            return credentials
        }
        guard let keeper = Self.keeper.withLock({ $0 }) else {
            throw .keyringUnavailable(library: library, reason: "this program cannot reach the desktop keyring")
        }
        if let why = keeper.unavailable() { throw .keyringUnavailable(library: library, reason: why) }
        let data: Data?
        do {
            data = try keeper.load(key)
        } catch {
            throw .keyringUnavailable(library: library, reason: error.description)
        }
        guard let data, let secrets = try? JSONDecoder().decode(Credentials.Secrets.self, from: data) else {
            throw .keyringLost(library: library)
        }
        let whole = credentials.with(secrets)
        if Self.keyringRefused {
            // Chosen files over the keyring: the secrets come back to the file, then leave the keyring.
            try save(whole, for: library)
            _ = try? keeper.erase(key)
        }
        return whole
    }

    /// Writes the credentials: a new private file under a name no one can guess, created only if nothing is there
    /// (`O_EXCL`, `O_NOFOLLOW`), in a folder checked to be shelf's own (`privateDirectory`), flushed, then renamed
    /// over the old one. A planted link is never written through.
    public func save(_ credentials: Credentials, for library: String) throws(CirculationError) {
        try save(credentials, for: library, keeper: Self.usableKeeper())
    }

    /// `save` with the keyring already found usable (or nil: the file keeps the secrets).
    private func save(_ credentials: Credentials, for library: String, keeper: (any SecretKeeper)?) throws(CirculationError) {
        var credentials = credentials
        // The secrets go to the keyring when one can be used; the file then says so and holds none.
        if let keeper {
            let key = SecretKey(library: library, folder: directory.path)
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                try keeper.store(try encoder.encode(credentials.secrets), key: key)
                credentials = credentials.withoutSecrets()
            } catch let error as SecretKeeperError {
                warn?("the desktop keyring could not keep the sign-in for \(library) (\(error)); it is kept in a file only you can read")
            } catch {
                warn?("the sign-in for \(library) could not be encoded for the keyring; it is kept in a file only you can read")
            }
        }
        let target = file(for: library)
        let folder = try privateDirectory()
        defer { close(folder) }
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(credentials)
            let temporary = ".\(library).\(UUID().uuidString).tmp"
            let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            // Whatever the umask: only the patron may read it.
            let moded = fchmod(descriptor, 0o600)
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            let synced = fsync(descriptor)
            close(descriptor)
            guard moded == 0, written == data.count, synced == 0,
                renameat(folder, temporary, folder, target.lastPathComponent) == 0
            else {
                unlinkat(folder, temporary, 0)
                throw POSIXError(.EIO)
            }
        } catch {
            throw .credentialsFile(path: target.path, reason: "cannot be written: \(error.localizedDescription)")
        }
    }

    /// The credentials folder, opened: made private (700) if missing; refused when it is a link, not a folder, or
    /// someone else's, since whoever owns it could swap the files shelf writes there. The caller closes it.
    private func privateDirectory() throws(CirculationError) -> Int32 {
        let path = directory.path
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            let why = String(cString: strerror(errno))
            // The home itself may be missing still.
            guard (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                            attributes: [.posixPermissions: 0o700])) != nil
            else { throw .credentialsFile(path: path, reason: "cannot be made: \(why)") }
        }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else {
            throw .credentialsFile(
                path: path, reason: errno == ELOOP || errno == ENOTDIR
                    ? "is a link or not a folder; refusing to write sign-ins there (remove it and `shelf login` again)"
                    : "cannot be opened: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(folder, &info) == 0, info.st_uid == getuid() else {
            close(folder)
            throw .credentialsFile(
                path: path, reason: "belongs to another user; refusing to write sign-ins there (remove it and `shelf login` again)")
        }
        // Kept private on every write, whatever made it otherwise.
        if info.st_mode & 0o077 != 0 && fchmod(folder, 0o700) != 0 {
            close(folder)
            throw .credentialsFile(path: path, reason: "is open to others and cannot be made private")
        }
        return folder
    }

    /// Erases the credentials, from the keyring too; true when there were any.
    @discardableResult
    public func erase(_ library: String) -> Bool {
        // The keyring is asked when its secrets may be there: when wanted, or when the file says they are.
        struct Place: Decodable { var secretsIn: SecretsPlace? }
        let saysKeyring = (try? Data(contentsOf: file(for: library)))
            .flatMap { try? JSONDecoder().decode(Place.self, from: $0) }?.secretsIn == .keyring
        let inKeyring = (Self.keyringRefused && !saysKeyring) ? false : Self.keeper.withLock({ $0 }).flatMap { keeper in
            try? keeper.erase(SecretKey(library: library, folder: directory.path))
        } ?? false
        return unlink(file(for: library).path) == 0 || inKeyring
    }
}
