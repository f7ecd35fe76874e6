import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf schedule`: a systemd user timer (or a crontab line) that runs `shelf sync --quiet`.
    struct Schedule: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schedule",
            abstract: "Run `shelf sync --quiet` every so often: a systemd user timer, or a crontab line.",
            discussion: """
                Writes shelf-sync.timer and shelf-sync.service into $XDG_CONFIG_HOME/systemd/user \
                (~/.config/systemd/user), then runs `systemctl --user daemon-reload` and `systemctl --user enable \
                --now shelf-sync.timer`. The service runs this shelf, by its absolute path, as `shelf sync --quiet` \
                (with --home when one is given); running `shelf schedule` again replaces both units.

                When no systemd user manager is running (no login session, a container, a system without systemd), \
                shelf says so in one line on standard error, writes nothing, and prints the crontab line instead, \
                to add with `crontab -e`. --cron prints that line without trying systemd. cron cannot run something \
                every 45m or 2h30m: those intervals need systemd.

                --remove disables the timer (`systemctl --user disable --now`) and deletes both units; it \
                reminds you of a crontab line that still runs shelf sync, which stays yours to remove.

                Under cron, `shelf sync --quiet` prints nothing unless something is worth telling, so cron mails \
                only that. Exits 96 when systemctl fails (the timer is then not enabled), or when cron cannot \
                express the interval.
                """)

        @Option(help: ArgumentHelp("How often to sync: 30m, 1h, 2h30m, 1d (at least 5m; default 30m).", valueName: "interval"))
        var every: String?

        @Flag(help: "Disable the timer and delete its unit files.")
        var remove = false

        @Flag(help: "Print the crontab line instead of using systemd.")
        var cron = false

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func validate() throws {
            if let every, SyncInterval(every) == nil {
                throw ValidationError("--every takes a duration like 30m, 1h or 2h30m, from 5m to 1d; not '\(every)'")
            }
            if remove && (cron || every != nil) { throw ValidationError("--remove takes neither --every nor --cron") }
        }

        /// What was done, for --json.
        struct Report: Encodable {
            var scheduler: String
            var every: String?
            var timer: String?
            var service: String?
            var cronLine: String?
            var removed: Bool?
            var note: String?
        }

        func run() throws {
            try withFailureHandling {
                let explicitHome = global.home ?? ProcessInfo.processInfo.environment["SHELF_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                let schedule = SyncSchedule(
                    executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
                    home: explicitHome.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
                    interval: every.flatMap(SyncInterval.init) ?? .standard)
                let directory = SyncSchedule.unitDirectory()
                if remove { return try removeSchedule(directory) }
                if cron { return try printCron(schedule, note: nil) }
                if let reason = UserManager.unavailable() {
                    let note = "no systemd user manager is running (\(reason)); add this line to your crontab with `crontab -e`:"
                    return try printCron(schedule, note: note)
                }
                let (timer, service) = try schedule.write(to: directory)
                try UserManager.systemctl(["daemon-reload"])
                try UserManager.systemctl(["enable", "--now", SyncSchedule.timerName])
                if output.json {
                    return try Output.json(Report(scheduler: "systemd", every: "\(schedule.interval)", timer: timer.path, service: service.path))
                }
                if !global.quiet {
                    Output.line("shelf sync runs every \(schedule.interval): \(SyncSchedule.timerName) is enabled (\(timer.path))")
                    Output.line("See it with `systemctl --user list-timers`; its runs with `journalctl --user -u \(SyncSchedule.serviceName)`.")
                }
            }
        }

        private func printCron(_ schedule: SyncSchedule, note: String?) throws {
            guard let line = schedule.cronLine else { throw ScheduleError.notCronable(schedule.interval) }
            if let note { Output.error("shelf: " + note) }
            if output.json {
                return try Output.json(Report(scheduler: "cron", every: "\(schedule.interval)", cronLine: line, note: note))
            }
            Output.line(line)
        }

        private func removeSchedule(_ directory: URL) throws {
            let files = [SyncSchedule.timerName, SyncSchedule.serviceName].map { directory.appendingPathComponent($0) }
            let present = files.filter { FileManager.default.fileExists(atPath: $0.path) }
            let manager = UserManager.unavailable() == nil
            if manager, !present.isEmpty { try UserManager.systemctl(["disable", "--now", SyncSchedule.timerName]) }
            for file in present {
                do { try FileManager.default.removeItem(at: file) } catch {
                    throw ScheduleError.cannotRemove(path: file.path, reason: error.localizedDescription)
                }
            }
            if manager, !present.isEmpty { try UserManager.systemctl(["daemon-reload"]) }
            let crontab = UserManager.crontabSyncLines()
            let note = crontab.isEmpty ? nil : "your crontab still runs shelf sync (`crontab -e` to remove it): \(crontab[0])"
            if output.json {
                return try Output.json(Report(scheduler: "systemd", timer: present.first?.path, removed: !present.isEmpty, note: note))
            }
            if let note { Output.error("shelf: " + note) }
            if !global.quiet {
                Output.line(present.isEmpty ? "No shelf timer to remove in \(directory.path)." : "Removed \(SyncSchedule.timerName) and \(SyncSchedule.serviceName).")
            }
        }
    }
}
