import Foundation
import ShelfCore

/// How long a test waits for something it expects before it calls it missing.
///
/// A guard against a hang, not a measure of speed: on two loaded cores a step that takes 50 ms on an idle machine has
/// taken over 10 s (a `shelf` process starting, a download's first bytes). A test that passes waits no longer for it.
let patience: Duration = .seconds(120)

/// Asks `value` every `interval` until it gives something, or `patience` has passed (then nil).
func eventually<T>(every interval: Duration = .milliseconds(50), _ value: () async throws -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + patience
    while true {
        if let found = try await value() { return found }
        if ContinuousClock.now >= deadline { return nil }
        try await Task.sleep(for: interval)
    }
}

/// Asks `condition` every `interval` until it holds, or `patience` has passed; whether it held.
func eventually(every interval: Duration = .milliseconds(50), _ condition: () async throws -> Bool) async throws -> Bool {
    try await eventually(every: interval) { try await condition() ? true : nil } ?? false
}

/// Runs `body` with `fixture`, then `finish`es it, however `body` ended (a fixture's `with`).
func finishing<Fixture>(
    _ fixture: Fixture, _ finish: (Fixture) async -> Void, _ body: (Fixture) async throws -> Void
) async throws {
    do {
        try await body(fixture)
    } catch {
        await finish(fixture)
        throw error
    }
    await finish(fixture)
}

extension Pipe {
    /// Reads on a thread of its own until what came holds `done` (or the writer closed it); what came.
    func read(until done: @escaping @Sendable (String) -> Bool) async throws -> Data {
        let handle = fileHandleForReading
        return try await offloaded {
            var bytes = Data()
            while !done(String(decoding: bytes, as: UTF8.self)) {
                let data = handle.availableData
                if data.isEmpty { break }
                bytes += data
            }
            return bytes
        }
    }
}

/// The sign-in page's address `shelf login --no-browser` printed (its indented line), once printed whole.
func printedAddress(_ output: Data) -> URL? {
    String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        .first { $0.hasPrefix("  http") }.flatMap { URL(string: String($0.dropFirst(2))) }
}
