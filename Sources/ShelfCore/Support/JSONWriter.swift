/// A small, fast JSON writer for the store's detail columns: Foundation's encoder is too slow for a hot sync loop.
struct JSONWriter {
    private(set) var output = ""
    private var needsComma: [Bool] = [false]

    init() { output.reserveCapacity(512) }

    mutating func beginObject() { separator(); output.append("{"); needsComma.append(false) }
    mutating func endObject() { output.append("}"); needsComma.removeLast() }
    mutating func beginArray() { separator(); output.append("["); needsComma.append(false) }
    mutating func endArray() { output.append("]"); needsComma.removeLast() }

    mutating func key(_ name: String) {
        separator()
        appendString(name)
        output.append(":")
        // The value that follows must not add a comma of its own.
        needsComma[needsComma.count - 1] = false
    }

    mutating func value(_ string: String?) {
        separator()
        if let string { appendString(string) } else { output.append("null") }
    }

    mutating func value(_ int: Int?) {
        separator()
        if let int { output.append(String(int)) } else { output.append("null") }
    }

    mutating func value(_ bool: Bool) {
        separator()
        output.append(bool ? "true" : "false")
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
        if needsComma[needsComma.count - 1] { output.append(",") }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func appendString(_ string: String) {
        output.append("\"")
        var plain = true
        for unit in string.utf8 where unit < 0x20 || unit == 0x22 || unit == 0x5C {
            plain = false
            break
        }
        if plain {
            output.append(string)
        } else {
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": output.append("\\\"")
                case "\\": output.append("\\\\")
                case "\n": output.append("\\n")
                case "\r": output.append("\\r")
                case "\t": output.append("\\t")
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        output.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                    } else {
                        output.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        output.append("\"")
    }
}
