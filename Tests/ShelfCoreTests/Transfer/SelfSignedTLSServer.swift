import Foundation
import ShelfSpawn
import Glibc
import Testing

/// `openssl s_server` on loopback with a certificate made for the test and trusted by no one: a real TLS
/// handshake that must fail verification.
final class SelfSignedTLSServer {
    let port: Int
    private let process: ChildProcess
    private let directory: URL

    private init(port: Int, process: ChildProcess, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    static func start() async throws -> SelfSignedTLSServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-tls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let make = ChildProcess()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        make.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                          "-subj", "/CN=127.0.0.1", "-days", "1"]
        make.standardError = FileHandle.nullDevice
        make.standardOutput = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0)

        for candidate in (0..<20).map({ _ in Int.random(in: 20_000...60_000) }) {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["s_server", "-accept", "127.0.0.1:\(candidate)", "-cert", certificate, "-key", key,
                                 "-www", "-quiet"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Listening once a connection is accepted (a loaded machine can take seconds); a port taken ends it.
            for _ in 0..<200 where process.isRunning {
                if Self.accepts(port: candidate) {
                    return SelfSignedTLSServer(port: candidate, process: process, directory: directory)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
        throw NoFreePort()
    }

    struct NoFreePort: Error {}

    /// Whether a TCP connection to the port on loopback is accepted.
    private static func accepts(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Stops the server with SIGKILL (a test child may have SIGTERM blocked) and waits for it.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
