import Foundation
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
