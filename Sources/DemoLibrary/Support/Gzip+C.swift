import CZlib

/// A zlib failure while compressing a response body.
struct GzipError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "gzip failed (\(code)): \(message)" }
}

/// Compresses bytes into a gzip member (RFC 1952). The corresponding C function is `deflate`.
func gzipCompress(_ source: UnsafeRawBufferPointer, level: Int32 = 6) throws -> [UInt8] {
    var stream = z_stream()
    // windowBits 15 + 16 asks zlib for a gzip header and trailer instead of a zlib one.
    try check(CZlib_deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), &stream)
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(source.count))) + 32)
    let produced: Int = try output.withUnsafeMutableBufferPointer { target in
        stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: UInt8.self).baseAddress)
        stream.avail_in = UInt32(source.count)
        stream.next_out = target.baseAddress
        stream.avail_out = UInt32(target.count)
        let status = deflate(&stream, Z_FINISH)
        guard status == Z_STREAM_END else {
            throw GzipError(code: status, message: "output buffer too small")
        }
        return target.count - Int(stream.avail_out)
    }
    output.removeSubrange(produced...)
    return output
}

/// The one error path for zlib return codes.
private func check(_ status: Int32, _ stream: inout z_stream) throws {
    guard status == Z_OK else {
        let message = stream.msg.map { String(cString: $0) } ?? "zlib error"
        throw GzipError(code: status, message: message)
    }
}
