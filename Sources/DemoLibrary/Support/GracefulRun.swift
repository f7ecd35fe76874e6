import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A Hummingbird application served in a service group of its own, on threads of its own, which `stop()` shuts
/// down gracefully.
///
/// The application's tasks prefer `threads`' executor and its sockets are on `threads`' event loop (the application
/// must be made with `.shared(threads.eventLoopGroup)`), so nothing else in the process can starve it; the threads
/// end when serving does.
///
/// Cancelling the task that serves an application while a connection has been accepted but not yet handed to its
/// handler crashes the whole process in SwiftNIO ("Deinited NIOAsyncWriter without calling finish()",
/// apple/swift-nio#3481); a test suite that starts and stops hundreds of servers met it now and then. A graceful
/// shutdown closes the listening socket first and serves every connection already accepted.
public final class GracefulRun: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let ended: Flag
    /// Set before the serving task is cancelled (`stop`, past its patience).
    private let cancelled: Flag

    /// Starts serving `application` at once on `threads`; `whenEnded` runs when serving ends, however it ends.
    public init(
        _ application: some ApplicationProtocol, threads: ServerThreads, logger: Logger,
        whenEnded: @escaping @Sendable () -> Void = {}
    ) {
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let ended = Flag()
        let cancelled = Flag()
        self.group = group
        self.ended = ended
        self.cancelled = cancelled
        task = threads.task {
            let result: Result<Void, any Error>
            do {
                try await group.run()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            if cancelled.isSet {
                // Hummingbird shuts its server down from a task of its own, started by the graceful shutdown; when
                // serving was cancelled, that task may not have run yet, and it makes a promise on the server's event
                // loop. On a loop already shut down the promise is never kept, which a debug build of SwiftNIO
                // traps on ("leaking promise"), ending the whole process. The loop is left running (one thread) for
                // it; only the handlers' threads end.
                threads.executor.shutdown()
            } else {
                await threads.shutdown()
            }
            whenEnded()
            ended.set()
            try result.get()
        }
    }

    /// How serving ended, once it has.
    public var result: Result<Void, any Error> {
        get async { await task.result }
    }

    /// Stops serving gracefully and returns once it has ended and nothing answers at `url` any more.
    ///
    /// A response still being sent to a client that keeps reading (a slow drip) is given `patience`; then the
    /// serving task is cancelled, but only once nothing listens at `url` any more and a moment has passed for the
    /// connections accepted before that to be handed over: cancelling earlier is what crashed.
    public func stop(url: URL, patience: Duration = .seconds(10)) async {
        await group.triggerGracefulShutdown()
        if !(await ended(within: patience)) {
            await untilNothingListens(at: url)
            if !(await ended(within: .seconds(1))) {
                cancelled.set()
                task.cancel()
                _ = await task.result
            }
        }
        // Serving returns before its listening socket is closed: until it is, a client that connects is accepted and
        // then reset instead of refused. Stopped means nothing answers any more (on two loaded cores that has taken
        // more than 2 s).
        await untilNothingListens(at: url)
    }

    /// Waits, up to 10 s, until nothing listens at `url`.
    private func untilNothingListens(at url: URL) async {
        let deadline = ContinuousClock.now + .seconds(10)
        while Loopback.isListening(url), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// Whether serving ends within `duration`.
    private func ended(within duration: Duration) async -> Bool {
        let deadline = ContinuousClock.now + duration
        while !ended.isSet, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return ended.isSet
    }
}

/// A flag that is set once and read from any thread.
final class Flag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
