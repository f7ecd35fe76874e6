import DemoLibrary
import Foundation

/// Starts a demo library on loopback, runs `body` with it and its root URL, and stops it once `body` has ended.
func withDemoLibrary<T>(
    _ configuration: DemoConfiguration = DemoConfiguration(), _ body: (DemoLibraryServer, URL) async throws -> T
) async throws -> T {
    try await DemoLibraryServer.serving(configuration, body)
}
