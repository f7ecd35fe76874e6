import Foundation

/// What a push of playtime minutes did.
public struct PlaytimeReport: Sendable, Equatable {
    /// Minutes the library took (or had taken already).
    public var taken = 0
    /// Minutes still waiting (offline, the server failing, the minute not over yet).
    public var pending = 0
    /// Why some still wait, when they do.
    public var failure: String?
    /// Minutes the library refused for good, dropped.
    public var dropped = 0
    /// Why they were dropped, one line per title.
    public var warnings: [String] = []
}

/// Reports the seconds heard per minute of audiobooks whose loan links Palace's `timeTracking` endpoint (OPDS for
/// Distributors pools: the library pays per minute heard), as Palace's apps do: entries of a UTC minute with an id
/// each, posted in batches, answered 207 with a status per entry.
///
/// A minute is posted once it is over, and forgotten once the library answers 201 (taken) or 200 (a duplicate of
/// one taken before, so a minute posted twice counts once); an entry refused (410: older than 120 days, 400) is
/// dropped with a warning; the rest wait, offline or while the server fails, for the next push.
public final class PlaytimeReporter: Sendable {
    let store: Store
    let library: Library
    let session: LibrarySession

    /// The most entries one request carries.
    static let batchSize = 100

    public init(store: Store, home: Home, library: Library, configuration: HTTPConfiguration) throws(CirculationError) {
        self.store = store
        self.library = library
        var configuration = configuration
        configuration.maxBodyBytes = min(configuration.maxBodyBytes, 1_048_576)
        session = try LibrarySession(library: library, credentialStore: CredentialStore(home: home), configuration: configuration)
    }

    /// The minute (since 1970, UTC) a date is in.
    public static func minute(of date: Date) -> Int { Int((date.timeIntervalSince1970 / 60).rounded(.down)) }

    /// `2026-11-28T01:23Z`, as Palace reads a minute.
    static func minuteText(_ minute: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm'Z'"
        return formatter.string(from: Date(timeIntervalSince1970: Double(minute) * 60))
    }

    /// Posts every minute of the library that is over (before `now`'s minute), title by title.
    @discardableResult
    public func pushPending(now: Date = Date()) -> PlaytimeReport {
        var report = push(now: now)
        report.pending = (try? store.pendingPlaytimeMinutes(in: library.id)) ?? report.pending
        return report
    }

    private func push(now: Date) -> PlaytimeReport {
        var report = PlaytimeReport()
        let batches: [PlaytimeBatch]
        do {
            batches = try store.queuedPlaytime(of: library, before: Self.minute(of: now))
        } catch {
            return PlaytimeReport(failure: error.description)
        }
        let total = batches.reduce(0) { $0 + $1.entries.count }
        guard total > 0 else { return report }
        guard session.isSignedIn else {
            report.failure = CirculationError.notSignedIn(library: library.name).description
            return report
        }
        for batch in batches {
            var start = 0
            while start < batch.entries.count {
                let chunk = Array(batch.entries[start..<min(batch.entries.count, start + Self.batchSize)])
                start += chunk.count
                if let failure = post(chunk, of: batch, &report) {
                    report.failure = failure
                    try? store.setPlaytimeError(failure, library: library.id)
                    return report
                }
            }
        }
        return report
    }

    /// Posts one batch; nil when the library answered for it, else why the rest waits.
    private func post(_ entries: [(id: String, minute: Int, seconds: Int)], of batch: PlaytimeBatch,
                      _ report: inout PlaytimeReport) -> String? {
        guard let url = URL(string: batch.trackingURL) else {
            report.dropped += entries.count
            try? store.removePlaytime(entries.map(\.id))
            return nil
        }
        let body: [String: Any] = [
            "bookId": batch.edition.entryID,
            "libraryId": library.url,
            "timeEntries": entries.map { ["id": $0.id, "duringMinute": Self.minuteText($0.minute), "secondsPlayed": $0.seconds] },
        ]
        let response: HTTPResponse
        do {
            response = try session.send(
                url, method: "POST", headers: ["Content-Type": "application/json", "Accept": "application/json"],
                body: SortedJSON.data(body) ?? Data())
        } catch {
            return (error as? ShelfFailure)?.description ?? "\(error)"
        }
        let title = (try? store.edition(batch.edition).summary.title) ?? batch.edition.entryID
        switch response.status {
        case 401:
            return CirculationError.unauthorised(library.name, signedIn: session.isSignedIn).description
        case 408, 429, 500...:
            return NetworkError.httpStatus(url: Redaction.url(url.absoluteString), status: response.status).description
        case 200..<300:
            let statuses = Self.statuses(in: response.body)
            var taken: [String] = []
            var refused: [(String, String)] = []
            for entry in entries {
                guard let (status, message) = statuses[entry.id] else {
                    // A 2xx that lists no status for it: taken, unless the answer was a 207 that left it out.
                    if response.status != 207 { taken.append(entry.id) }
                    continue
                }
                if (200..<300).contains(status) {
                    taken.append(entry.id)
                } else if status >= 500 || status == 408 || status == 429 {
                    continue
                } else {
                    refused.append((entry.id, message))
                }
            }
            try? store.removePlaytime(taken + refused.map(\.0))
            report.taken += taken.count
            report.dropped += refused.count
            if let first = refused.first {
                report.warnings.append("dropped \(refused.count) minute\(refused.count == 1 ? "" : "s") heard of \(title): "
                                       + "\(library.name) refused \(refused.count == 1 ? "it" : "them") (\(first.1))")
            }
            return nil
        default:
            // The library will never take these (the loan or title gone): they must not block the rest.
            let reason = ProblemDocument.parse(response.body)?.text ?? "\(response.status) \(HTTPStatus.reason(response.status))"
            try? store.removePlaytime(entries.map(\.id))
            report.dropped += entries.count
            report.warnings.append("dropped \(entries.count) minute\(entries.count == 1 ? "" : "s") heard of \(title): "
                                   + "\(library.name) refused \(entries.count == 1 ? "it" : "them") (\(reason))")
            return nil
        }
    }

    /// The status and message of each entry of a 207 answer, by id.
    static func statuses(in body: Data) -> [String: (Int, String)] {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let responses = root["responses"] as? [Any]
        else { return [:] }
        var statuses: [String: (Int, String)] = [:]
        for item in responses {
            guard let object = item as? [String: Any], let id = object["id"] as? String,
                let status = (object["status"] as? NSNumber)?.intValue
            else { continue }
            statuses[id] = (status, object["message"] as? String ?? "\(status)")
        }
        return statuses
    }
}
