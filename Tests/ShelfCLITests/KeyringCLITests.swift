import DemoLibrary
import Foundation
import ShelfCore
import ShelfSpawn
import Testing

/// A real gnome-keyring (Debian's) on a private session bus, unlocked, as the desktop keyring: the Secret Service
/// end of shelf's sign-ins.
final class PrivateKeyring: @unchecked Sendable {
    static var isAvailable: Bool {
        ["/usr/bin/dbus-daemon", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool", "/usr/bin/dbus-send"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    let bus: NotificationBus
    let directory: URL

    init() async throws {
        bus = try NotificationBus()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-keyring-\(UUID().uuidString)")
        for folder in ["data", "run"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(folder), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // Unlocked with a password on standard input, as a headless session does; it ends with its bus.
        let daemon = ChildProcess()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/gnome-keyring-daemon")
        daemon.arguments = ["--unlock", "--components=secrets", "--daemonize"]
        daemon.environment = environment
        let input = Pipe()
        daemon.standardInput = input
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        try input.fileHandleForWriting.write(contentsOf: Data("test-password".utf8))
        try input.fileHandleForWriting.close()
        daemon.waitUntilExit()
        _ = try await eventually { (try? await self.client("/usr/bin/dbus-send", [
            "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.NameHasOwner",
            "string:org.freedesktop.secrets",
        ]))?.hasSuffix("boolean true") == true }
    }

    /// The keyring's world: its bus and a home of its own.
    var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": directory.path, "PATH": "/usr/bin:/bin",
         "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
         "XDG_RUNTIME_DIR": directory.appendingPathComponent("run").path]
    }

    /// What shelf kept in the keyring for `library`, "" when nothing.
    func lookup(_ library: String) async throws -> String {
        try await client("/usr/bin/secret-tool", ["lookup", "application", "shelf", "shelf-library", library])
    }

    /// Locks the default collection, as a screen lock does.
    func lock() async throws {
        _ = try await client("/usr/bin/dbus-send", [
            "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/aliases/default",
        ])
    }

    func client(_ program: String, _ arguments: [String]) async throws -> String {
        let environment = self.environment
        return try await offloaded {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
            process.environment = environment
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    func stop() {
        bus.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Sign-ins' secrets in the desktop keyring when there is one, in the 0600 file otherwise, moving between them
/// without losing the sign-in; `shelf doctor` says which.
@Suite(.serialized, .timeLimit(.minutes(5))) struct KeyringCLITests {
    /// The keyring's environment, with the keyring wanted (the test runner turns it off for every other test).
    static func with(_ keyring: PrivateKeyring) -> [String: String] {
        keyring.environment.merging(["SHELF_KEYRING": "on"]) { $1 }
    }

    static func file(_ fixture: CLIFixture) throws -> [String: Any] {
        let url = fixture.shelf.home.appendingPathComponent("credentials/demo.json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    }

    @Test(.enabled(if: PrivateKeyring.isAvailable, "needs dbus-daemon, gnome-keyring and secret-tool (Scripts/setup --test)"))
    func secretsGoToTheKeyringAndNothingSecretIsLeftInTheFile() async throws {
        let keyring = try await PrivateKeyring()
        defer { keyring.stop() }
        let fixture = try await CLIFixture()
        let environment = Self.with(keyring)
        _ = try await fixture.shelf.run(["sync", "--quiet"], environment: environment)
        let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], environment: environment, input: "1234\n")
        #expect(login.status == 0, "\(login.stderr)")
        // The file says where the secrets are and holds none of them.
        let file = try Self.file(fixture)
        #expect(file["secretsIn"] as? String == "keyring" && file["password"] as? String == "" && file["token"] == nil, "\(file)")
        let raw = try String(contentsOf: fixture.shelf.home.appendingPathComponent("credentials/demo.json"), encoding: .utf8)
        #expect(!raw.contains("1234"))
        let kept = try await keyring.lookup("demo")
        #expect(kept.contains(#""password":"1234""#) && kept.contains(#""token":"#), "\(kept)")
        // A signed-in sync reads them from there.
        let sync = try await fixture.shelf.run(["sync", "--no-download"], environment: environment)
        #expect(sync.status == 0 && sync.stdout.contains("2 loans"), "\(sync.stdout)\(sync.stderr)")
        let doctor = try await fixture.shelf.run(["doctor"], environment: environment)
        #expect(doctor.stdout.contains("secrets kept in the desktop keyring (Secret Service on the session bus)"), "\(doctor.stdout)")
        // Signing out takes them out of the keyring too.
        _ = try await fixture.shelf.run(["logout"], environment: environment)
        #expect(try await keyring.lookup("demo").isEmpty)
        await fixture.finish()
    }

    @Test(.enabled(if: PrivateKeyring.isAvailable, "needs dbus-daemon, gnome-keyring and secret-tool (Scripts/setup --test)"))
    func movingBetweenTheFileAndTheKeyringKeepsTheSignIn() async throws {
        let keyring = try await PrivateKeyring()
        defer { keyring.stop() }
        let fixture = try await CLIFixture()
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        // Signed in where there was no keyring: the file holds the PIN.
        _ = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        #expect(try Self.file(fixture)["password"] as? String == "1234")
        // A keyring appears: the next command moves the secrets into it.
        let moved = try await fixture.shelf.run(["sync", "--no-download"], environment: Self.with(keyring))
        #expect(moved.status == 0 && moved.stdout.contains("2 loans"), "\(moved.stderr)")
        #expect(try Self.file(fixture)["secretsIn"] as? String == "keyring")
        #expect(try await keyring.lookup("demo").contains(#""password":"1234""#))
        // Files chosen again: they come back to the file and leave the keyring.
        var off = keyring.environment
        off["SHELF_KEYRING"] = "off"
        let back = try await fixture.shelf.run(["sync", "--no-download"], environment: off)
        #expect(back.status == 0 && back.stdout.contains("2 loans"), "\(back.stderr)")
        #expect(try Self.file(fixture)["password"] as? String == "1234" && Self.file(fixture)["secretsIn"] == nil)
        #expect(try await keyring.lookup("demo").isEmpty)
        let doctor = try await fixture.shelf.run(["doctor"], environment: off)
        #expect(doctor.stdout.contains("secrets kept in files only you can read (SHELF_KEYRING=off)"), "\(doctor.stdout)")
        await fixture.finish()
    }

    @Test(.enabled(if: PrivateKeyring.isAvailable, "needs dbus-daemon, gnome-keyring and secret-tool (Scripts/setup --test)"))
    func aLockedOrAbsentKeyringIsOneLineAndTheAdviceWorks() async throws {
        let keyring = try await PrivateKeyring()
        defer { keyring.stop() }
        let fixture = try await CLIFixture()
        let environment = Self.with(keyring)
        _ = try await fixture.shelf.run(["sync", "--quiet"], environment: environment)
        _ = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], environment: environment, input: "1234\n")
        try await keyring.lock()
        let locked = try await fixture.shelf.run(["sync", "--no-download"], environment: environment)
        #expect(locked.status == ShelfExit.keyringUnavailable.rawValue)
        #expect(locked.stderr.contains("the sign-in for demo is kept in the desktop keyring, which cannot be read: the keyring is "
            + "locked"), "\(locked.stderr)")
        #expect(locked.stderr.contains("or `shelf login demo` to sign in anew"))
        // Following the advice: a new sign-in, kept in the file while the keyring is locked, says so once.
        let again = try await fixture.shelf.run(["login", "demo", "--username", "demo", "--password-stdin"], environment: environment, input: "1234\n")
        #expect(again.status == 0, "\(again.stderr)")
        let synced = try await fixture.shelf.run(["sync", "--no-download"], environment: environment)
        #expect(synced.status == 0 && synced.stdout.contains("2 loans"), "\(synced.stderr)")
        let doctor = try await fixture.shelf.run(["doctor"], environment: environment)
        #expect(doctor.stdout.contains("secrets kept in files only you can read (the keyring is locked"), "\(doctor.stdout)")
        // No session bus at all (a server, cron without one): files, said so.
        let none = try await fixture.shelf.run(
            ["doctor"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/shelf-test-bus", "SHELF_KEYRING": "on"])
        #expect(none.stdout.contains("secrets kept in files only you can read (no session bus"), "\(none.stdout)")
        await fixture.finish()
    }
}
