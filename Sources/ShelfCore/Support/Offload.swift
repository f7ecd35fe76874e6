import Foundation

/// Runs blocking work (a libcurl transfer, a long SQLite transaction) on a thread of its own, so it never
/// holds one of the few threads Swift concurrency and an in-process server share.
public func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
