import Foundation
import Testing

/// `openssl s_server` on loopback with a certificate made for the test and trusted by no one: a real TLS
/// handshake that must fail verification.
final class SelfSignedTLSServer {
    let port: Int
    private let process: Process
    private let directory: URL

    private init(port: Int, process: Process, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    static func start() async throws -> SelfSignedTLSServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-tls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        make.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                          "-subj", "/CN=127.0.0.1", "-days", "1"]
        make.standardError = FileHandle.nullDevice
        make.standardOutput = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0)

        for candidate in (0..<20).map({ _ in Int.random(in: 20_000...60_000) }) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["s_server", "-accept", "127.0.0.1:\(candidate)", "-cert", certificate, "-key", key,
                                 "-www", "-quiet"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(300))
            if process.isRunning {
                return SelfSignedTLSServer(port: candidate, process: process, directory: directory)
            }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
        throw NoFreePort()
    }

    struct NoFreePort: Error {}

    /// Stops the server with SIGKILL (a test child may have SIGTERM blocked) and waits for it.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
