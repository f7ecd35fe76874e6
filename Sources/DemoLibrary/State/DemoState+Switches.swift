import Foundation

/// The fault switches tests flip, and the request counts they read back.
extension DemoState {
    // MARK: Switches

    /// Replaces every switch.
    public func setSwitches(_ switches: DemoSwitches) {
        self.switches = switches
    }

    /// Sets (or, with empty faults, clears) the faults of one crawlable page.
    public func setFaults(_ faults: PageFaults, page: Int) {
        switches.pages[page] = faults.isEmpty ? nil : faults
    }

    /// The faults of the loans feed or the manifests (`\.loans`, `\.manifests`) this request meets, counting
    /// down their `statusTimes`.
    func takeFaults(_ key: WritableKeyPath<DemoSwitches, PageFaults>) -> PageFaults {
        switches[keyPath: key].take()
    }

    /// Delays every response by this many milliseconds.
    public func setDelay(milliseconds: Int) {
        switches.delayMilliseconds = max(0, milliseconds)
    }

    /// Makes the loans feed come back with no entries, or restores it.
    public func setEmptyLoans(_ empty: Bool) {
        switches.emptyLoans = empty
    }

    /// Changes some switches in one step, e.g. `{ $0.borrowFails = true }`.
    public func updateSwitches(_ change: @Sendable (inout DemoSwitches) -> Void) {
        change(&switches)
    }

    /// Writes each loan's fulfil link plain, as an ODL templated link (`odl:tlink
    /// href="…/fulfill{?id,checkout_id,patron_id,client_id}"`), or as both; pages rendered before are dropped.
    public func setFulfilLinks(_ links: DemoFulfilLinks) {
        renderer.fulfilLinks = links
        cache.removeAll()
    }

    /// Turns every fault off.
    public func clearSwitches() {
        switches = DemoSwitches()
    }

    // MARK: Request counts

    func record(target: String, conditional: Bool) {
        stats.requests[target, default: 0] += 1
        if conditional { stats.conditional[target, default: 0] += 1 }
    }

    func recordNotModified(target: String) {
        stats.notModified[target, default: 0] += 1
    }

    /// Requests for a path (`/crawlable`, summed over queries) or an exact target (`/crawlable?page=2`).
    public func requestCount(_ target: String) -> Int {
        DemoRequestStats.total(stats.requests, for: target)
    }

    /// Conditional requests for a path or exact target.
    public func conditionalCount(_ target: String) -> Int {
        DemoRequestStats.total(stats.conditional, for: target)
    }

    /// 304 answers for a path or exact target.
    public func notModifiedCount(_ target: String) -> Int {
        DemoRequestStats.total(stats.notModified, for: target)
    }

    /// Forgets all request counts.
    public func resetStats() {
        stats = DemoRequestStats()
    }
}

/// Requests held at the door while it is closed: proof, without a clock, that several requests are in flight at once.
struct RequestGate {
    var closed = false
    /// The paths the closed gate holds: those that start with it.
    var pathPrefix = "/"
    var held: [CheckedContinuation<Void, Never>] = []
    /// Who waits for a number of requests to be held.
    var watchers: [CheckedContinuation<Void, Never>] = []
}

extension DemoState {
    /// Holds every request that comes in for a path starting with `pathPrefix` (admin routes aside), unanswered,
    /// until `openGate()`.
    public func closeGate(for pathPrefix: String = "/") {
        gate.closed = true
        gate.pathPrefix = pathPrefix
    }

    /// Lets the held requests, and every later one, through.
    public func openGate() {
        gate.closed = false
        let held = gate.held
        gate.held = []
        for request in held { request.resume() }
    }

    /// Returns once `count` requests are held at the closed gate.
    public func untilHeld(_ count: Int) async {
        while gate.held.count < count {
            await withCheckedContinuation { gate.watchers.append($0) }
        }
    }

    /// How many requests are held now.
    public var heldRequests: Int { gate.held.count }

    /// Waits at the gate while it is closed for `path`.
    func passGate(path: String) async {
        guard gate.closed, path.hasPrefix(gate.pathPrefix) else { return }
        await withCheckedContinuation { request in
            gate.held.append(request)
            let watchers = gate.watchers
            gate.watchers = []
            for watcher in watchers { watcher.resume() }
        }
    }
}
