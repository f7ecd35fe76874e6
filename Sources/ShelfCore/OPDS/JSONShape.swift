import Foundation

/// How much a JSON document holds, measured in one pass over its bytes before any of it is parsed: how deep it
/// nests, how many items its lists and objects hold together, and the largest of them with the member name it is
/// the value of. Nothing is allocated (but the name, once), so a document of 400,000 parts is refused with the
/// memory of its bytes alone, where a parser would first build a tree of a gigabyte.
///
/// The pass stops as soon as a bound is passed, and reads malformed documents without complaint: saying what is
/// malformed is the parser's work, after the bounds have been met.
package struct JSONShape: Equatable, Sendable {
    /// The deepest nesting of lists and objects.
    package var depth = 0
    /// Items of all lists and members of all objects, together.
    package var items = 0
    /// The most items one list or object holds.
    package var largest = 0
    /// The member name whose value that largest list or object is; nil for the document itself or a list's item.
    package var largestKey: String?

    /// The limits the pass stops at, once one is passed.
    package struct Bounds: Sendable {
        package var depth: Int
        package var items: Int
        package var perContainer: Int

        package init(depth: Int, items: Int, perContainer: Int) {
            self.depth = depth
            self.items = items
            self.perContainer = perContainer
        }
    }

    /// Measures `bytes`, stopping as soon as `bounds` are passed (the measure then says which).
    package static func measure(_ bytes: UnsafeRawBufferPointer, stoppingAbove bounds: Bounds) -> JSONShape {
        var shape = JSONShape()
        // Per open container: its items so far (counted at its first item and at each comma), and where the name
        // it is the value of lies in the bytes.
        let levels = bounds.depth + 2
        var counts = [Int](repeating: 0, count: levels)
        var keyStart = [Int](repeating: -1, count: levels)
        var keyEnd = [Int](repeating: -1, count: levels)
        var level = 0
        var inString = false
        var escaped = false
        var expectsItem = false
        var stringStart = 0
        var lastString = (start: -1, end: -1)
        var key = (start: -1, end: -1)
        var afterColon = false

        func count(_ level: Int, _ shape: inout JSONShape) -> Bool {
            counts[level] += 1
            shape.items += 1
            if counts[level] > shape.largest {
                shape.largest = counts[level]
                if shape.largest > bounds.perContainer {
                    if keyStart[level] >= 0 {
                        let name = UnsafeRawBufferPointer(rebasing: bytes[keyStart[level]..<keyEnd[level]])
                        shape.largestKey = String(decoding: name, as: UTF8.self)
                    }
                    return false
                }
            }
            return shape.items <= bounds.items
        }

        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    lastString = (stringStart, offset)
                }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                continue
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if level > 0 { level -= 1 }
                expectsItem = false
                afterColon = false
                continue
            case UInt8(ascii: ","):
                expectsItem = true
                afterColon = false
                continue
            case UInt8(ascii: ":"):
                key = lastString
                afterColon = true
                continue
            default:
                break
            }
            // A value (or a member's name) starts here: the first item of a container, or one after a comma.
            if expectsItem && level > 0 {
                expectsItem = false
                if !count(level, &shape) { return shape }
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                stringStart = offset + 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                level += 1
                if level > shape.depth {
                    shape.depth = level
                    if level > bounds.depth { return shape }
                }
                counts[level] = 0
                (keyStart[level], keyEnd[level]) = afterColon ? key : (-1, -1)
                expectsItem = true
            default:
                break
            }
            afterColon = false
        }
        return shape
    }

    /// A document in UTF-16 or UTF-32 (told by a byte-order mark or by where its first characters' zero bytes are,
    /// as RFC 4627 and Foundation tell them) as UTF-8; nil for one that is UTF-8 already, or not readable as the
    /// encoding it looks like (the parser then says it is malformed).
    package static func utf8(of data: Data) -> Data? {
        guard data.count >= 2 else { return nil }
        let first = Array(data.prefix(4))
        let zero = first.map { $0 == 0 }
        let encoding: String.Encoding
        if first.starts(with: [0x00, 0x00, 0xFE, 0xFF]) || first.starts(with: [0xFF, 0xFE, 0x00, 0x00]) {
            encoding = .utf32
        } else if first.starts(with: [0xFE, 0xFF]) || first.starts(with: [0xFF, 0xFE]) {
            encoding = .utf16
        } else if first.count == 4 && zero[0] && zero[1] && zero[2] {
            encoding = .utf32BigEndian
        } else if first.count == 4 && zero[1] && zero[2] && zero[3] {
            encoding = .utf32LittleEndian
        } else if zero[0] {
            encoding = .utf16BigEndian
        } else if zero[1] {
            encoding = .utf16LittleEndian
        } else {
            return nil
        }
        return String(data: data, encoding: encoding).map { Data($0.utf8) } ?? Data()
    }
}
