import Foundation
import ShelfSpawn
import Testing

/// The child process every test helper and shelf's own programs start: Foundation's `Process` in its shape.
@Suite struct ChildProcessTests {
    private func shell(_ script: String, stdin: Any? = nil) throws -> (ChildProcess, Pipe) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        return (process, out)
    }

    @Test func theChildHoldsNoneOfThisProcesssDescriptors() throws {
        // Descriptors this process opens without close-on-exec, as Foundation's pipes are.
        var held: [Int32] = []
        for _ in 0..<50 { held.append(open("/dev/null", O_RDONLY)) }
        defer { held.forEach { close($0) } }
        #expect(held.allSatisfy { $0 > 2 })
        // A shell builtin looks, so the check itself opens nothing.
        let numbers = held.map(String.init).joined(separator: " ")
        let (process, out) = try shell("for n in 2 \(numbers); do [ -e /proc/$$/fd/$n ] && echo $n; done; echo end")
        let listed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(listed == "2\nend\n", "the child held \(listed)")
    }

    @Test func statusSignalAndTheNullDevice() throws {
        let (exited, out) = try shell("read line; echo \"[$line]\"; exit 7")
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == "[]\n", "standard input is /dev/null: \(printed)")
        #expect(exited.terminationStatus == 7 && exited.terminationReason == .exit)
        #expect(!exited.isRunning)

        let (sleeper, _) = try shell("exec sleep 30")
        #expect(sleeper.isRunning)
        sleeper.terminate()
        #expect(sleeper.terminationStatus == SIGTERM && sleeper.terminationReason == .uncaughtSignal)
    }

    @Test func itLeadsAProcessGroupAndTheHandlerIsCalledOnce() async throws {
        let (process, out) = try shell("ps -o pgid= -p $$")
        let group = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(pid_t(group.trimmingCharacters(in: .whitespacesAndNewlines)) == process.processIdentifier)

        let input = Pipe()
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/cat")
        child.standardInput = input
        child.standardOutput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            child.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try child.run() } catch { continuation.resume(throwing: error) }
            // cat ends when its input does: this process keeps only the write end.
            try? input.fileHandleForWriting.close()
        }
        #expect(status == 0)
    }

    @Test func aMissingProgramIsAnErrorNotAChild() {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/program")
        #expect(throws: ChildProcessError.self) { try process.run() }
        #expect(!process.isRunning)
    }
}
