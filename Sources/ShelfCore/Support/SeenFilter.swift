/// Whether an id was seen before, in a fixed 1 MB whatever the number of ids: a Bloom filter of 2^23 bits probed
/// three times by the id's 64-bit hash (double hashing of its halves). A sync asks it of every entry to tell the pages
/// that bring titles not seen before from those that do not (`FeedFetcher.stalePages`); a set of every id grew 14
/// bytes a title (4 MB at 300,000). It may answer "seen" for an id never seen: at 300,000 ids about 1 in 1,000, at a
/// million 1 in 40, which only makes a page of new titles count one fewer; it never answers "new" for one seen.
struct SeenFilter {
    static let bitCount = 1 << 23
    private var words = [UInt64](repeating: 0, count: SeenFilter.bitCount / 64)

    /// Records `hash`; true when the filter had not seen it before.
    mutating func insert(_ hash: UInt64) -> Bool {
        let first = hash & 0xFFFF_FFFF
        let step = (hash >> 32) | 1
        var new = false
        for probe in UInt64(0)..<3 {
            let bit = Int((first &+ probe &* step) & UInt64(Self.bitCount - 1))
            let mask = UInt64(1) << UInt64(bit & 63)
            if words[bit >> 6] & mask == 0 {
                new = true
                words[bit >> 6] |= mask
            }
        }
        return new
    }
}
