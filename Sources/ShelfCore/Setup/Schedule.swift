import Foundation

/// How often `shelf schedule` runs `shelf sync --quiet`: at least 5 minutes, at most a day.
public struct SyncInterval: Sendable, Equatable, CustomStringConvertible {
    /// The interval in minutes.
    public let minutes: Int

    public static let minimum = 5
    public static let maximum = 24 * 60
    public static let standard = SyncInterval(minutes: 30)

    init(minutes: Int) { self.minutes = minutes }

    /// Reads `30m`, `1h`, `2h30m`, `1d`; nil for anything else or outside 5m…1d.
    public init?(_ text: String) {
        var total = 0
        var digits = ""
        var units = Set<Character>()
        for character in text.lowercased() {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            let scale: Int
            switch character {
            case "d": scale = 24 * 60
            case "h": scale = 60
            case "m": scale = 1
            default: return nil
            }
            guard let value = Int(digits), digits.count <= 5, units.insert(character).inserted else { return nil }
            total += value * scale
            digits = ""
        }
        guard digits.isEmpty, !units.isEmpty, (Self.minimum...Self.maximum).contains(total) else { return nil }
        minutes = total
    }

    /// `2h30m`, `30m`, `1d`.
    public var description: String {
        if minutes == 24 * 60 { return "1d" }
        let hours = minutes / 60, rest = minutes % 60
        return (hours > 0 ? "\(hours)h" : "") + (rest > 0 || hours == 0 ? "\(rest)m" : "")
    }

    /// The time span systemd reads: `2h 30min`.
    public var systemdSpan: String {
        let hours = minutes / 60, rest = minutes % 60
        return [hours > 0 ? "\(hours)h" : nil, rest > 0 ? "\(rest)min" : nil].compactMap { $0 }.joined(separator: " ")
    }

    /// The five time fields of a crontab line that runs this often, or nil when cron cannot say it (cron counts
    /// minutes within an hour and hours within a day: 45m or 2h30m are not every-so-often there).
    public var cronFields: String? {
        if minutes < 60 { return 60 % minutes == 0 ? "*/\(minutes) * * * *" : nil }
        guard minutes % 60 == 0, 24 % (minutes / 60) == 0 else { return nil }
        let hours = minutes / 60
        return hours == 1 ? "0 * * * *" : hours == 24 ? "0 4 * * *" : "0 */\(hours) * * *"
    }
}

/// Why `shelf schedule` could not do what was asked.
public enum ScheduleError: ShelfFailure, Equatable {
    /// systemctl refused (the unit was not enabled); what it said.
    case systemctl(command: String, message: String)
    /// The interval cannot be written as a crontab line.
    case notCronable(SyncInterval)
    /// The unit files could not be written.
    case files(path: String, reason: String)
    /// A unit file could not be removed (`shelf schedule --remove`).
    case cannotRemove(path: String, reason: String)

    public var exitCode: ShelfExit { .scheduleFailed }

    public var description: String {
        switch self {
        case .systemctl(let command, let message) where command.contains(" disable "):
            "`\(command)` failed: \(message); the timer may still run (`systemctl --user list-timers` shows it)"
        case .systemctl(let command, let message):
            "`\(command)` failed: \(message); the timer is not enabled (see `journalctl --user -xe`)"
        case .notCronable(let interval):
            "cron cannot run something every \(interval); pick minutes that divide an hour (5m, 10m, 15m, 20m, 30m) "
                + "or hours that divide a day (1h, 2h, 3h, 4h, 6h, 8h, 12h, 1d)"
        case .files(let path, let reason): "cannot write \(path): \(reason)"
        case .cannotRemove(let path, let reason): "cannot remove \(path): \(reason); remove it by hand"
        }
    }
}

/// The systemd user timer and service that run `shelf sync --quiet`, or the crontab line that does the same.
public struct SyncSchedule: Sendable {
    public static let timerName = "shelf-sync.timer"
    public static let serviceName = "shelf-sync.service"

    /// The absolute path of the `shelf` executable the schedule runs.
    public let executable: String
    /// `--home DIR` when the patron uses a home of their own (`--home`, `$SHELF_HOME`), so the timer syncs it.
    public let home: String?
    public let interval: SyncInterval

    public init(executable: String, home: String?, interval: SyncInterval) {
        self.executable = executable
        self.home = home
        self.interval = interval
    }

    /// Where systemd looks for the patron's units: `$XDG_CONFIG_HOME/systemd/user` (`~/.config/systemd/user`).
    public static func unitDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config, isDirectory: true).appendingPathComponent("systemd/user", isDirectory: true)
        }
        let user = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return user.appendingPathComponent(".config/systemd/user", isDirectory: true)
    }

    /// The command line the schedule runs, as words.
    public var command: [String] { [executable, "sync", "--quiet"] + (home.map { ["--home", $0] } ?? []) }

    /// The timer unit: first run five minutes after the user manager starts, then every interval after the last.
    public var timerUnit: String {
        """
        # Written by `shelf schedule --every \(interval)`; `shelf schedule --remove` removes it.
        [Unit]
        Description=Sync shelf's libraries every \(interval)
        Documentation=man:shelf.schedule(1)

        [Timer]
        OnStartupSec=5min
        OnUnitActiveSec=\(interval.systemdSpan)
        RandomizedDelaySec=1min
        Unit=\(Self.serviceName)

        [Install]
        WantedBy=timers.target

        """
    }

    /// The service unit the timer starts: one quiet sync, whose output (new events) goes to the journal.
    public var serviceUnit: String {
        """
        # Written by `shelf schedule --every \(interval)`; `shelf schedule --remove` removes it.
        [Unit]
        Description=shelf sync --quiet
        Documentation=man:shelf.sync(1)
        After=network-online.target

        [Service]
        Type=oneshot
        ExecStart=\(command.map(Self.systemdQuoted).joined(separator: " "))

        """
    }

    /// The crontab line, or nil when cron cannot express the interval.
    public var cronLine: String? {
        interval.cronFields.map { "\($0) \(command.map(Self.shellQuoted).joined(separator: " "))" }
    }

    static func systemdQuoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "/-_.:=@+,".contains($0) }
        guard !plain else { return word.replacingOccurrences(of: "%", with: "%%") }
        let escaped = word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$")
        return "\"\(escaped)\""
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "/-_.:=@+,".contains($0) }
        // cron turns an unescaped % into a newline.
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "%", with: "\\%") + "'"
    }

    /// Writes both unit files into `directory` (created 0755 as systemd expects), each replaced atomically.
    public func write(to directory: URL) throws(ScheduleError) -> (timer: URL, service: URL) {
        let timer = directory.appendingPathComponent(Self.timerName)
        let service = directory.appendingPathComponent(Self.serviceName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .files(path: directory.path, reason: error.localizedDescription)
        }
        for (file, text) in [(service, serviceUnit), (timer, timerUnit)] {
            do {
                try Data(text.utf8).write(to: file, options: .atomic)
            } catch {
                throw .files(path: file.path, reason: error.localizedDescription)
            }
        }
        return (timer, service)
    }
}

/// The patron's systemd user manager, through `systemctl --user`.
public enum UserManager {
    /// Nil when a user manager answers; otherwise why not, in a few words.
    public static func unavailable() -> String? {
        guard ExternalProgram.isInstalled("systemctl") else { return "systemctl is not installed" }
        let probe = ExternalProgram.run("systemctl", ["--user", "show-environment"], timeout: 10)
        return probe.succeeded ? nil : probe.firstLine
    }

    /// Runs `systemctl --user ARGS`, throwing what it said when it fails.
    public static func systemctl(_ arguments: [String]) throws(ScheduleError) {
        let outcome = ExternalProgram.run("systemctl", ["--user"] + arguments, timeout: 30)
        guard outcome.succeeded else {
            throw .systemctl(command: "systemctl --user " + arguments.joined(separator: " "), message: outcome.firstLine)
        }
    }

    /// Whether `unit` is enabled (`systemctl --user is-enabled`).
    public static func isEnabled(_ unit: String) -> Bool {
        ExternalProgram.run("systemctl", ["--user", "is-enabled", unit], timeout: 10).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines) == "enabled"
    }

    /// The lines of the patron's crontab that run shelf sync; empty when there is none (or no crontab at all).
    public static func crontabSyncLines() -> [String] {
        guard ExternalProgram.isInstalled("crontab") else { return [] }
        let listing = ExternalProgram.run("crontab", ["-l"], timeout: 10)
        guard listing.succeeded else { return [] }
        return listing.stdout.split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("#") && $0.contains("shelf") && $0.contains(" sync") }
    }
}
