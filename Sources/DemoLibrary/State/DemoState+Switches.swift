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
