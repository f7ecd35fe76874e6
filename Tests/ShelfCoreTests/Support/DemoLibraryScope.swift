import DemoLibrary
import Foundation

/// Starts a demo library on loopback, runs `body` with it and its root URL, and stops it once `body` has ended,
/// however it ended: a test's server stop is always awaited, never left to a task of its own.
func withDemoLibrary<T>(
    _ configuration: DemoConfiguration = DemoConfiguration(), _ body: (DemoLibraryServer, URL) async throws -> T
) async throws -> T {
    let server = DemoLibraryServer(configuration: configuration)
    let url = try await server.start()
    do {
        let value = try await body(server, url)
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}
