import Foundation

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
