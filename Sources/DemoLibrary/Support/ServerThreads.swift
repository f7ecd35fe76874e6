import Foundation
import NIOCore
import NIOPosix

/// The threads one in-process server answers on: an event loop of its own for its sockets, and a task executor of
/// its own for its request handlers and its state's actor.
///
/// Swift concurrency's shared pool has one thread a core. A test (or any caller) that blocks one of those threads
/// while it waits for this server (a synchronous sync, a `Process` waited on) would otherwise leave the server
/// nothing to answer with: on two loaded cores the demo library did not answer within a sync's retries. A server
/// that runs on threads it owns answers whatever the rest of the process is doing.
public final class ServerThreads: Sendable {
    /// The event loop the server's sockets are served on.
    public let eventLoopGroup: MultiThreadedEventLoopGroup
    /// The executor the server's tasks prefer: its handlers, and every actor they call that has no executor of its
    /// own.
    public let executor: ThreadPoolTaskExecutor

    /// Starts one event loop thread and `handlers` threads for the server's tasks.
    public init(name: String, handlers: Int = 2) {
        eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        executor = ThreadPoolTaskExecutor(name: name, threads: handlers)
    }

    /// Starts `body` as a task on these threads, with `ThreadPoolTaskExecutor.current` bound for the unstructured tasks
    /// it starts in turn (which do not inherit an executor preference).
    @discardableResult
    public func task<T: Sendable>(_ body: sending @escaping () async throws -> T) -> Task<T, any Error> {
        Task(executorPreference: executor) { [executor] in
            try await ThreadPoolTaskExecutor.$current.withValue(executor) { try await body() }
        }
    }

    /// Ends the threads once the server has stopped: the event loop closes what is still open, and the executor
    /// hands any later work (a task that outlived the server) to the shared pool.
    public func shutdown() async {
        try? await eventLoopGroup.shutdownGracefully()
        executor.shutdown()
    }
}

/// A task executor with threads of its own, which run the jobs enqueued on it in order of arrival.
///
/// After `shutdown()` its threads end once the jobs already queued have run, and a job enqueued later runs on the
/// shared pool instead: a task may outlive the server that started it, and it must still be able to finish.
public final class ThreadPoolTaskExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor of the server whose work this is: bound while a server serves, and copied into every task that
    /// work starts, so that an unstructured task (which does not inherit an executor preference) can ask for it:
    /// `Task(executorPreference: ThreadPoolTaskExecutor.current) { … }`.
    @TaskLocal public static var current: ThreadPoolTaskExecutor?

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var queue: [UnownedJob] = []
    /// Guarded by `condition`: the index of the next job to run in `queue`.
    private var head = 0
    /// Guarded by `condition`.
    private var stopping = false

    /// Starts `threads` threads named `name`.
    public init(name: String, threads: Int) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(index)"
            // As deep as shelf's own background threads: a handler may render a large catalog page.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if stopping {
            condition.unlock()
            globalConcurrentExecutor.enqueue(job)
            return
        }
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads end once the queue is empty; later jobs go to the shared pool.
    public func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// One thread's loop: run the next job, or wait for one, until shut down with nothing left to run.
    private func work() {
        while let job = next() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private func next() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while head == queue.count {
            if stopping { return nil }
            condition.wait()
        }
        let job = queue[head]
        head += 1
        // Compact now and then rather than shifting the array for every job.
        if head > 256, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return job
    }
}
