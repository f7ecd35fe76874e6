import DemoLibrary
import Foundation
import ShelfCore
import Testing
@testable import ShelfCLI

/// `shelf doctor` against the demo library: all ok, then each problem named with its fix.
@Suite(.serialized, .timeLimit(.minutes(5))) struct DoctorCLITests {
    /// The demo library signed in, and an environment with a dummy audio device and no schedule.
    private func prepared() async throws -> (CLIFixture, [String: String], URL) {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let environment = [
            "SDL_AUDIODRIVER": "dummy", "XDG_CONFIG_HOME": scratch.path, "XDG_RUNTIME_DIR": scratch.path,
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(scratch.path)/none",
        ]
        return (fixture, environment, scratch)
    }

    /// The lines of a doctor run, by check name.
    private func lines(_ stdout: String) -> [String: String] {
        var byCheck: [String: String] = [:]
        for line in stdout.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count > 1, let colon = line.firstIndex(of: ":") else { continue }
            let check = line[line.index(line.startIndex, offsetBy: 9)..<colon]
            byCheck[String(check)] = String(line)
        }
        return byCheck
    }

    @Test func aHealthySetUpIsAllOkAndExitsZero() async throws {
        let (fixture, environment, scratch) = try await prepared()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let doctor = try await fixture.shelf.run(["doctor"], environment: environment)
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        let checks = lines(doctor.stdout)
        for name in ["packages", "audio", "store", "positions", "credentials", "library demo", "disk"] {
            #expect(checks[name]?.hasPrefix("ok       \(name): ") == true, "\(name): \(doctor.stdout)")
        }
        #expect(checks["library demo"]?.contains("signed in, its loans answer (200") == true, "\(doctor.stdout)")
        #expect(checks["schedule"] == "note     schedule: nothing runs `shelf sync` on its own — fix: `shelf schedule --every 30m` (or `shelf schedule --cron` for a crontab line)")
        #expect(!doctor.stdout.contains("problem"))

        let json = try await fixture.shelf.run(["doctor", "--json"], environment: environment)
        #expect(json.status == 0)
        let decoded = try JSONDecoder().decode([DoctorCheck].self, from: Data(json.stdout.utf8))
        #expect(decoded.count == 8 && decoded.allSatisfy { $0.status != .problem })
        await fixture.finish()
    }

    @Test func anOpenCredentialFileIsAProblemWithItsFix() async throws {
        let (fixture, environment, scratch) = try await prepared()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = fixture.shelf.home.appendingPathComponent("credentials/demo.json")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let doctor = try await fixture.shelf.run(["doctor"], environment: environment)
        #expect(doctor.status == ShelfExit.doctorFoundProblems.rawValue)
        #expect(lines(doctor.stdout)["credentials"]
            == "problem  credentials: \(file.path) is readable by others (mode 644) — fix: chmod 600 \(file.path)")
        #expect(doctor.stderr == "shelf: 1 problem found\n")

        // Reading the sign-in (the library's check) puts the mode right again, as every command does.
        let fixed = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(fixed?.intValue == 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        // Under --json: the error object, with every check under "checks".
        let json = try await fixture.shelf.run(["doctor", "--json"], environment: environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["exit"] as? Int == 95 && object["error"] as? String == "1 problem found")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.filter { $0["status"] as? String == "problem" }.map { $0["check"] as? String } == ["credentials"])
        await fixture.finish()
    }

    @Test func aStoppedServerIsAProblemAndTheSignInIsKept() async throws {
        let (fixture, environment, scratch) = try await prepared()
        defer { try? FileManager.default.removeItem(at: scratch) }
        await fixture.server.stop()
        // The port is held, bound but not listening, so every connection is refused: until the server's socket is
        // closed a connection could still be accepted and reset, and once it is, another test's server could be
        // given the port; either is another failure than the one this test is about.
        let url = fixture.url
        let held = try #require(try await offloaded { Loopback.holdRefusing(url, timeout: 60) }, "the port was never freed")
        defer { close(held) }
        let doctor = try await fixture.shelf.run(["doctor"], environment: environment)
        #expect(doctor.status == ShelfExit.doctorFoundProblems.rawValue)
        #expect(doctor.stderr == "shelf: 1 problem found\n")
        let line = try #require(lines(doctor.stdout)["library demo"])
        #expect(line.hasPrefix("problem  library demo: offline: cannot reach "), "\(line)")
        #expect(line.hasSuffix("— fix: check the connection, and that the library's server is up; then `shelf doctor` again"))
        #expect(FileManager.default.fileExists(atPath: fixture.shelf.home.appendingPathComponent("credentials/demo.json").path))
        fixture.shelf.cleanUp()
    }

    @Test func noAudioDeviceATimerNothingRunsAndAMissingPackageAreProblemsWithTheirFixes() async throws {
        let (fixture, environment, scratch) = try await prepared()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A timer written while a user manager ran, now without one; an audio driver SDL does not have.
        _ = try SyncSchedule(executable: ShelfRunner.executable.path, home: nil, interval: .standard)
            .write(to: scratch.appendingPathComponent("systemd/user"))
        var broken = environment
        broken["SDL_AUDIODRIVER"] = "no-such-driver"
        let doctor = try await fixture.shelf.run(["doctor"], environment: broken)
        #expect(doctor.status == ShelfExit.doctorFoundProblems.rawValue)
        #expect(doctor.stderr == "shelf: 2 problems found\n")
        let checks = lines(doctor.stdout)
        let audio = try #require(checks["audio"])
        #expect(audio.hasPrefix("problem  audio: no audio device: "), "\(audio)")
        #expect(audio.hasSuffix("— fix: start the sound server (PipeWire or PulseAudio), or set SDL_AUDIODRIVER (alsa, pulseaudio, pipewire)"))
        let schedule = try #require(checks["schedule"])
        #expect(schedule.hasPrefix("problem  schedule: \(scratch.path)/systemd/user/shelf-sync.timer is written, but no systemd user manager runs it ("), "\(schedule)")
        #expect(schedule.hasSuffix("— fix: `shelf schedule --remove`, then `shelf schedule --cron` for a crontab line"))
        #expect(checks["library demo"]?.hasPrefix("ok") == true)

        let missing = ShelfCore.Doctor.checkPackages(["libxml2", "shelf-no-such-package"])
        #expect(missing == DoctorCheck("packages", .problem, "not installed: shelf-no-such-package", fix: "sudo apt-get install shelf-no-such-package"))
        #expect(ShelfCore.Doctor.checkPackages(["libxml2"]).status == .ok)
        await fixture.finish()
    }

    @Test func aDamagedStoreIsAProblemAndTheRestIsStillChecked() async throws {
        let (fixture, environment, scratch) = try await prepared()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A copy of the home, its catalog database damaged: the original stays as it was.
        let copy = scratch.appendingPathComponent("home")
        try FileManager.default.copyItem(at: fixture.shelf.home, to: copy)
        let database = copy.appendingPathComponent("shelf.sqlite")
        let handle = try FileHandle(forWritingTo: database)
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 100))
        try handle.close()
        let runner = ShelfRunner(home: copy)
        let doctor = try await runner.run(["doctor"], environment: environment)
        #expect(doctor.status == ShelfExit.doctorFoundProblems.rawValue)
        let checks = lines(doctor.stdout)
        let store = try #require(checks["store"])
        #expect(store.hasPrefix("problem  store: shelf.sqlite is damaged: file is not a database"), "\(store)")
        #expect(store.hasSuffix("— fix: run `shelf doctor --repair`: it keeps your libraries, settings and downloads, sets the damaged file aside, and `shelf sync` then rebuilds the rest"))
        #expect(checks["positions"]?.hasPrefix("ok") == true)
        #expect(checks["credentials"]?.hasPrefix("ok") == true && checks["disk"]?.hasPrefix("ok") == true)
        #expect(checks["library demo"] == nil)

        let original = try await fixture.shelf.run(["doctor"], environment: environment)
        #expect(original.status == 0, "\(original.stdout)")
        await fixture.finish()
    }
}
