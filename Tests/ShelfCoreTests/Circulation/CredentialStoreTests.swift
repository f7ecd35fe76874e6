import Foundation
import ShelfSpawn
import Testing
@testable import ShelfCore

@Suite(.timeLimit(.minutes(5))) struct CredentialStoreTests {
    @Test func savedPrivatelyAndReadBack() throws {
        let test = TestHome()
        let store = CredentialStore(home: test.home)
        let credentials = Credentials(
            authType: AuthenticationDocument.basicTokenType, username: "23333012345678", password: "9731",
            authenticateURL: "http://127.0.0.1:1/token", token: "tok", tokenExpiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        try store.save(credentials, for: "demo")
        let file = store.file(for: "demo").path
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue == 0o600)
        let directory = try #require(try FileManager.default.attributesOfItem(atPath: store.directory.path)[.posixPermissions] as? NSNumber)
        #expect(directory.intValue == 0o700)
        #expect(try store.load("demo") == credentials)
        // Nothing but the file itself holds the secret; no temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == ["demo.json"])
        #expect(!"\(credentials)".contains("9731") && !"\(credentials)".contains("2333301"))
        #expect(credentials.maskedUsername == "••••••••78")
        #expect(store.erase("demo"))
        #expect(try store.load("demo") == nil)
        #expect(!store.erase("demo"))
    }

    @Test func aFileReadableByOthersIsFixedWithAWarning() throws {
        let test = TestHome()
        let warnings = WarningLog()
        let store = CredentialStore(home: test.home, warn: { warnings.append($0) })
        try store.save(Credentials(authType: AuthenticationDocument.basicType, username: "u", password: "p"), for: "demo")
        #expect(chmod(store.file(for: "demo").path, 0o644) == 0)
        #expect(try store.load("demo")?.username == "u")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: store.file(for: "demo").path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue == 0o600)
        #expect(warnings.lines.count == 1)
        #expect(warnings.lines.first?.contains("was readable by others (mode 644); fixed to 600") == true)
    }

    @Test func aDamagedFileIsReportedNotUsed() throws {
        let test = TestHome()
        let store = CredentialStore(home: test.home)
        try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: store.file(for: "demo").path, contents: Data("{oops".utf8),
                                               attributes: [.posixPermissions: 0o600]))
        #expect {
            _ = try store.load("demo")
        } throws: { error in
            (error as? CirculationError)?.description.contains("unreadable; remove it and run `shelf login` again") == true
        }
    }

    private static let secret = Credentials(
        authType: AuthenticationDocument.basicTokenType, username: "23333012345678", password: "9731",
        authenticateURL: "http://127.0.0.1:1/token", token: "tok")

    /// A file outside the home, where a planted link would send the secret.
    private static func victim(_ test: TestHome) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-victim-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data(), attributes: [.posixPermissions: 0o644]))
        return file
    }

    @Test func aLinkPlantedWhereTheSecretIsWrittenReceivesNothing() throws {
        let test = TestHome()
        let store = CredentialStore(home: test.home)
        let victim = try Self.victim(test)
        defer { try? FileManager.default.removeItem(at: victim) }
        try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        // At the temporary name shelf used to write through, and at the file itself.
        try FileManager.default.createSymbolicLink(
            at: store.directory.appendingPathComponent(".demo.\(getpid()).tmp"), withDestinationURL: victim)
        try FileManager.default.createSymbolicLink(at: store.file(for: "demo"), withDestinationURL: victim)
        try store.save(Self.secret, for: "demo")
        #expect(try Data(contentsOf: victim).isEmpty)
        #expect(try store.load("demo") == Self.secret)
        // A link put in its place later is refused, not followed.
        try FileManager.default.removeItem(at: store.file(for: "demo"))
        try FileManager.default.createSymbolicLink(at: store.file(for: "demo"), withDestinationURL: victim)
        #expect {
            _ = try store.load("demo")
        } throws: { error in
            (error as? CirculationError)?.description.contains("is not a plain file (a link?); refusing to use it") == true
        }
    }

    @Test func aCredentialsFolderThatIsALinkIsRefusedAndItsTargetLeftAlone() throws {
        let test = TestHome()
        let store = CredentialStore(home: test.home)
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-elsewhere-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        try FileManager.default.createDirectory(at: test.directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: store.directory, withDestinationURL: elsewhere)
        #expect {
            try store.save(Self.secret, for: "demo")
        } throws: { error in
            (error as? CirculationError)?.description.contains("is a link or not a folder; refusing to write sign-ins there") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: elsewhere.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o755)
    }

    /// Two real users: another user who can write to the home makes the credentials folder and plants a link in it.
    @Test(.enabled(if: getuid() == 0, "acting as a second user (runuser -u nobody) needs root"))
    func anotherUsersCredentialsFolderIsRefused() throws {
        let test = TestHome()
        let store = CredentialStore(home: test.home)
        let victim = try Self.victim(test)
        defer { try? FileManager.default.removeItem(at: victim) }
        try FileManager.default.createDirectory(at: test.directory, withIntermediateDirectories: true)
        #expect(chmod(test.directory.path, 0o777) == 0)
        let planter = ChildProcess()
        planter.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        planter.arguments = ["-u", "nobody", "--", "sh", "-c",
                             "mkdir -m 777 \"$1\" && ln -s \"$2\" \"$1/demo.json\"", "sh", store.directory.path, victim.path]
        try planter.run()
        planter.waitUntilExit()
        #expect(planter.terminationStatus == 0)
        #expect {
            try store.save(Self.secret, for: "demo")
        } throws: { error in
            (error as? CirculationError)?.description.contains("belongs to another user; refusing to write sign-ins there") == true
        }
        #expect(try Data(contentsOf: victim).isEmpty)
    }

    @Test func credentialsLiveInTheStateDirectoryUnlessAHomeIsGiven() {
        let xdg = Home.resolve(explicit: nil, environment: ["HOME": "/h", "XDG_STATE_HOME": "/state"])
        #expect(xdg.credentials.path == "/state/shelf/credentials")
        #expect(xdg.directory.path == "/h/.local/share/shelf")
        #expect(Home.resolve(explicit: nil, environment: ["HOME": "/h"]).credentials.path == "/h/.local/state/shelf/credentials")
        #expect(Home.resolve(explicit: "/x", environment: ["XDG_STATE_HOME": "/state"]).credentials.path == "/x/credentials")
    }
}

/// Collects warnings from a `@Sendable` callback.
final class WarningLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}
