import Foundation

/// A JSON value as native Swift data, converted once from what `JSONSerialization` returns. Reading Foundation's
/// `Any` tree directly costs a dynamic cast per access, and on Linux a cast of a dictionary to `NSNumber` or `Bool`
/// bridges the whole dictionary to `NSDictionary` first: an OPDS 2 page of 1,000 publications spent most of its time
/// there.
package indirect enum JSONValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Converts `JSONSerialization`'s result; nil for `NSNull` and anything that is not JSON. Containers are
    /// recognised before numbers, so no container is ever cast to `NSNumber`.
    package init?(foundation value: Any) {
        if let text = value as? String {
            self = .string(text)
        } else if let object = value as? [String: Any] {
            var converted: [String: JSONValue] = [:]
            converted.reserveCapacity(object.count)
            for (key, element) in object { if let element = JSONValue(foundation: element) { converted[key] = element } }
            self = .object(converted)
        } else if let array = value as? [Any] {
            self = .array(array.compactMap { JSONValue(foundation: $0) })
        } else if value is NSNull {
            return nil
        } else if let flag = value as? Bool, !(value is Int) || type(of: value) == Bool.self {
            self = .bool(flag)
        } else if let number = value as? NSNumber {
            self = .number(number.doubleValue)
        } else if let number = value as? Double {
            self = .number(number)
        } else if let number = value as? Int {
            self = .number(Double(number))
        } else {
            return nil
        }
    }
}

/// A value of an OPDS 2 document, with the lenient accessors OPDS 2 needs: catalogs write the same field as a
/// string, an object or an array of either, and numbers where strings belong. It is a place in a `JSONTape`:
/// nothing is made of a value but what is asked of it.
struct JSONNode {
    private let tape: JSONTape
    /// The value's slot; nil when absent (a member not there, or `null`).
    private let slot: Int?

    init(_ tape: JSONTape, slot: Int?) {
        self.tape = tape
        self.slot = slot.flatMap { tape.slots[$0].kind == .null ? nil : $0 }
    }

    /// A whole document's root.
    init(_ tape: JSONTape) { self.init(tape, slot: tape.slots.isEmpty ? nil : 0) }

    init(_ value: JSONValue?) { self.init(JSONTape(value)) }

    /// Converts what `JSONSerialization` returned, once.
    init(foundation value: Any?) { self.init(value.flatMap { JSONValue(foundation: $0) }) }

    subscript(key: String) -> JSONNode {
        JSONNode(tape, slot: slot.flatMap { tape.member(of: $0, named: key) })
    }

    /// The value as `JSONValue` (made on asking: for tests).
    var value: JSONValue? { slot.flatMap { tape.value(at: $0) } }

    private var kind: JSONTape.Kind? { slot.map { tape.slots[$0].kind } }

    var isPresent: Bool { slot != nil }
    var isObject: Bool { kind == .object }
    var isArray: Bool { kind == .array }

    /// The names of an object's members (none for anything else), in no particular order.
    var keys: [String] { slot.map { tape.keys(of: $0) } ?? [] }

    /// A non-empty string, trimmed.
    var string: String? {
        guard let slot, tape.slots[slot].kind == .string else { return nil }
        return Self.trimmed(tape.string(at: slot))
    }

    /// `text` without leading and trailing white space; nil when nothing else is left. Most strings have none to
    /// trim and are returned as they are.
    static func trimmed(_ text: String) -> String? {
        let trimmed = text.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A string, or a language map (`{"en": "…", "fr": "…"}`) read in English, undetermined, or the first language.
    var text: String? {
        if let string { return string }
        guard isObject else { return nil }
        for language in ["en", "und"] { if let text = self[language].string { return text } }
        return keys.sorted().lazy.compactMap { self[$0].string }.first
    }

    /// A number, or a string holding one.
    var double: Double? {
        switch kind {
        case .number?:
            let number = Double(bitPattern: tape.slots[slot!].payload)
            return number.isFinite ? number : nil
        case .true?: return 1
        case .false?: return 0
        default: return string.flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
        }
    }

    /// A whole number within a sane range.
    var int: Int? {
        guard let double, abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    /// `true`, or the string `"true"` as Palace writes its properties.
    var bool: Bool {
        switch kind {
        case .true?: return true
        case .false?: return false
        case .number?: return Double(bitPattern: tape.slots[slot!].payload) == 1
        default: return string?.lowercased() == "true"
        }
    }

    /// The elements of an array (its nulls left out), or the value itself as a one-element list; empty when absent.
    var list: [JSONNode] {
        guard let slot else { return [] }
        let item = tape.slots[slot]
        guard item.kind == .array else { return [self] }
        var elements: [JSONNode] = []
        var child = slot + 1
        while child < Int(item.end) {
            if tape.slots[child].kind != .null { elements.append(JSONNode(tape, slot: child)) }
            child = Int(tape.slots[child].end)
        }
        return elements
    }

    /// The number as a catalog would write it: `3`, `2.5`.
    var numberText: String? {
        if let string { return string }
        guard let double else { return nil }
        return double == double.rounded() && abs(double) < 1e15 ? String(Int(double)) : String(double)
    }
}

/// Checks a JSON document's nesting before it is parsed, so a hostile document cannot make the parser recurse
/// without bound: one pass over the bytes, counting brackets outside strings.
package enum JSONDepth {
    /// The deepest nesting of arrays and objects in `bytes`.
    package static func maximum(of bytes: UnsafeRawBufferPointer, stoppingAbove limit: Int) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > deepest {
                    deepest = depth
                    if deepest > limit { return deepest }
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
