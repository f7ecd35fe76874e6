import Foundation

/// A token bucket shared by every transfer of one download, so `--limit-rate` bounds them together.
///
/// libcurl's own limit (`CURLOPT_MAX_RECV_SPEED_LARGE`) is per handle and, in the libcurl Debian ships
/// (7.88), does not hold on a fast link: 19 MB came in 0.38 s under `--limit-rate 200k`. The downloader's
/// transfers share one thread, so waiting in the body callback holds back every connection at once, and the
/// kernel's receive window tells the server to slow down.
final class RateLimiter {
    /// Bytes per second.
    let rate: Double
    /// Bytes that may arrive at once after a quiet spell: a tenth of a second's worth, at least 1 KB.
    private let burst: Double
    private var tokens: Double
    private var last: Date
    private let sleep: (TimeInterval) -> Void

    init(bytesPerSecond: Int64, now: Date = Date(), sleep: @escaping (TimeInterval) -> Void = Thread.sleep(forTimeInterval:)) {
        rate = Double(max(1, bytesPerSecond))
        burst = max(1024, rate / 10)
        tokens = burst
        last = now
        self.sleep = sleep
    }

    /// Takes `bytes` from the bucket, waiting until it has refilled enough for them.
    func take(_ bytes: Int) {
        let now = Date()
        tokens = min(burst, tokens + now.timeIntervalSince(last) * rate)
        last = now
        tokens -= Double(bytes)
        if tokens < 0 {
            let wait = -tokens / rate
            sleep(wait)
            tokens = 0
            last = now.addingTimeInterval(wait)
        }
    }
}
