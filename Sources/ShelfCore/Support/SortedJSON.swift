import Foundation

/// JSON text of a `JSONSerialization` object with every object's keys in order, sorted by Swift's `<`.
///
/// `JSONSerialization`'s own `.sortedKeys` compares the keys through ICU's collator on Linux, which loads its data:
/// 3 MB more held by `shelf listen` for the one annotation it posts on the way out.
enum SortedJSON {
    /// Nil when something in `value` is not JSON (as `JSONSerialization` would throw).
    static func data(_ value: Any) -> Data? {
        var text = ""
        guard write(value, into: &text) else { return nil }
        return Data(text.utf8)
    }

    private static func write(_ value: Any, into text: inout String) -> Bool {
        switch value {
        case let object as [String: Any]:
            text += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                guard write(key, into: &text) else { return false }
                text += ":"
                guard let member = object[key], write(member, into: &text) else { return false }
            }
            text += "}"
        case let array as [Any]:
            text += "["
            for (index, element) in array.enumerated() {
                if index > 0 { text += "," }
                guard write(element, into: &text) else { return false }
            }
            text += "]"
        default:
            guard JSONSerialization.isValidJSONObject([value]),
                let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
            else { return false }
            text += String(decoding: data, as: UTF8.self)
        }
        return true
    }
}
