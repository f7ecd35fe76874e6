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

    /// Every playable loan or open-access audiobook without a complete local copy, added to the end.
    public func enqueueAllLoans() throws -> Int {
        // Streamed, keeping only the loans: the catalog around them may be 100,000 titles.
        var candidates: [String] = []
        try store.forEachEdition(of: library) { edition in
            if edition.entitlement == .loan && edition.medium == "audiobook" && edition.protection == nil
                && (edition.state == .new || edition.state == .updated || edition.state.isInProgress)
            {
                candidates.append(edition.id)
            }
        }
        for id in candidates { try enqueue(try store.resolveEdition(id, in: library)) }
        return candidates.count
    }
}
