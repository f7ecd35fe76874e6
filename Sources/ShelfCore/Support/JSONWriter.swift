/// A small, fast JSON writer for the store's detail columns: Foundation's encoder is too slow for a hot sync loop.
///
/// It writes UTF-8 bytes and turns them into a String once, at the end.
struct JSONWriter {
    private var bytes: [UInt8] = []
    /// One flag per open object or array: whether the next value needs a comma first.
    private var needsComma: [Bool] = [false]

    init() { bytes.reserveCapacity(512) }

    var output: String { String(decoding: bytes, as: UTF8.self) }

    mutating func beginObject() { separator(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma.removeLast() }
    mutating func beginArray() { separator(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma.removeLast() }

    mutating func key(_ name: String) {
        separator()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        // The value that follows must not add a comma of its own.
        needsComma[needsComma.count - 1] = false
    }

    mutating func value(_ string: String?) {
        separator()
        if let string { appendString(string) } else { appendASCII("null") }
    }

    mutating func value(_ int: Int?) {
        separator()
        if let int { appendASCII(String(int)) } else { appendASCII("null") }
    }

    mutating func value(_ bool: Bool) {
        separator()
        appendASCII(bool ? "true" : "false")
    }

    /// Writes `"name": value` only when the value is present.
    mutating func field(_ name: String, _ string: String?) {
        guard let string else { return }
        key(name)
        value(string)
    }

    mutating func field(_ name: String, _ int: Int?) {
        guard let int else { return }
        key(name)
        value(int)
    }

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func appendASCII(_ text: String) { bytes.append(contentsOf: text.utf8) }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them whole.
        var native = string
        let copied = native.withUTF8 { buffer -> Bool in
            for byte in buffer where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            bytes.append(contentsOf: buffer)
            return true
        }
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
