import CSpawn
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, in the shape of Foundation's `Process` (the properties are set, then
/// `run()`), for a process that holds many descriptors.
///
/// Foundation's `Process.run()` on Linux counts the open descriptors by reading `/proc/self/fd`, and in Swift 6.3.1
/// that count reads past its buffer once the process holds some thousand descriptors (swift-corelibs-foundation
/// #5472): the test process, with its hundreds of loopback servers, crashed there. Here the child closes everything
/// above standard error itself (`posix_spawn_file_actions_addclosefrom_np`), and nothing is counted.
///
/// Like `Process` on Linux, the child leads a process group of its own, starts with no signal blocked and every
/// signal's default action, and inherits this process's environment unless `environment` is set. Standard streams
/// are a `FileHandle` (`FileHandle.nullDevice` is /dev/null), a `Pipe` (this process keeps the other end), or nil for this process's own.
public final class ChildProcess: @unchecked Sendable {
    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    public var executableURL: URL?
    public var arguments: [String]?
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    /// Called once, on a thread of its own, when the child has ended.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)?

    public private(set) var processIdentifier: Int32 = 0

    /// The wait status once ended; guarded by `ended`.
    private var status: Int32?
    private let ended = NSCondition()

    public init() {}

    /// Starts the child; throws when it cannot be started (no such program, not executable).
    public func run() throws {
        guard let executable = executableURL?.path else {
            throw ChildProcessError(description: "no program to run")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let streams: [(Any?, Int32, Bool)] = [
            (standardInput, STDIN_FILENO, true), (standardOutput, STDOUT_FILENO, false),
            (standardError, STDERR_FILENO, false),
        ]
        // The ends the child is given, which this process closes once the child has them.
        var given: [FileHandle] = []
        for (stream, target, reads) in streams {
            let handle: FileHandle?
            switch stream {
            case let pipe as Pipe:
                handle = reads ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                given.append(handle!)
            case let file as FileHandle: handle = file
            default: handle = nil
            }
            guard let handle else { continue }
            if handle === FileHandle.nullDevice || handle.fileDescriptor < 0 {
                // Foundation's null device has no descriptor of its own.
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", reads ? O_RDONLY : O_WRONLY, 0)
            } else {
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            }
        }
        cspawn_addclosefrom(&actions, 3)
        if let directory = currentDirectoryURL?.path {
            cspawn_addchdir(&actions, directory)
        }
        var attributes = posix_spawnattr_t()
        Self.prepare(&attributes, newGroup: true)
        defer { posix_spawnattr_destroy(&attributes) }
        let argv = ([executable] + (arguments ?? [])).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid = pid_t()
        let spawned = argv.withUnsafeBufferPointer { arguments in
            if let envp {
                return envp.withUnsafeBufferPointer { environment in
                    posix_spawn(&pid, executable, &actions, &attributes, arguments.baseAddress!, environment.baseAddress!)
                }
            }
            return posix_spawn(&pid, executable, &actions, &attributes, arguments.baseAddress!, environ)
        }
        guard spawned == 0 else {
            throw ChildProcessError(description: "cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        for handle in given { try? handle.close() }
        let child = pid
        processIdentifier = child
        let reaper = Thread { [self] in reap(child) }
        reaper.name = "child-\(child)"
        reaper.stackSize = 256 << 10
        reaper.start()
    }

    /// Starts the child with its standard output in a pipe, reads that to its end, and waits for the child to end:
    /// what it wrote there (its status is `terminationStatus`). For a child that writes little or nothing to
    /// standard error, or whose standard error goes elsewhere.
    public func runReadingOutput() throws -> Data {
        let out = Pipe()
        standardOutput = out
        try run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        waitUntilExit()
        return data
    }

    /// Initialises `attributes` so that the child starts with no signal blocked and every signal's default action,
    /// whatever this process blocked or ignored (the test runner's threads block signals; a player ignores SIGPIPE),
    /// and, with `newGroup`, leads a process group of its own. The caller destroys them.
    public static func prepare(_ attributes: inout posix_spawnattr_t, newGroup: Bool) {
        posix_spawnattr_init(&attributes)
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
    }

    private func reap(_ pid: pid_t) {
        var wait: Int32 = 0
        while waitpid(pid, &wait, 0) < 0 && errno == EINTR {}
        ended.lock()
        status = wait
        ended.broadcast()
        ended.unlock()
        terminationHandler?(self)
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() {
        ended.lock()
        while status == nil { ended.wait() }
        ended.unlock()
    }

    public var isRunning: Bool {
        ended.lock()
        defer { ended.unlock() }
        return processIdentifier != 0 && status == nil
    }

    /// The exit status, or the signal that ended the child (as Foundation reports it); waits for the end.
    public var terminationStatus: Int32 {
        let wait = endedStatus
        return wait & 0x7f == 0 ? (wait >> 8) & 0xff : wait & 0x7f
    }

    public var terminationReason: TerminationReason {
        endedStatus & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    private var endedStatus: Int32 {
        waitUntilExit()
        ended.lock()
        defer { ended.unlock() }
        return status ?? 0
    }

    /// Sends SIGTERM while the child runs.
    public func terminate() { send(SIGTERM) }

    /// Sends SIGINT while the child runs.
    public func interrupt() { send(SIGINT) }

    private func send(_ signal: Int32) {
        ended.lock()
        defer { ended.unlock() }
        if processIdentifier != 0 && status == nil { kill(processIdentifier, signal) }
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String
}
