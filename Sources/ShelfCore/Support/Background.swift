import Foundation
import Synchronization

/// Work running on a thread of its own, whose result is taken with `wait`: the one way shelf runs blocking work
/// (a libcurl transfer, a long SQLite transaction, opening an audio device) off the thread that asked for it.
///
/// A thread of its own rather than a Swift concurrency task, so blocking C calls never hold one of the few
/// threads that Swift concurrency and an in-process server share.
public final class Background<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let group = DispatchGroup()

    /// Starts `body` at once on a new thread.
    public init(_ body: @escaping @Sendable () throws -> Value) {
        group.enter()
        startThread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            group.leave()
        }
    }

    /// Whether the work has ended (with a value or an error).
    public var isDone: Bool { outcome.withLock { $0 != nil } }

    /// The result once the work has ended, without waiting; nil while it runs.
    public var result: Result<Value, any Error>? { outcome.withLock { $0 } }

    /// Waits up to `timeout` seconds for the result; nil when the work is still running then.
    public func wait(timeout: Double) -> Result<Value, any Error>? {
        _ = group.wait(timeout: .now() + timeout)
        return result
    }

    /// Waits for the work to end and returns its value, or throws its error.
    public func value() throws -> Value {
        group.wait()
        return try result!.get()
    }
}

/// Runs blocking work on a thread of its own and awaits its result.
public func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        startThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Runs `body` on a new thread, prepared by `prepare` (which may refuse by throwing), while the caller waits.
///
/// For work that must not run on the caller's thread because it changes per-thread state (the working
/// directory, the umask).
public func onThreadOfItsOwn<T: Sendable>(
    prepare: @escaping @Sendable () throws -> Void, _ body: @escaping @Sendable () throws -> T
) throws -> T {
    try Background {
        try prepare()
        return try body()
    }.value()
}

/// Every background thread shelf starts: 8 MB of stack, as the parsers recurse through nested acquisitions.
private func startThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = 8 << 20
    thread.start()
}
