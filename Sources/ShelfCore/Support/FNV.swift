/// A stable 64-bit FNV-1a hash: the same input gives the same value in every run, unlike `Hasher`.
struct FNV1a: Sendable {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func combine(_ string: String?) {
        guard let string else {
            combineByte(0xFF)
            return
        }
        var copy = string
        copy.withUTF8 { buffer in
            for byte in buffer { combineByte(byte) }
        }
        // A separator keeps ("ab", "c") apart from ("a", "bc").
        combineByte(0)
    }

    mutating func combine(_ int: Int?) { combine(int.map(String.init)) }

    mutating func combine(_ bool: Bool) { combineByte(bool ? 1 : 2) }

    @inline(__always) private mutating func combineByte(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    /// The hash as a signed integer, the form SQLite stores.
    var signed: Int64 { Int64(bitPattern: value) }
}
