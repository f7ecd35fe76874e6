import DemoLibrary
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ServerLifecycleTests {
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
    /// NIOAsyncWriter without calling finish()"), once in a few runs of the suite.
    @Test func stoppingWhileClientsConnectEndsCleanly() async throws {
        for _ in 0..<25 {
            let server = DemoLibraryServer()
            let url = try await server.start()
            let port = UInt16(url.port ?? 0)
            // On a thread of its own: the connecting blocks.
            async let connected = withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: Self.connectRepeatedly(port: port, for: 0.3)) }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...60)))
            await server.stop()
            #expect(await connected > 0)
            #expect(server.baseURL == nil)
        }
    }

    /// Opens connections to 127.0.0.1:`port` one after another for `seconds`, each sending a request and closed
    /// at once; how many connected.
    private static func connectRepeatedly(port: UInt16, for seconds: Double) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var connected = 0
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        while Date() < deadline {
            guard let socket = try? HTTPTestClient.connectedSocket(port: port) else { continue }
            connected += 1
            _ = send(socket, request, request.count, Int32(MSG_NOSIGNAL))
            close(socket)
        }
        return connected
    }

    @Test func busyPortIsReported() async throws {
        try await withServer { _, url in
            let clash = DemoLibraryServer(configuration: .init(port: url.port ?? 0))
            await #expect(throws: (any Error).self) { try await clash.start() }
            await clash.stop()
        }
    }
}
