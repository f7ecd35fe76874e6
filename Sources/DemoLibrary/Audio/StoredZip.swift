import CZlib

/// Writes a zip archive of stored (uncompressed) entries, which is all an audiobook package needs:
/// MP3 does not compress, and every reader understands method 0. Public so tests can build hostile archives (a
/// `../` path) to serve with `DemoState.replaceSingleFile`.
public struct StoredZip {
    private var bytes: [UInt8] = []
    private var central: [UInt8] = []
    private var count = 0

    /// An empty archive.
    public init() {}

    /// Appends one file; the name is written as given, unchecked.
    public mutating func add(_ name: String, _ data: [UInt8]) {
        let nameBytes = Array(name.utf8)
        let crc = data.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        let offset = UInt32(bytes.count)
        // Local file header: version 1.0, no flags, stored, a fixed DOS date (1 Jan 2024) for reproducibility.
        var local: [UInt8] = []
        local.le32(0x0403_4b50); local.le16(10); local.le16(0); local.le16(0)
        local.le16(0); local.le16(0x5821)
        local.le32(crc); local.le32(UInt32(data.count)); local.le32(UInt32(data.count))
        local.le16(UInt16(nameBytes.count)); local.le16(0)
        bytes += local + nameBytes + data
        central.le32(0x0201_4b50); central.le16(10); central.le16(10); central.le16(0); central.le16(0)
        central.le16(0); central.le16(0x5821)
        central.le32(crc); central.le32(UInt32(data.count)); central.le32(UInt32(data.count))
        central.le16(UInt16(nameBytes.count)); central.le16(0); central.le16(0); central.le16(0); central.le16(0)
        central.le32(0); central.le32(offset)
        central += nameBytes
        count += 1
    }

    /// The finished archive: entries, central directory, end record.
    public func finished() -> [UInt8] {
        var end: [UInt8] = []
        end.le32(0x0605_4b50); end.le16(0); end.le16(0)
        end.le16(UInt16(count)); end.le16(UInt16(count))
        end.le32(UInt32(central.count)); end.le32(UInt32(bytes.count)); end.le16(0)
        return bytes + central + end
    }
}

private extension [UInt8] {
    mutating func le16(_ value: UInt16) { append(UInt8(value & 0xff)); append(UInt8(value >> 8)) }
    mutating func le32(_ value: UInt32) { le16(UInt16(value & 0xffff)); le16(UInt16(value >> 16)) }
}
