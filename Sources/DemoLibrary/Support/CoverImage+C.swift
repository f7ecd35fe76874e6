import CZlib
import Foundation

/// A title's demo cover: a 48 × 72 PNG, a vertical gradient between two colours taken from the title's id with a
/// band across it, so each title's cover differs and a terminal has something to draw. The corresponding C library
/// is zlib (`compress2`, `crc32`).
enum CoverImage {
    static let width = 48
    static let height = 72

    static func png(for id: String) -> [UInt8] {
        var hasher = FNV1a64()
        hasher.combine(id)
        let seed = hasher.value
        let top = (UInt8(truncatingIfNeeded: seed), UInt8(truncatingIfNeeded: seed >> 8), UInt8(truncatingIfNeeded: seed >> 16))
        let bottom = (UInt8(truncatingIfNeeded: seed >> 24), UInt8(truncatingIfNeeded: seed >> 32), UInt8(truncatingIfNeeded: seed >> 40))
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(0)  // no filter
            let t = Double(y) / Double(height - 1)
            let band = (height * 2 / 5..<height * 3 / 5).contains(y)
            for _ in 0..<width {
                if band {
                    raw += [240, 236, 220]
                } else {
                    func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8(Double(a) * (1 - t) + Double(b) * t) }
                    raw += [mix(top.0, bottom.0), mix(top.1, bottom.1), mix(top.2, bottom.2)]
                }
            }
        }
        var compressed = [UInt8](repeating: 0, count: Int(compressBound(uLong(raw.count))))
        var length = uLongf(compressed.count)
        _ = compress2(&compressed, &length, raw, uLong(raw.count), 9)
        compressed.removeLast(compressed.count - Int(length))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ data: [UInt8]) {
            let body = Array(type.utf8) + data
            png += bigEndian(UInt32(data.count)) + body
            png += bigEndian(UInt32(body.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }))
        }
        // 8-bit RGB, no interlace.
        chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
        chunk("IDAT", compressed)
        chunk("IEND", [])
        return png
    }
}
