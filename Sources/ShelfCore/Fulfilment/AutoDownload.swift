import Foundation

/// What the downloads at the end of a sync did.
public struct AutoDownloadReport: Codable, Sendable, Equatable {
    public var downloaded: [DownloadReport] = []
    /// One line per title that failed or stopped short.
    public var failed: [String] = []
    /// Finished titles archived to stay within `--keep`.
    public var archived: [String] = []
    /// Titles left out because they would go past `--max-size`.
    public var overBudget: [String] = []

    public init() {}

    /// The report of a run's outcomes, after the keep rule archived `archived`.
    public init(_ outcomes: [DownloadOutcome], archived: [String]) {
        self.archived = archived
        for outcome in outcomes {
            switch outcome.result {
            case .downloaded: if let report = outcome.report { downloaded.append(report) }
            case .overBudget: overBudget.append(outcome.line)
            case .stopped, .failed: failed.append(outcome.line)
            case .declined, .backingOff, .busy: break
            }
        }
    }
}
