/// Byte counts as a patron types them, for `--max-size` and `--limit-rate`.
enum ByteCount {
    /// Bytes in `20G`, `500M`, `64k`, `1.5m` or a plain number (powers of 1024; a trailing `b` is allowed).
    static func parse(_ text: String) -> Int64? {
        let lower = text.lowercased().replacingOccurrences(of: "b", with: "")
        let scales: [Character: Int64] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40]
        let (digits, scale) = lower.last.flatMap { scales[$0] }.map { (String(lower.dropLast()), $0) } ?? (lower, 1)
        guard let value = Double(digits), value >= 0, value * Double(scale) < 9e18 else { return nil }
        return Int64(value * Double(scale))
    }

    /// A rate in bytes per second: a byte count above zero.
    static func rate(_ text: String) -> Int64? { parse(text).flatMap { $0 > 0 ? $0 : nil } }
}
