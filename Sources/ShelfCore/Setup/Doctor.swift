import Foundation
import GRDB

/// One thing `shelf doctor` looked at: fine, a problem (with its fix), or a note worth knowing.
public struct DoctorCheck: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case ok, problem, note }

    /// What was checked: `packages`, `audio`, `store`, `credentials`, `library demo`, `schedule`, `disk`.
    public var check: String
    public var status: Status
    /// What was found, in a few words.
    public var detail: String
    /// For a problem (or a note), what to do.
    public var fix: String?

    public init(_ check: String, _ status: Status, _ detail: String, fix: String? = nil) {
        self.check = check
        self.status = status
        self.detail = detail
        self.fix = fix
    }
}

/// The checks of `shelf doctor`: each reads, none changes anything.
public enum Doctor {
    /// The Debian packages an installed shelf runs on: the runtime side of what Scripts/setup installs to build it.
    public static let packages = [
        "libxml2", "libcurl4", "libssl3", "ca-certificates", "libsqlite3-0", "libarchive13", "zlib1g",
        "libavformat59", "libavcodec59", "libswresample4", "libavutil57", "libsdl2-2.0-0",
        "libsystemd0",
    ]

    /// Whether the packages shelf needs are installed (`dpkg-query`).
    public static func checkPackages(_ names: [String] = packages) -> DoctorCheck {
        guard ExternalProgram.isInstalled("dpkg-query") else {
            return DoctorCheck("packages", .note, "dpkg-query is not installed: not a Debian system, so not checked",
                               fix: "install the runtime libraries of \(names.joined(separator: ", ")) by hand")
        }
        let listing = ExternalProgram.run("dpkg-query", ["-W", "-f=${Package} ${Status}\\n"] + names)
        let installed = Set(listing.stdout.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.count >= 4, words.suffix(3) == ["install", "ok", "installed"] else { return nil }
            return String(words[0].split(separator: ":")[0])
        })
        let missing = names.filter { !installed.contains($0) }
        if missing.isEmpty { return DoctorCheck("packages", .ok, "\(names.count) Debian packages shelf needs are installed") }
        return DoctorCheck("packages", .problem, "not installed: \(missing.joined(separator: " "))",
                           fix: "sudo apt-get install \(missing.joined(separator: " "))")
    }

    /// `PRAGMA integrity_check` of the catalog and the positions databases, opened read-only.
    public static func checkStore(_ home: Home) -> [DoctorCheck] {
        [
            integrity(of: home.database, check: "store",
                      fix: "run `shelf doctor --repair`: it keeps your libraries, settings and downloads, sets the damaged file aside, and `shelf sync` then rebuilds the rest"),
            integrity(of: home.positionsDatabase, check: "positions",
                      fix: "run `shelf doctor --repair`: it keeps every position and bookmark it can read and sets the damaged file aside"),
        ]
    }

    static func integrity(of file: URL, check: String, fix: String) -> DoctorCheck {
        guard FileManager.default.fileExists(atPath: file.path) else {
            return DoctorCheck(check, .note, "\(file.lastPathComponent) does not exist yet", fix: "`shelf library add` or `shelf demo` creates it")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        // In a home that cannot be written there is no -shm to be made for the log: read the file as it is.
        let readOnly = Home(directory: file.deletingLastPathComponent()).isReadOnly
        do {
            let queue = try DatabaseQueue(path: readOnly ? Store.immutableURI(file.path) : file.path, configuration: configuration)
            let result = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            try queue.close()
            if result == ["ok"], readOnly {
                return DoctorCheck(check, .note, "\(file.lastPathComponent) passes its check (read-only)",
                                   fix: "the home is read-only: list, show, status, loans, position and listen work; make it writable to sync, download or change anything")
            }
            if result == ["ok"] { return DoctorCheck(check, .ok, "\(file.lastPathComponent) passes integrity_check") }
            return DoctorCheck(check, .problem, "\(file.lastPathComponent) is damaged: \(StoreCheck.firstProblem(result))", fix: fix)
        } catch let error as DatabaseError {
            if error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                return DoctorCheck(check, .note, "\(file.lastPathComponent) is locked by another shelf", fix: "run `shelf doctor` again when it finishes")
            }
            return DoctorCheck(check, .problem, "\(file.lastPathComponent) is damaged: \(error.message ?? "\(error.resultCode)")", fix: fix)
        } catch {
            return DoctorCheck(check, .problem, "\(file.lastPathComponent) cannot be read: \(error)", fix: fix)
        }
    }

    /// The modes of shelf's data directory, the credentials directory (0700) and each credentials file (0600).
    public static func checkModes(_ home: Home) -> DoctorCheck {
        var wrong: [(path: String, mode: Int, want: Int)] = []
        func look(_ path: String, want: Int) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
            else { return }
            // Group and others must have nothing; the owner's own bits may be fewer than wanted.
            if mode & 0o077 != 0 { wrong.append((path, mode, want)) }
        }
        look(home.directory.path, want: 0o700)
        look(home.credentials.path, want: 0o700)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: home.credentials.path)) ?? []
        for name in files.sorted() where name.hasSuffix(".json") {
            look(home.credentials.appendingPathComponent(name).path, want: 0o600)
        }
        guard let first = wrong.first else {
            // Where the PIN, passwords and tokens are: the desktop keyring, or those files.
            let place = CredentialStore.secretsPlace()
            return DoctorCheck("credentials", .ok, "\(files.filter { $0.hasSuffix(".json") }.count) sign-in file(s), readable by you "
                + "alone; secrets kept \(place.line)")
        }
        let octal = { (mode: Int) in String(mode & 0o777, radix: 8) }
        let more = wrong.count > 1 ? " (and \(wrong.count - 1) more)" : ""
        return DoctorCheck("credentials", .problem, "\(first.path) is readable by others (mode \(octal(first.mode)))\(more)",
                           fix: wrong.map { "chmod \(octal($0.want)) \($0.path)" }.joined(separator: "; "))
    }

    /// Free space on the filesystem holding the books; a problem under `minimum` bytes.
    public static func checkDisk(_ home: Home, minimum: Int64 = 1 << 30) -> DoctorCheck {
        var directory = home.directory.appendingPathComponent("books")
        while !FileManager.default.fileExists(atPath: directory.path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        guard let attributes = try? FileManager.default.attributesOfFileSystem(forPath: directory.path),
              let free = (attributes[.systemFreeSize] as? NSNumber)?.int64Value
        else { return DoctorCheck("disk", .note, "cannot tell the free space of \(directory.path)") }
        let amount = ByteCountFormatter.string(fromByteCount: free, countStyle: .file)
        if free < minimum {
            return DoctorCheck("disk", .problem, "only \(amount) free where the books are (\(directory.path))",
                               fix: "free some space, or `shelf archive` finished titles")
        }
        return DoctorCheck("disk", .ok, "\(amount) free where the books are (\(directory.path))")
    }

    /// Whether a schedule runs `shelf sync`: the systemd user timer (present and enabled), or a crontab line.
    public static func checkSchedule(unitDirectory: URL = SyncSchedule.unitDirectory()) -> DoctorCheck {
        let timer = unitDirectory.appendingPathComponent(SyncSchedule.timerName)
        if FileManager.default.fileExists(atPath: timer.path) {
            if let reason = UserManager.unavailable() {
                return DoctorCheck("schedule", .problem, "\(timer.path) is written, but no systemd user manager runs it (\(reason))",
                                   fix: "`shelf schedule --remove`, then `shelf schedule --cron` for a crontab line")
            }
            if UserManager.isEnabled(SyncSchedule.timerName) {
                return DoctorCheck("schedule", .ok, "\(SyncSchedule.timerName) is enabled")
            }
            return DoctorCheck("schedule", .problem, "\(SyncSchedule.timerName) is written but not enabled",
                               fix: "run `shelf schedule` again")
        }
        if let line = UserManager.crontabSyncLines().first {
            return DoctorCheck("schedule", .ok, "your crontab runs: \(line)")
        }
        return DoctorCheck("schedule", .note, "nothing runs `shelf sync` on its own",
                           fix: "`shelf schedule --every 30m` (or `shelf schedule --cron` for a crontab line)")
    }

    /// Whether a library answers, and accepts the stored sign-in: a GET of its loans feed (when signed in) or its
    /// catalog root, bounded by `timeout` seconds. Credentials are neither changed nor erased.
    public static func checkLibrary(_ library: Library, credentials: CredentialStore, timeout: Int = 10) -> DoctorCheck {
        let check = "library \(library.name)"
        var configuration = HTTPConfiguration()
        configuration.connectTimeout = min(timeout, 5)
        configuration.stallTimeout = timeout
        configuration.totalTimeout = timeout
        let session: LibrarySession
        do {
            session = try LibrarySession(library: library, credentialStore: credentials, configuration: configuration)
        } catch {
            return DoctorCheck(check, .problem, "\(error)", fix: "`shelf login --library \(library.name)`")
        }
        let signedIn = session.isSignedIn
        guard let target = URL(string: (signedIn ? library.shelfURL : nil) ?? library.url) else {
            return DoctorCheck(check, .problem, "its URL \(library.url) is not a URL", fix: "`shelf library remove \(library.name)` and add it again")
        }
        do {
            let headers = signedIn && !session.usesHTTPLogin ? try session.credentialHeaders(for: target) : [:]
            let response = try HTTPClient(configuration: session.configuration).request(target, method: "GET", headers: headers)
            let what = signedIn ? "signed in, its loans answer" : "reachable, not signed in"
            switch response.status {
            case 200..<400:
                return DoctorCheck(check, .ok, "\(what) (\(response.status), \(Redaction.url(library.url)))")
            case 401 where signedIn:
                return DoctorCheck(check, .problem, "the library refuses the stored card and PIN (401)",
                                   fix: "`shelf login --library \(library.name)` with the card and PIN that work")
            case 401:
                return DoctorCheck(check, .note, "reachable; it asks you to sign in (401)", fix: "`shelf login --library \(library.name)`")
            default:
                return DoctorCheck(check, .problem, "\(Redaction.url(target.absoluteString)) answered \(response.status)",
                                   fix: "try again later; if it persists, check the URL with `shelf library list`")
            }
        } catch let failure as ShelfFailure {
            let fix: String
            switch failure.exitCode {
            case .notPermitted, .needsSignIn: fix = "`shelf login --library \(library.name)`"
            case .offline: fix = "check the connection, and that the library's server is up; then `shelf doctor` again"
            default: fix = "try again later; if it persists, check the URL with `shelf library list`"
            }
            return DoctorCheck(check, .problem, failure.description, fix: fix)
        } catch {
            return DoctorCheck(check, .problem, "\(error)", fix: "try again later")
        }
    }
}
