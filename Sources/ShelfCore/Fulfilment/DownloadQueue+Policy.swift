import Foundation

extension DownloadQueue {
    /// Settles a queued title after a download attempt: a complete download leaves the queue, one that stopped
    /// short stays with its first failure noted, and a failure leaves it only when it can never succeed.
    public func settle(_ edition: EditionRef, after outcome: Result<DownloadReport, any Error>) throws {
        switch outcome {
        case .success(let report):
            if report.state == .downloaded { try remove(edition) } else { try recordError(edition, report.failures.first) }
        case .failure(let error):
            let failure = error as? ShelfFailure
            if failure?.endsQueuedDownload == true {
                try remove(edition)
            } else {
                try recordError(edition, failure?.description ?? "\(error)")
            }
        }
    }
}
