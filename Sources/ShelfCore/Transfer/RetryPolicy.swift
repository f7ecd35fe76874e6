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

    /// How long a response asks a client to wait before the next request: its `Retry-After`, else its
    /// `X-RateLimit-Reset` (seconds to wait, or, when that many seconds would be decades, the Unix time to wait for).
    public static func asksToWait(_ response: HTTPResponse, now: Date = Date()) -> TimeInterval? {
        if let asked = retryAfter(response.header("retry-after"), now: now) { return asked }
        guard let value = response.header("x-ratelimit-reset").flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }),
            value >= 0
        else { return nil }
        return value > 1_000_000_000 ? max(0, value - now.timeIntervalSince1970) : value
    }

    /// Seconds a `Retry-After` value asks for: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return TimeInterval(max(0, seconds)) }
        if let date = HTTPDate.parse(value, now: now) { return max(0, date.timeIntervalSince(now)) }
        return nil
    }
}

extension RetryPolicy {
    /// The last failure of a request the policy gave up on, or one it tries again after.
    public enum Failure: Sendable {
        /// A transient status (`isTransient(status:)`): the response, for a caller that reads what it says.
        case response(HTTPResponse)
        /// A transient network error (a reset, a timeout…).
        case error(NetworkError)

        /// The failure as an error naming `url` (redacted by the caller).
        public func networkError(url: String) -> NetworkError {
            switch self {
            case .response(let response) where response.status == 429:
                .rateLimited(url: url, wait: RetryPolicy.asksToWait(response))
            case .response(let response): .httpStatus(url: url, status: response.status)
            case .error(let error): error
            }
        }
    }

    /// How a request run under the policy ended.
    public enum Outcome: Sendable {
        /// An answer that is not worth another try: a success or a lasting failure, for the caller to read.
        case answered(HTTPResponse)
        /// The policy was spent (`delay(afterAttempt:retryAfter:waited:)`) after `attempts` tries and `waited`
        /// seconds in all, the attempts' own time included (a stalled attempt counts as long as it stalled).
        case spent(attempts: Int, waited: TimeInterval, last: Failure)
    }

    /// Runs `request` until it answers with a status that is not transient, or the policy is spent: each transient
    /// status or transient `NetworkError` is waited out (a `Retry-After` honoured) and told to `retrying` with the
    /// wait first. Any other error `request` throws ends the run at once. The budget bounds the whole run, the
    /// attempts' own time with the waits: a server that answers each attempt slowly gets fewer of them.
    public func run(
        retrying: (_ failure: Failure, _ wait: TimeInterval) -> Void, _ request: () throws -> HTTPResponse
    ) throws -> Outcome {
        var attempt = 0
        let started = ContinuousClock.now
        func spent() -> TimeInterval {
            let elapsed = ContinuousClock.now - started
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        while true {
            attempt += 1
            let failure: Failure
            var asked: TimeInterval?
            do {
                let response = try request()
                guard Self.isTransient(status: response.status) else { return .answered(response) }
                failure = .response(response)
                asked = Self.asksToWait(response)
            } catch let error as NetworkError where error.isTransient {
                failure = .error(error)
            }
            guard let wait = delay(afterAttempt: attempt, retryAfter: asked, waited: spent()) else {
                return .spent(attempts: attempt, waited: spent(), last: failure)
            }
            retrying(failure, wait)
            Thread.sleep(forTimeInterval: wait)
        }
    }
}
