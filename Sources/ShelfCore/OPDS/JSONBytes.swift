import Foundation

/// Reads a JSON document straight into `JSONValue`, as `JSONValue(foundation:)` would convert what
/// `JSONSerialization` returns for it: nulls left out of objects and arrays, numbers as `Double`, a later duplicate
/// key in place of an earlier one (`agrees` says how exactly).
///
/// On Linux, `JSONSerialization` builds a tree of Foundation objects first, which the conversion then copies. This
/// reader declines (`Declined`) whatever it would not read exactly as Foundation does (anything but UTF-8, a lone
/// surrogate, U+FEFF, an integer too long for 64 bits, a number out of `Double`'s range, any malformed document),
/// and the caller hands such a document to `JSONSerialization`, for its value or its own words about what is wrong.
/// The caller bounds the nesting first (`JSONDepth`), so the recursion here is bounded too.
package struct JSONBytes {
    /// The document is not one this reader takes: ask Foundation.
    package struct Declined: Error {}

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// The bytes of a string being unescaped, kept between strings.
    private var scratch: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The document's value: nil for a top-level `null`.
    package static func read(_ raw: UnsafeRawBufferPointer) throws(Declined) -> JSONValue? {
        guard let base = raw.baseAddress, !raw.isEmpty else { throw Declined() }
        // UTF-16 and UTF-32 documents (a zero byte among the first two) are Foundation's to read.
        if raw[0] == 0 || (raw.count > 1 && raw[1] == 0) { throw Declined() }
        var reader = JSONBytes(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
        let value = try reader.value()
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw Declined() }
        return value
    }

    private mutating func value() throws(Declined) -> JSONValue? {
        skipSpace()
        guard index < bytes.count else { throw Declined() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try object())
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw Declined()
        }
    }

    private mutating func object() throws(Declined) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        guard !opensEmpty(closedBy: UInt8(ascii: "}")) else { return object }
        repeat {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Declined() }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Declined() }
            index += 1
            // A null removes what an earlier duplicate of the key gave, as it replaces it in Foundation's object.
            object[key] = try value()
        } while try !closes(UInt8(ascii: "}"))
        return object
    }

    private mutating func array() throws(Declined) -> [JSONValue] {
        var array: [JSONValue] = []
        guard !opensEmpty(closedBy: UInt8(ascii: "]")) else { return array }
        repeat {
            if let element = try value() { array.append(element) }
        } while try !closes(UInt8(ascii: "]"))
        return array
    }

    /// Steps over an opening bracket, and over its closing one too when nothing but space comes between.
    private mutating func opensEmpty(closedBy closing: UInt8) -> Bool {
        index += 1
        skipSpace()
        guard index < bytes.count && bytes[index] == closing else { return false }
        index += 1
        return true
    }

    /// After a member or an element: steps over the comma before the next one (false), or the closing bracket (true).
    private mutating func closes(_ closing: UInt8) throws(Declined) -> Bool {
        skipSpace()
        guard index < bytes.count else { throw Declined() }
        let byte = bytes[index]
        guard byte == UInt8(ascii: ",") || byte == closing else { throw Declined() }
        index += 1
        return byte == closing
    }

    /// A string from its opening quote: its bytes as they are up to the first escape, then unescaped into `scratch`.
    private mutating func string() throws(Declined) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return try Self.text(UnsafeBufferPointer(rebasing: bytes[start..<index - 1]))
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw Declined() }
            index += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try scratch.withUnsafeBufferPointer { (text) throws(Declined) in try Self.text(text) }
            case UInt8(ascii: "\\"):
                try unescape()
            case 0..<0x20:
                throw Declined()
            default:
                scratch.append(byte)
            }
        }
        throw Declined()
    }

    /// The escape after a backslash, appended to `scratch` as UTF-8.
    private mutating func unescape() throws(Declined) {
        guard index < bytes.count else { throw Declined() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var code = try hex4()
            if (0xD800...0xDBFF).contains(code) {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw Declined() }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw Declined() }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw Declined()
            }
            guard let scalar = Unicode.Scalar(code) else { throw Declined() }
            scratch.append(contentsOf: UTF8.encode(scalar)!)
        default:
            throw Declined()
        }
    }

    private mutating func hex4() throws(Declined) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Declined() }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Declined()
            }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    /// Valid UTF-8 as a string; anything else is Foundation's to judge, and so is a string holding U+FEFF (Foundation
    /// drops a leading one).
    private static func text(_ utf8: UnsafeBufferPointer<UInt8>) throws(Declined) -> String {
        var rest = UnsafeRawBufferPointer(utf8)
        while let base = rest.baseAddress, let found = memchr(base, 0xEF, rest.count) {
            let offset = UnsafeRawPointer(found) - base
            if offset + 2 < rest.count && rest[offset + 1] == 0xBB && rest[offset + 2] == 0xBF { throw Declined() }
            rest = UnsafeRawBufferPointer(rebasing: rest[(offset + 1)...])
        }
        guard let text = String(validating: utf8, as: UTF8.self) else { throw Declined() }
        return text
    }

    /// A number as JSON writes it (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), read by the standard library's
    /// locale-independent `strtod`.
    private mutating func number() throws(Declined) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        guard digits() > 0 else { throw Declined() }
        if bytes[integerStart] == UInt8(ascii: "0") && index - integerStart > 1 { throw Declined() }
        var isInteger = true
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw Declined() }
            isInteger = false
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard digits() > 0 else { throw Declined() }
            isInteger = false
        }
        // An integer Foundation may not hold in 64 bits, or a number past Double's range, is left to it.
        if isInteger && index - integerStart > 18 { throw Declined() }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { throw Declined() }
        return number
    }

    /// Skips the digits at `index`; how many there were.
    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) throws(Declined) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Declined() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Declined() }
        index += count
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}

extension JSONBytes {
    /// Whether a native reading agrees with what `JSONValue(foundation:)` made of Foundation's reading of the same
    /// document: the contract the tests and the `opds2` fuzz target hold the reader to. Two differences are meant:
    /// the conversion takes Foundation's `true` and `false` for the numbers 1 and 0 on Linux (they are `NSNumber`s
    /// that are also `Int`s) where the native reader keeps booleans, which `JSONNode` reads the same way; and
    /// Foundation's number reader is not always correctly rounded (a real manifest's `28407.294000000005` came out as
    /// …013) where the native one is `strtod`, so numbers agree to a relative 1e-12.
    package static func agrees(_ native: JSONValue?, _ converted: JSONValue?) -> Bool {
        switch (native, converted) {
        case (.bool(let flag)?, .number(let number)?): number == (flag ? 1 : 0)
        case (.number(let x)?, .number(let y)?): x == y || abs(x - y) <= 1e-12 * max(abs(x), abs(y))
        case (.object(let x)?, .object(let y)?):
            x.count == y.count && x.allSatisfy { key, value in y[key].map { agrees(value, $0) } ?? false }
        case (.array(let x)?, .array(let y)?): x.count == y.count && zip(x, y).allSatisfy { agrees($0, $1) }
        default: native == converted
        }
    }
}
