import Foundation
import ShelfSpawn
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program of the system (`systemctl`, `crontab`, `dpkg-query`) and collects what it printed.
public enum ExternalProgram {
    /// What a finished program printed, and its exit status (127 when it could not be started).
    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// Whether it exited 0.
        public var succeeded: Bool { status == 0 }
        /// Its first line of complaint, for a message.
        public var firstLine: String {
            (stderr + "\n" + stdout).split(separator: "\n").first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? "exit status \(status)"
        }
    }

    /// Runs `name` (looked up on PATH) with `arguments`, feeding `input` on standard input; stops it (SIGKILL)
    /// after `timeout` seconds, so a program waiting on a bus that never answers cannot hang shelf.
    public static func run(
        _ name: String, _ arguments: [String], input: String? = nil, timeout: TimeInterval = 20,
        environment: [String: String]? = nil
    ) -> Outcome {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        let stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        do {
            try process.run()
        } catch {
            return Outcome(status: 127, stdout: "", stderr: "\(name): \(error.localizedDescription)")
        }
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        // Read both pipes to their ends before waiting, so a chatty program never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        DispatchQueue.global().async(group: group) { errorData = err.fileHandleForReading.readDataToEndOfFile() }
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        watchdog.cancel()
        // env answers 127 when the program is not on PATH.
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self))
    }

    /// Whether `name` is an executable on PATH.
    public static func isInstalled(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }
}
