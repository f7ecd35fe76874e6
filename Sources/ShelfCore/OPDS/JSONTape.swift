import Foundation

/// A JSON document laid out flat, one slot a value in document order, without a Swift object, dictionary or string
/// made for any value until it is asked for: an OPDS 2 page of thousands of publications, each with dozens of
/// members, is read into three arrays. Its values are what `JSONValue(foundation:)` would convert
/// `JSONSerialization`'s reading to: nulls left out of objects and arrays, numbers as `Double`, a later duplicate
/// key in place of an earlier one (`agrees` says how exactly).
///
/// On Linux, `JSONSerialization` builds a tree of Foundation objects first, which the conversion then copies. This
/// reader declines (`Declined`) whatever it would not read exactly as Foundation does (anything but UTF-8, a lone
/// surrogate, U+FEFF, an integer too long for 64 bits, a number out of `Double`'s range, any malformed document),
/// and the caller hands such a document to `JSONSerialization`, for its value or its own words about what is wrong.
/// The caller bounds the nesting first (`JSONDepth`), so the recursion here is bounded too.
///
/// A slot holds its kind, where its value ends (the slot after its last descendant) and its payload: a string's
/// bytes (where they are in the document, or in `unescaped` once a string had escapes), a number's value. An
/// object's members are a key slot and a value slot each, in the document's order; an array's elements follow it.
/// `null` keeps its slot: a member whose last value is `null` is absent, as in `JSONValue`, and an array leaves its
/// nulls out.
package final class JSONTape: Sendable {
    enum Kind: UInt8 { case string, number, `true`, `false`, null, array, object }

    struct Slot {
        var kind: Kind
        /// The slot after this value's last descendant.
        var end: Int32
        /// A string: where its bytes start (in `bytes`, or in `unescaped` when `escaped`); a number: its bits.
        var payload: UInt64
        /// A string: how many bytes; `escaped` says which buffer holds them.
        var count: Int32
        var escaped: Bool
    }

    /// The document is not one this reader takes: ask Foundation.
    package struct Declined: Error {}

    let slots: [Slot]
    let bytes: [UInt8]
    let unescaped: [UInt8]

    private init(slots: [Slot], bytes: [UInt8], unescaped: [UInt8]) {
        self.slots = slots
        self.bytes = bytes
        self.unescaped = unescaped
    }

    /// The document's tape, or `Declined` for what is Foundation's to read.
    package static func read(_ raw: UnsafeRawBufferPointer) throws(Declined) -> JSONTape {
        guard !raw.isEmpty else { throw Declined() }
        if raw[0] == 0 || (raw.count > 1 && raw[1] == 0) { throw Declined() }
        var builder = Builder(bytes: Array(raw))
        try builder.document()
        return JSONTape(slots: builder.slots, bytes: builder.bytes, unescaped: builder.unescaped)
    }

    /// The document's value (nil for a top-level `null`), as `JSONValue`.
    package static func value(_ raw: UnsafeRawBufferPointer) throws(Declined) -> JSONValue? {
        try read(raw).value(at: 0)
    }

    /// The tape of a value already read (what Foundation read, converted): nil is a top-level `null`.
    package convenience init(_ value: JSONValue?) {
        var builder = Builder(bytes: [])
        builder.append(value)
        self.init(slots: builder.slots, bytes: [], unescaped: builder.unescaped)
    }

    /// The value at `slot` as `JSONValue`.
    package func value(at slot: Int) -> JSONValue? {
        let item = slots[slot]
        switch item.kind {
        case .string: return .string(string(at: slot))
        case .number: return .number(Double(bitPattern: item.payload))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return nil
        case .array:
            var array: [JSONValue] = []
            var child = slot + 1
            while child < Int(item.end) {
                if let element = value(at: child) { array.append(element) }
                child = Int(slots[child].end)
            }
            return .array(array)
        case .object:
            var object: [String: JSONValue] = [:]
            var key = slot + 1
            while key < Int(item.end) {
                let member = key + 1
                object[string(at: key)] = value(at: member)
                key = Int(slots[member].end)
            }
            return .object(object)
        }
    }

    /// The string at `slot` (a string slot).
    func string(at slot: Int) -> String {
        let item = slots[slot]
        let buffer = item.escaped ? unescaped : bytes
        return buffer.withUnsafeBufferPointer { all in
            let start = Int(item.payload)
            return String(decoding: UnsafeBufferPointer(rebasing: all[start..<start + Int(item.count)]), as: UTF8.self)
        }
    }

    /// Whether the string at `slot` is `key`, byte for byte.
    func string(at slot: Int, equals key: String) -> Bool {
        var key = key
        return key.withUTF8 { utf8 in
            let item = slots[slot]
            guard Int(item.count) == utf8.count else { return false }
            guard let wanted = utf8.baseAddress else { return true }
            let buffer = item.escaped ? unescaped : bytes
            return buffer.withUnsafeBufferPointer { all in
                memcmp(all.baseAddress! + Int(item.payload), wanted, utf8.count) == 0
            }
        }
    }

    /// The slot of the last member of the object at `slot` named `key` (a later duplicate replaces an earlier one),
    /// or nil; the member's value may be `null`.
    func member(of slot: Int, named key: String) -> Int? {
        let item = slots[slot]
        guard item.kind == .object else { return nil }
        var found: Int?
        var child = slot + 1
        while child < Int(item.end) {
            if string(at: child, equals: key) { found = child + 1 }
            child = Int(slots[child + 1].end)
        }
        return found
    }

    /// The names of the object at `slot` whose last value is not `null`, in no particular order.
    func keys(of slot: Int) -> [String] {
        let item = slots[slot]
        guard item.kind == .object else { return [] }
        var present: [String: Bool] = [:]
        var child = slot + 1
        while child < Int(item.end) {
            present[string(at: child)] = slots[child + 1].kind != .null
            child = Int(slots[child + 1].end)
        }
        return present.filter(\.value).map(\.key)
    }

    /// Writes a document's slots, checking that it reads as Foundation reads it.
    private struct Builder {
        let bytes: [UInt8]
        var slots: [Slot] = []
        var unescaped: [UInt8] = []
        private var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            slots.reserveCapacity(bytes.count / 12)
        }

        mutating func document() throws(Declined) {
            try bytes.withUnsafeBufferPointer { (all) throws(Declined) in
                try value(all)
                skipSpace(all)
                guard index == all.count else { throw Declined() }
            }
        }

        private mutating func open(_ kind: Kind) -> Int {
            slots.append(Slot(kind: kind, end: 0, payload: 0, count: 0, escaped: false))
            return slots.count - 1
        }

        private mutating func close(_ slot: Int) { slots[slot].end = Int32(slots.count) }

        private mutating func leaf(_ kind: Kind, payload: UInt64 = 0, count: Int = 0, escaped: Bool = false) {
            slots.append(
                Slot(kind: kind, end: Int32(slots.count + 1), payload: payload, count: Int32(count), escaped: escaped))
        }

        private mutating func value(_ all: UnsafeBufferPointer<UInt8>) throws(Declined) {
            skipSpace(all)
            guard index < all.count else { throw Declined() }
            switch all[index] {
            case UInt8(ascii: "{"):
                let slot = open(.object)
                if !opensEmpty(all, closedBy: UInt8(ascii: "}")) {
                    repeat {
                        skipSpace(all)
                        guard index < all.count, all[index] == UInt8(ascii: "\"") else { throw Declined() }
                        try string(all)
                        skipSpace(all)
                        guard index < all.count, all[index] == UInt8(ascii: ":") else { throw Declined() }
                        index += 1
                        try value(all)
                    } while try !closes(all, UInt8(ascii: "}"))
                }
                close(slot)
            case UInt8(ascii: "["):
                let slot = open(.array)
                if !opensEmpty(all, closedBy: UInt8(ascii: "]")) {
                    repeat { try value(all) } while try !closes(all, UInt8(ascii: "]"))
                }
                close(slot)
            case UInt8(ascii: "\""): try string(all)
            case UInt8(ascii: "t"):
                try literal(all, "true")
                leaf(.true)
            case UInt8(ascii: "f"):
                try literal(all, "false")
                leaf(.false)
            case UInt8(ascii: "n"):
                try literal(all, "null")
                leaf(.null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                leaf(.number, payload: try number(all).bitPattern)
            default: throw Declined()
            }
        }

        private mutating func opensEmpty(_ all: UnsafeBufferPointer<UInt8>, closedBy closing: UInt8) -> Bool {
            index += 1
            skipSpace(all)
            guard index < all.count && all[index] == closing else { return false }
            index += 1
            return true
        }

        private mutating func closes(_ all: UnsafeBufferPointer<UInt8>, _ closing: UInt8) throws(Declined) -> Bool {
            skipSpace(all)
            guard index < all.count else { throw Declined() }
            let byte = all[index]
            guard byte == UInt8(ascii: ",") || byte == closing else { throw Declined() }
            index += 1
            return byte == closing
        }

        /// A string from its opening quote: its place in the document when it has no escape, else its bytes unescaped
        /// into `unescaped`. Declined unless valid UTF-8 without U+FEFF (Foundation drops a leading one) or a control
        /// character.
        private mutating func string(_ all: UnsafeBufferPointer<UInt8>) throws(Declined) {
            index += 1
            let start = index
            var ascii = true
            while index < all.count {
                let byte = all[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    let text = UnsafeBufferPointer(rebasing: all[start..<index - 1])
                    if !ascii { try Self.check(text) }
                    leaf(.string, payload: UInt64(start), count: text.count)
                    return
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw Declined() }
                if byte >= 0x80 { ascii = false }
                index += 1
            }
            let from = unescaped.count
            unescaped.append(contentsOf: all[start..<index])
            while index < all.count {
                let byte = all[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    try unescaped.withUnsafeBufferPointer { (buffer) throws(Declined) in
                        try Self.check(UnsafeBufferPointer(rebasing: buffer[from...]))
                    }
                    leaf(.string, payload: UInt64(from), count: unescaped.count - from, escaped: true)
                    return
                case UInt8(ascii: "\\"): try unescape(all)
                case 0..<0x20: throw Declined()
                default: unescaped.append(byte)
                }
            }
            throw Declined()
        }

        /// Valid UTF-8 without U+FEFF; anything else is Foundation's to judge.
        private static func check(_ utf8: UnsafeBufferPointer<UInt8>) throws(Declined) {
            var rest = UnsafeRawBufferPointer(utf8)
            while let base = rest.baseAddress, let found = memchr(base, 0xEF, rest.count) {
                let offset = UnsafeRawPointer(found) - base
                if offset + 2 < rest.count && rest[offset + 1] == 0xBB && rest[offset + 2] == 0xBF {
                    throw Declined()
                }
                rest = UnsafeRawBufferPointer(rebasing: rest[(offset + 1)...])
            }
            var decoder = Unicode.UTF8.ForwardParser()
            var iterator = utf8.makeIterator()
            while true {
                switch decoder.parseScalar(from: &iterator) {
                case .valid: continue
                case .emptyInput: return
                case .error: throw Declined()
                }
            }
        }

        private mutating func unescape(_ all: UnsafeBufferPointer<UInt8>) throws(Declined) {
            guard index < all.count else { throw Declined() }
            let byte = all[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(byte)
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4(all)
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 1 < all.count, all[index] == UInt8(ascii: "\\"), all[index + 1] == UInt8(ascii: "u")
                    else { throw Declined() }
                    index += 2
                    let low = try hex4(all)
                    guard (0xDC00...0xDFFF).contains(low) else { throw Declined() }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw Declined()
                }
                guard let scalar = Unicode.Scalar(code) else { throw Declined() }
                unescaped.append(contentsOf: UTF8.encode(scalar)!)
            default:
                throw Declined()
            }
        }

        private mutating func hex4(_ all: UnsafeBufferPointer<UInt8>) throws(Declined) -> UInt32 {
            guard index + 4 <= all.count else { throw Declined() }
            var code: UInt32 = 0
            for _ in 0..<4 {
                let byte = all[index]
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

        /// A number as JSON writes it (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), read by the standard
        /// library's locale-independent `strtod`; an integer Foundation may not hold in 64 bits, or a number past
        /// `Double`'s range, is left to it.
        private mutating func number(_ all: UnsafeBufferPointer<UInt8>) throws(Declined) -> Double {
            let start = index
            if all[index] == UInt8(ascii: "-") { index += 1 }
            let integerStart = index
            guard digits(all) > 0 else { throw Declined() }
            if all[integerStart] == UInt8(ascii: "0") && index - integerStart > 1 { throw Declined() }
            var isInteger = true
            if index < all.count && all[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(all) > 0 else { throw Declined() }
                isInteger = false
            }
            if index < all.count && (all[index] == UInt8(ascii: "e") || all[index] == UInt8(ascii: "E")) {
                index += 1
                if index < all.count && (all[index] == UInt8(ascii: "+") || all[index] == UInt8(ascii: "-")) {
                    index += 1
                }
                guard digits(all) > 0 else { throw Declined() }
                isInteger = false
            }
            if isInteger && index - integerStart > 18 { throw Declined() }
            if isInteger && index - integerStart <= 15 {
                // A short integer is exact in a Double: no string, no strtod.
                var magnitude: Int64 = 0
                for byte in all[integerStart..<index] { magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0")) }
                return integerStart == start ? Double(magnitude) : -Double(magnitude)
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: all[start..<index]), as: UTF8.self)
            guard let number = Double(text), number.isFinite else { throw Declined() }
            return number
        }

        private mutating func digits(_ all: UnsafeBufferPointer<UInt8>) -> Int {
            let start = index
            while index < all.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(all[index]) { index += 1 }
            return index - start
        }

        private mutating func literal(_ all: UnsafeBufferPointer<UInt8>, _ word: StaticString) throws(Declined) {
            let count = word.utf8CodeUnitCount
            guard index + count <= all.count else { throw Declined() }
            for offset in 0..<count where all[index + offset] != word.utf8Start[offset] { throw Declined() }
            index += count
        }

        private mutating func skipSpace(_ all: UnsafeBufferPointer<UInt8>) {
            while index < all.count {
                switch all[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// Appends a value already read (Foundation's, converted): strings go to `unescaped`.
        mutating func append(_ value: JSONValue?) {
            switch value {
            case nil: leaf(.null)
            case .string(let text)?:
                let from = unescaped.count
                unescaped.append(contentsOf: text.utf8)
                leaf(.string, payload: UInt64(from), count: unescaped.count - from, escaped: true)
            case .number(let number)?: leaf(.number, payload: number.bitPattern)
            case .bool(let flag)?: leaf(flag ? .true : .false)
            case .array(let array)?:
                let slot = open(.array)
                for element in array { append(element) }
                close(slot)
            case .object(let object)?:
                let slot = open(.object)
                for (key, element) in object {
                    append(.string(key))
                    append(element)
                }
                close(slot)
            }
        }
    }
}

extension JSONTape {
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
