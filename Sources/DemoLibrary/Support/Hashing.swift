/// 64-bit FNV-1a: fast, stable across runs and platforms, good enough to tell page bodies apart.
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    mutating func combine(_ string: String) {
        combine(string.utf8)
    }

    /// A strong entity tag, quoted as HTTP wants it.
    var entityTag: String {
        let hex = String(value, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    static func entityTag(of bytes: [UInt8]) -> String {
        var hasher = FNV1a64()
        bytes.withUnsafeBufferPointer { hasher.combine($0) }
        return hasher.entityTag
    }
}

/// SplitMix64: a small deterministic generator so seeded mutations (and tests' generated inputs) repeat exactly.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
