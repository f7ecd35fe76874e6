/// Unsigned LEB128 varints: seven bits a byte, the high bit set on every byte but the last. How the sync's stage
/// (`EntryCodec`) and the store's detail column (`DetailCodec`) write counts and lengths.
enum Varint {
    /// Appends `value` (not negative).
    static func append(_ value: Int, to bytes: inout [UInt8]) {
        var rest = UInt(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed number as an unsigned one whose varint is short when the number is near 0 either way (zigzag: 0, -1,
    /// 1, -2… become 0, 1, 2, 3…).
    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    /// The signed number `zigzag` made this of.
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

    /// A varint of more than nine bytes, which `append` never writes.
    struct TooLong: Error {}

    /// The varint at `offset`, moving `offset` past it; nil, moving nothing, when the bytes end inside it.
    static func read<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, at offset: inout Int
    ) throws(TooLong) -> UInt? where Bytes.Index == Int {
        var value: UInt = 0
        var shift: UInt = 0
        var index = offset
        while true {
            guard index < bytes.endIndex else { return nil }
            guard shift < 63 else { throw TooLong() }
            let next = bytes[index]
            index += 1
            value |= UInt(next & 0x7F) << shift
            if next < 0x80 { break }
            shift += 7
        }
        offset = index
        return value
    }
}
