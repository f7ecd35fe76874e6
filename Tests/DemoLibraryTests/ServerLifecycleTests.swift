import DemoLibrary
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.timeLimit(.minutes(5))) struct ServerLifecycleTests {
    @Test func manyServersStartAndStop() async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await withServer { server, url in
                        #expect(url.host == "127.0.0.1")
                        #expect(server.baseURL == url)
                        return try await HTTPTestClient.get(url).status
                    }
                }
            }
            for try await status in group { #expect(status == 200) }
        }
    }

    /// Every one of Swift concurrency's shared threads blocked (as synchronous tests beside it may block them), and
    /// the demo library still answers: it serves on threads of its own. The test proves the pool was full while it
    /// asked, by a task started on the pool that had not run by the time the answer came.
    @Test func answersWhileEverySharedThreadIsBlocked() async throws {
        try await withServer { _, url in
            let width = ProcessInfo.processInfo.activeProcessorCount
            let pool = SharedPoolBlocker(width: width)
            let outcome = Mutex<(statuses: [Int], probeRanFirst: Bool)?>(nil)
            let probe = Flag()
            Thread.detachNewThread {
                pool.waitUntilFull()
                // Queued behind the blocked threads: it cannot run before they are let go.
                Task.detached { probe.set() }
                let statuses = [url, url.appendingPathComponent("crawlable"), url.appendingPathComponent("loans")]
                    .map { (try? HTTPTestClient.sendBlocking("GET", $0).status) ?? -1 }
                outcome.withLock { $0 = (statuses, probe.isSet) }
                pool.release()
            }
            await pool.block()
            let (statuses, probeRanFirst) = try #require(outcome.withLock { $0 })
            #expect(!probeRanFirst, "a task ran on the shared pool while it was meant to be full")
            #expect(statuses == [200, 200, 401])
        }
    }

    @Test func stoppedServerRefusesConnectionsAndCanRestart() async throws {
        let server = DemoLibraryServer()
        let url = try await server.start()
        await #expect(throws: DemoLibraryError.alreadyRunning) { try await server.start() }
        await server.stop()
        #expect(server.baseURL == nil)
        await #expect(throws: (any Error).self) { try await HTTPTestClient.get(url) }
        let again = try await server.start()
        #expect(try await HTTPTestClient.get(again).status == 200)
        await server.stop()
        await server.stop()
    }

    /// Stopping a server while clients keep connecting: the connections accepted but not yet served when it stops
    /// are served or closed. Cancelling the serving task then crashed the whole process in SwiftNIO ("Deinited
    /// NIOAsyncWriter without calling finish()"), once in a few runs of the suite. The stop begins only once a client
    /// has connected, and the clients go on connecting until it has ended, so every round stops under connections.
    @Test func stoppingWhileClientsConnectEndsCleanly() async throws {
        for _ in 0..<25 {
            let server = DemoLibraryServer()
            let url = try await server.start()
            let clients = RepeatedClients(port: UInt16(url.port ?? 0))
            await clients.firstConnection()
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...30)))
            await server.stop()
            let connected = clients.stop()
            #expect(connected > 0)
            #expect(server.baseURL == nil)
            #expect(!Loopback.isListening(url))
        }
    }

    @Test func busyPortIsReported() async throws {
        try await withServer { _, url in
            let clash = DemoLibraryServer(configuration: .init(port: url.port ?? 0))
            await #expect(throws: (any Error).self) { try await clash.start() }
            await clash.stop()
        }
    }
}

/// Holds `width` of the shared pool's threads blocked until `release()`.
private final class SharedPoolBlocker: Sendable {
    private let width: Int
    private let blocked = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    init(width: Int) { self.width = width }

    /// Blocks `width` threads of the pool, returning once they are let go.
    func block() async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<width { group.addTask { self.holdThread() } }
        }
    }

    /// Waits until every thread is blocked.
    func waitUntilFull() { for _ in 0..<width { blocked.wait() } }

    func release() { for _ in 0..<width { released.signal() } }

    private func holdThread() {
        blocked.signal()
        released.wait()
    }
}

/// A flag set once, read from any thread.
private final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

/// Clients on a thread of their own that open connections to 127.0.0.1:`port` one after another, each sending a
/// request and closed at once, until `stop()`.
private final class RepeatedClients: Sendable {
    private let state = Mutex((connected: 0, stopping: false))
    private let first = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init(port: UInt16) {
        Thread.detachNewThread { [self] in
            let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            while !state.withLock({ $0.stopping }) {
                guard let socket = try? HTTPTestClient.connectedSocket(port: port) else { continue }
                let count = state.withLock { state in
                    state.connected += 1
                    return state.connected
                }
                if count == 1 { first.signal() }
                _ = send(socket, request, request.count, Int32(MSG_NOSIGNAL))
                close(socket)
            }
            ended.signal()
        }
    }

    /// Returns once a client has connected.
    func firstConnection() async {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                first.wait()
                continuation.resume()
            }
        }
    }

    /// Stops the clients and returns how many connected.
    func stop() -> Int {
        state.withLock { $0.stopping = true }
        ended.wait()
        return state.withLock { $0.connected }
    }
}
