/// A stable 64-bit hash in the FNV-1a family, taken eight bytes at a time: the same input gives the same value
/// in every run and every version (the store keeps these values), unlike `Hasher`.
struct FNV1a: Sendable {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    mutating func combine(_ string: String?) {
        guard var string else {
            mix(0xFF)
            return
        }
        string.withUTF8 { buffer in combine(utf8: buffer) }
    }

    /// The same as `combine(_:)` of the string these are the UTF-8 bytes of.
    mutating func combine(utf8: UnsafeBufferPointer<UInt8>) {
        combine(bytes: UnsafeRawBufferPointer(utf8))
        // A separator keeps ("ab", "c") apart from ("a", "bc").
        mix(UInt64(buffer: 0))
    }

    mutating func combine(_ int: Int?) {
        guard let int else {
            mix(0xFE)
            return
        }
        mix(UInt64(bitPattern: Int64(int)))
    }

    // The bits as they are: `Int(bitPattern)` trapped on every negative number (a date before 1970), whose sign bit
    // puts the pattern above Int.max.
    mutating func combine(_ double: Double?) { combine(double.map { Int(Int64(bitPattern: $0.bitPattern)) }) }

    mutating func combine(_ bool: Bool) { mix(bool ? 1 : 2) }

    private mutating func combine(bytes: UnsafeRawBufferPointer) {
        var offset = 0
        let count = bytes.count
        while offset + 8 <= count {
            mix(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        mix(tail ^ (UInt64(count) << 56))
    }

    @inline(__always) private mutating func mix(_ word: UInt64) {
        value = (value ^ word) &* Self.prime
        value ^= value >> 29
    }

    /// The hash as a signed integer, the form SQLite stores.
    var signed: Int64 { Int64(bitPattern: value) }
}

private extension UInt64 {
    init(buffer: UInt64) { self = 0x5EED_0000_0000_0000 | buffer }
}
