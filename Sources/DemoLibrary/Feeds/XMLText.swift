/// Appends text to XML output, escaping what XML requires in text and in double-quoted attributes.
func appendEscaped(_ text: String, to out: inout String) {
    let needsEscaping = text.utf8.contains { byte in
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte < 0x20
    }
    guard needsEscaping else {
        out += text
        return
    }
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
        // Other control characters are not allowed in XML 1.0 at all, even escaped.
        case _ where scalar.value < 0x20: out += "\u{FFFD}"
        default: out.unicodeScalars.append(scalar)
        }
    }
}

/// The text escaped for XML.
func xmlEscaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count + 16)
    appendEscaped(text, to: &out)
    return out
}

/// Percent-encodes a path segment or query value, keeping RFC 3986 unreserved characters and `:`.
func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"), UInt8(ascii: ":"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            out += "%" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return out
}
