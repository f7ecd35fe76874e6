import Foundation

/// A value read by `JSONSerialization`, with the lenient accessors OPDS 2 needs: catalogs write the same field as a
/// string, an object or an array of either, and numbers where strings belong.
struct JSONNode {
    let value: Any?

    init(_ value: Any?) { self.value = value is NSNull ? nil : value }

    subscript(key: String) -> JSONNode { JSONNode(object?[key]) }

    var isPresent: Bool { value != nil }
    var object: [String: Any]? { value as? [String: Any] }
    var isObject: Bool { object != nil }
    var isArray: Bool { value is [Any] }

    /// A non-empty string, trimmed.
    var string: String? {
        guard let text = value as? String else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A string, or a language map (`{"en": "…", "fr": "…"}`) read in English, undetermined, or the first language.
    var text: String? {
        if let string { return string }
        guard let map = object else { return nil }
        for language in ["en", "und"] { if let text = self[language].string { return text } }
        return map.keys.sorted().lazy.compactMap { self[$0].string }.first
    }

    /// A number, or a string holding one.
    var double: Double? {
        if let number = value as? NSNumber { return number.doubleValue.isFinite ? number.doubleValue : nil }
        if let number = value as? Double { return number.isFinite ? number : nil }
        if let number = value as? Int { return Double(number) }
        return string.flatMap(Double.init)
    }

    /// A whole number within a sane range.
    var int: Int? {
        guard let double, abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    /// `true`, or the string `"true"` as Palace writes its properties.
    var bool: Bool {
        if let flag = value as? Bool { return flag }
        return string?.lowercased() == "true"
    }

    /// The elements of an array, or the value itself as a one-element list; empty when absent.
    var list: [JSONNode] {
        if let array = value as? [Any] { return array.map(JSONNode.init) }
        return value == nil ? [] : [self]
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
enum JSONDepth {
    /// The deepest nesting of arrays and objects in `bytes`.
    static func maximum(of bytes: UnsafeRawBufferPointer, stoppingAbove limit: Int) -> Int {
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
