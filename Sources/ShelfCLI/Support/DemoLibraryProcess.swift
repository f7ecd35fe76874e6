import Dispatch
import Foundation
import ShelfCore

/// The demo library, `shelf-demo-library`, as a child of `shelf demo`: started on a port, asked where it listens,
/// and stopped when shelf is done with it. It stops when its standard input closes, so it also stops when shelf
/// dies without a word.
struct DemoLibraryProcess {
    /// The library's root URL, e.g. `http://127.0.0.1:8469/`.
    let url: URL
    private let child: ChildProgram

    /// The demo library ended before it said where it listens (it printed why on standard error).
    struct DidNotStart: ShelfFailure {
        let status: Int32
        var exitCode: ShelfExit { .failure }
        var description: String { "the demo library stopped before it was listening (exit status \(status))" }
    }

    /// The demo library ended on its own while serving.
    struct Stopped: ShelfFailure {
        let status: Int32
        var exitCode: ShelfExit { .failure }
        var description: String { "the demo library stopped (exit status \(status))" }
    }

    /// Starts the library on 127.0.0.1:`port` (on a free port instead when that one is taken and `orFreePort`);
    /// returns once it accepts connections.
    static func start(port: Int, orFreePort: Bool, partSeconds: Int? = nil) throws -> DemoLibraryProcess {
        var arguments = ["--port", String(port), "--stop-when-input-closes"]
        if let partSeconds { arguments += ["--part-seconds", String(partSeconds)] }
        if orFreePort { arguments.append("--or-free-port") }
        let child = try SiblingProgram.demoLibrary.start(arguments: arguments)
        // Its first line says where it listens, once the socket is listening.
        let prefix = "listening on "
        guard let line = child.readLine(), line.hasPrefix(prefix), let url = URL(string: String(line.dropFirst(prefix.count)))
        else {
            child.closeInput()
            throw DidNotStart(status: child.waitForExit())
        }
        return DemoLibraryProcess(url: url, child: child)
    }

    /// Stops the library and waits for it to end.
    func stop() {
        child.closeInput()
        _ = child.waitForExit()
    }

    /// Catches an interrupt (Ctrl-C), terminate or hang-up from now on, each stopping the library. Call it before
    /// saying that Ctrl-C stops the library, so a signal sent on reading that is never the default (death).
    func catchStopSignals() -> StopSignals {
        // Caught as events rather than by a handler, and caught even when a parent started shelf with them blocked.
        StopSignals(sources: [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [child] in child.closeInput() }
            source.resume()
            return source
        })
    }

    /// The signals that stop the library, caught until `serveUntilInterrupted` returns.
    struct StopSignals {
        fileprivate let sources: [any DispatchSourceSignal]
    }

    /// Waits while the library serves; the signals caught by `catchStopSignals` stop it. Throws when it ended on
    /// its own with a failure.
    func serveUntilInterrupted(_ signals: StopSignals) throws {
        defer { signals.sources.forEach { $0.cancel() } }
        let status = child.waitForExit()
        // Ctrl-C reaches the library too (one process group), which then stops by itself with status 0.
        guard status == 0 else { throw Stopped(status: status) }
    }
}
