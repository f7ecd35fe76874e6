import Foundation

/// When to try a request again: the one policy for catalog pages, loans feeds and audiobook parts.
///
/// Exponential backoff with full jitter (so parallel clients do not retry in step), a server's `Retry-After`
/// honoured up to `cap`, and two bounds: attempts, and the total time spent waiting.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The ceiling of the first wait, doubled for each further attempt.
    public var base: TimeInterval
    /// No wait of shelf's own choosing is longer than this.
    public var cap: TimeInterval
    /// The longest `Retry-After` waited for; one asking for more ends the tries (the server said not to come
    /// back sooner, so coming back sooner would only fail again).
    public var longestRetryAfter: TimeInterval
    /// The waits of one request add up to at most this; a retry that would go past it is not made.
    public var budget: TimeInterval

    /// A policy with these bounds.
    public init(
        maxAttempts: Int, base: TimeInterval, cap: TimeInterval, budget: TimeInterval, longestRetryAfter: TimeInterval = 60
    ) {
        self.maxAttempts = maxAttempts
        self.base = base
        self.cap = cap
        self.longestRetryAfter = longestRetryAfter
        self.budget = budget
    }

    /// For catalog and loans pages: a sync under cron gives up within two minutes and tries again next run.
    public static let pages = RetryPolicy(maxAttempts: 5, base: 0.5, cap: 30, budget: 120)
    /// For audiobook parts: more attempts, as a part may be long and a connection may drop many times.
    public static let parts = RetryPolicy(
        maxAttempts: 6, base: 0.5, cap: 30, budget: 900, longestRetryAfter: 300)

    /// Whether an HTTP status is worth another try: timeouts, rate limits and server errors.
    public static func isTransient(status: Int) -> Bool { NetworkError.isTransient(status: status) }

    /// The wait before attempt `attempt + 1` (after `attempt` failed ones), or nil when the policy is spent:
    /// too many attempts, or `waited` plus this wait would pass the budget.
    public func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?, waited: TimeInterval) -> TimeInterval? {
        guard attempt < maxAttempts else { return nil }
        let wait: TimeInterval
        if let retryAfter {
            guard retryAfter <= longestRetryAfter else { return nil }
            wait = max(0, retryAfter)
        } else {
            let ceiling = min(cap, base * pow(2, Double(max(0, attempt - 1))))
            wait = Double.random(in: 0...ceiling)
        }
        return waited + wait <= budget ? wait : nil
    }

    /// Seconds a `Retry-After` value asks for: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return TimeInterval(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
