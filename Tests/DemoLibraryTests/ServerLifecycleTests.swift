import DemoLibrary
import Foundation
import Testing

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

    @Test func busyPortIsReported() async throws {
        try await withServer { _, url in
            let clash = DemoLibraryServer(configuration: .init(port: url.port ?? 0))
            await #expect(throws: (any Error).self) { try await clash.start() }
            await clash.stop()
        }
    }
}
