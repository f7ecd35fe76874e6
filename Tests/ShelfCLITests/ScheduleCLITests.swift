import Foundation
import ShelfCore
import Testing
@testable import ShelfCLI

/// `shelf schedule`: the units it writes pass `systemd-analyze verify`; without a user manager it prints the
/// crontab line and writes nothing.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ScheduleCLITests {
    /// A scratch directory, removed by the caller.
    private func scratch(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// An environment in which `systemctl --user` finds no user manager, whatever machine the tests run on.
    private func noUserManager(config: URL, runtime: URL) -> [String: String] {
        ["XDG_CONFIG_HOME": config.path, "XDG_RUNTIME_DIR": runtime.path, "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(runtime.path)/none"]
    }

    @Test func intervalsAreReadBoundedAndWrittenForSystemdAndCron() {
        let table: [(String, Int?, String?, String?)] = [
            ("30m", 30, "30min", "*/30 * * * *"),
            ("5m", 5, "5min", "*/5 * * * *"),
            ("1h", 60, "1h", "0 * * * *"),
            ("2h30m", 150, "2h 30min", nil),
            ("45m", 45, "45min", nil),
            ("6h", 360, "6h", "0 */6 * * *"),
            ("1d", 1440, "24h", "0 4 * * *"),
            ("4m", nil, nil, nil), ("0m", nil, nil, nil), ("2d", nil, nil, nil), ("30", nil, nil, nil),
            ("m", nil, nil, nil), ("30x", nil, nil, nil), ("1h1h", nil, nil, nil), ("", nil, nil, nil),
        ]
        for (text, minutes, span, cron) in table {
            let interval = SyncInterval(text)
            #expect(interval?.minutes == minutes, "\(text)")
            #expect(interval?.systemdSpan == span, "\(text)")
            #expect(interval?.cronFields == cron, "\(text)")
        }
        #expect(SyncInterval("2h30m")?.description == "2h30m")
        #expect(SyncInterval("90m")?.description == "1h30m")
    }

    @Test func theWrittenUnitsPassSystemdAnalyzeVerify() throws {
        let directory = try scratch("units")
        defer { try? FileManager.default.removeItem(at: directory) }
        let runtime = directory.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let units = directory.appendingPathComponent("systemd/user")
        let schedule = SyncSchedule(
            executable: ShelfRunner.executable.path, home: directory.appendingPathComponent("a home with spaces").path,
            interval: try #require(SyncInterval("2h30m")))
        let (timer, service) = try schedule.write(to: units)
        let timerText = try String(contentsOf: timer, encoding: .utf8)
        #expect(timerText.contains("OnUnitActiveSec=2h 30min\n"))
        #expect(timerText.contains("Unit=shelf-sync.service\n") && timerText.contains("WantedBy=timers.target\n"))
        let serviceText = try String(contentsOf: service, encoding: .utf8)
        #expect(serviceText.contains("ExecStart=\(ShelfRunner.executable.path) sync --quiet --home \"\(directory.path)/a home with spaces\"\n"))

        // --man=no: the man pages are not installed where man looks during the tests (Scripts/install puts them there).
        func verify() -> ExternalProgram.Outcome {
            ExternalProgram.run(
                "systemd-analyze", ["--user", "--man=no", "verify", timer.path, service.path],
                environment: ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": runtime.path]) { $1 })
        }
        let verified = verify()
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.isEmpty, "\(verified.stderr)")

        // The same verify does find a unit that is wrong: a value systemd cannot read, a program that is not there.
        try Data(timerText.replacingOccurrences(of: "2h 30min", with: "2 fortnights").utf8).write(to: timer)
        try Data(serviceText.replacingOccurrences(of: ShelfRunner.executable.path, with: "/nonexistent/shelf").utf8).write(to: service)
        let wrong = verify()
        #expect(wrong.stderr.contains("Failed to parse timer value"), "\(wrong.stderr)")
        #expect(wrong.stderr.contains("/nonexistent/shelf is not executable"), "\(wrong.stderr)")
        #expect(wrong.status != 0)
    }

    @Test func withoutAUserManagerItSaysSoInOneLineAndPrintsTheCrontabLine() async throws {
        let directory = try scratch("schedule")
        defer { try? FileManager.default.removeItem(at: directory) }
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        let environment = noUserManager(config: directory.appendingPathComponent("config"), runtime: directory)
        let units = directory.appendingPathComponent("config/systemd/user")
        let command = "\(ShelfRunner.executable.path) sync --quiet --home \(shelf.home.path)"

        let fallback = try await shelf.run(["schedule", "--every", "30m"], environment: environment)
        #expect(fallback.status == 0)
        #expect(fallback.stdout == "*/30 * * * * \(command)\n")
        let complaint = fallback.stderr.split(separator: "\n")
        #expect(complaint.count == 1)
        #expect(complaint.first?.hasPrefix("shelf: no systemd user manager is running (") == true, "\(fallback.stderr)")
        #expect(complaint.first?.hasSuffix("add this line to your crontab with `crontab -e`:") == true)
        // Nothing half-done: no unit written that nothing would run.
        #expect(!FileManager.default.fileExists(atPath: units.path))

        let cron = try await shelf.run(["schedule", "--cron", "--every", "1h"], environment: environment)
        #expect(cron.status == 0 && cron.stderr.isEmpty)
        #expect(cron.stdout == "0 * * * * \(command)\n")

        let json = try await shelf.run(["schedule", "--cron", "--json"], environment: environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["scheduler"] as? String == "cron" && object["every"] as? String == "30m")
        #expect(object["cronLine"] as? String == "*/30 * * * * \(command)")

        let uncronable = try await shelf.run(["schedule", "--cron", "--every", "2h30m"], environment: environment)
        #expect(uncronable.status == ShelfExit.scheduleFailed.rawValue)
        #expect(uncronable.stderr == "shelf: cron cannot run something every 2h30m; pick minutes that divide an hour (5m, 10m, 15m, 20m, 30m) or hours that divide a day (1h, 2h, 3h, 4h, 6h, 8h, 12h, 1d)\n")
        #expect(uncronable.stdout.isEmpty)

        let tooOften = try await shelf.run(["schedule", "--every", "2m"], environment: environment)
        #expect(tooOften.status == ShelfExit.usage.rawValue)
        #expect(tooOften.stderr.contains("--every takes a duration like 30m, 1h or 2h30m, from 5m to 1d; not '2m'"))
    }

    @Test func removeDeletesTheUnitsAndSaysWhenThereAreNone() async throws {
        let directory = try scratch("schedule-remove")
        defer { try? FileManager.default.removeItem(at: directory) }
        let shelf = ShelfRunner()
        defer { shelf.cleanUp() }
        let environment = noUserManager(config: directory.appendingPathComponent("config"), runtime: directory)
        let units = directory.appendingPathComponent("config/systemd/user")

        let none = try await shelf.run(["schedule", "--remove"], environment: environment)
        #expect(none.status == 0)
        #expect(none.stdout == "No shelf timer to remove in \(units.path).\n")

        // Units left from a session that had a user manager: removed even without one.
        let (timer, service) = try SyncSchedule(executable: ShelfRunner.executable.path, home: nil, interval: .standard).write(to: units)
        let other = units.appendingPathComponent("other.timer")
        try Data("[Timer]\n".utf8).write(to: other)
        let removed = try await shelf.run(["schedule", "--remove"], environment: environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "Removed shelf-sync.timer and shelf-sync.service.\n")
        #expect(!FileManager.default.fileExists(atPath: timer.path) && !FileManager.default.fileExists(atPath: service.path))
        #expect(FileManager.default.fileExists(atPath: other.path))

        let both = try await shelf.run(["schedule", "--remove", "--cron"], environment: environment)
        #expect(both.status == ShelfExit.usage.rawValue)
    }
}
