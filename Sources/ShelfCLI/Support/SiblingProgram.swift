import Foundation
import ShelfSpawn
import ShelfCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program installed beside `shelf` that a command hands over to: the player (`shelf-listen`) and the demo
/// library (`shelf-demo-library`). They are programs of their own so that only they link what they need (FFmpeg and
/// SDL, the HTTP server), and every other command starts without it.
struct SiblingProgram: Sendable {
    /// The program's file name.
    let name: String
    /// What it is, for messages ("the player").
    let role: String

    /// `shelf-listen`, behind `shelf listen`.
    static let player = SiblingProgram(name: "shelf-listen", role: "the player")
    /// `shelf-demo-library`, behind `shelf demo`.
    static let demoLibrary = SiblingProgram(name: "shelf-demo-library", role: "the demo library")

    /// The program is not where shelf looks for it, or could not be started.
    struct Missing: ShelfFailure {
        let program: SiblingProgram
        let looked: [String]
        var exitCode: ShelfExit { .internalError }
        var description: String {
            "\(program.role), \(program.name), is missing or cannot be started beside shelf (looked in "
                + "\(looked.joined(separator: ", "))); install it with shelf (Scripts/install)"
        }
    }

    /// The program's path: in the directory of the running executable first, then on `PATH`.
    func locate() throws -> String {
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        var places = [own.path]
        places += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard let program = places.lazy.map({ URL(fileURLWithPath: $0).appendingPathComponent(name).path })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw Missing(program: self, looked: Array(places.prefix(3))) }
        return program
    }

    /// Replaces this process with the program, so signals and the terminal go straight to it; returns only by
    /// throwing. The corresponding C function is `execv`.
    func exec(arguments: [String]) throws {
        let program = try locate()
        var argv = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, &argv)
        let reason = String(cString: strerror(errno))
        for pointer in argv { free(pointer) }
        throw Missing(program: self, looked: [program + " (\(reason))"])
    }

    /// Starts the program as a child of this process, its standard input and output pipes to this one (standard
    /// error is shared, so its own messages reach the patron). The corresponding C function is `posix_spawn`.
    func start(arguments: [String]) throws -> ChildProgram {
        let program = try locate()
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard pipe(&input) == 0 else { throw Missing(program: self, looked: [program + " (\(Self.lastError()))"]) }
        guard pipe(&output) == 0 else {
            let reason = Self.lastError()
            input.forEach { close($0) }
            throw Missing(program: self, looked: [program + " (\(reason))"])
        }
        // Close-on-exec, so the child holds only the ends it is given as 0 and 1: were it to hold the write end of
        // its own input, it would never read that input's end.
        for descriptor in input + output { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO)
        // The child starts with no signal blocked or ignored, whatever this process inherited or set.
        var attributes = posix_spawnattr_t()
        ChildProcess.prepare(&attributes, newGroup: false)
        defer { posix_spawnattr_destroy(&attributes) }
        var argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, program, &actions, &attributes, &argv, environ)
        close(input[0])
        close(output[1])
        guard spawned == 0 else {
            close(input[1])
            close(output[0])
            throw Missing(program: self, looked: [program + " (\(String(cString: strerror(spawned))))"])
        }
        return ChildProgram(pid: pid, input: input[1], output: output[0])
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// A program shelf started and owns: closing its standard input is how shelf asks it to stop.
final class ChildProgram: Sendable {
    /// The child's process id.
    let pid: pid_t
    /// The write end of the child's standard input; nil once closed.
    private let input: Mutex<Int32?>
    /// The read end of the child's standard output.
    private let output: Int32
    /// The child's exit status once it has been waited for.
    private let status = Mutex<Int32?>(nil)

    fileprivate init(pid: pid_t, input: Int32, output: Int32) {
        self.pid = pid
        self.input = Mutex(input)
        self.output = output
    }

    deinit {
        closeInput()
        close(output)
    }

    /// Reads one line the child printed, without its newline; nil at the end of its output. Blocks until then.
    /// The corresponding C function is `read`.
    func readLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(output, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// Closes the child's standard input, so it reads its end; safe to call more than once.
    func closeInput() {
        if let descriptor = input.withLock({ value in defer { value = nil }; return value }) { close(descriptor) }
    }

    /// Waits for the child to end; its exit status, or 128 + the signal that ended it. Blocks until then.
    /// The corresponding C function is `waitpid`.
    func waitForExit() -> Int32 {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &raw, 0) } while result < 0 && errno == EINTR
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = raw & 0x7f
        let code = result < 0 ? 1 : signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        status.withLock { $0 = code }
        return code
    }
}
