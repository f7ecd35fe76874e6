import Foundation
import Hummingbird

/// Bytes served from `/audio/…` or `/packages/…`: a real file, optionally stretched to a larger
/// size by repeating it, and optionally changed in its last byte; slices are made on demand, so a
/// 10 MB part never sits in memory whole.
struct AudioResource: Sendable {
    let base: ByteBuffer
    /// Bytes served; more than `base` holds repeats it from the start.
    let length: Int
    /// The last byte is inverted: same length, different content, different entity tag.
    let changed: Bool
    let contentType: String
    let lastModified: Date

    init(base: ByteBuffer, length: Int? = nil, changed: Bool = false, contentType: String, lastModified: Date) {
        self.base = base
        self.length = max(1, length ?? base.readableBytes)
        self.changed = changed
        self.contentType = contentType
        self.lastModified = DemoDates.wholeSeconds(changed ? lastModified.addingTimeInterval(1) : lastModified)
    }

    /// A strong entity tag of exactly the bytes served.
    var entityTag: String {
        var hasher = FNV1a64()
        base.withUnsafeReadableBytes { hasher.combine($0) }
        hasher.combine("\(length)/\(changed)")
        return hasher.entityTag
    }

    /// The bytes in `range`, which must lie within `0..<length`.
    func slice(_ range: Range<Int>) -> ByteBuffer {
        let size = base.readableBytes
        var out = ByteBufferAllocator().buffer(capacity: range.count)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let start = offset % size
            let count = min(size - start, range.upperBound - offset)
            out.writeImmutableBuffer(base.getSlice(at: base.readerIndex + start, length: count)!)
            offset += count
        }
        if changed, range.contains(length - 1) {
            let index = out.writerIndex - (range.upperBound - (length - 1))
            out.setInteger(~out.getInteger(at: index, as: UInt8.self)!, at: index)
        }
        return out
    }
}
