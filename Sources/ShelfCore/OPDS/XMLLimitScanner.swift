import Foundation

/// Counts, over the raw bytes of an XML document and before libxml2 parses them, what libxml2 cannot be trusted
/// to bound cheaply: attributes per start tag, element depth, name length and attribute value length.
///
/// libxml2 2.9.14 checks each attribute of a start tag against all the earlier ones, so a tag with 200,000
/// attributes costs minutes of CPU before the reader returns; this scanner sees the bytes first (the whole
/// document in memory, or each chunk as libxml2 asks for it from a file) and stops at the first limit passed.
/// It keeps its state between chunks, so a tag may span any number of them. It tracks only what it needs:
/// comments, CDATA sections, processing instructions and declarations are skipped whole; a document that is not
/// well-formed is left for libxml2 to refuse.
struct XMLLimitScanner {
    /// The limit passed and the line it was passed on.
    struct Violation: Error, Equatable {
        let limit: InputLimit
        let line: Int
    }

    private enum State: UInt8 {
        case text, open, bang, commentStart, section, declaration, instruction
        case endTag, elementName, inTag, attributeName, afterAttributeName, afterEquals, value, slash
    }

    let maxAttributes = InputLimit.attributesPerElement.value
    let maxDepth = InputLimit.elementDepth.value
    let maxName = InputLimit.nameBytes.value
    let maxValue = InputLimit.attributeValueBytes.value

    private var state = State.text
    /// Lines ended before the current chunk.
    private var linesBefore = 0
    private var depth = 0
    private var attributes = 0
    /// Bytes of the current name or value.
    private var length = 0
    /// The quote that closes the current value, or the current quoted string in a declaration (0 outside one).
    private var quote: UInt8 = 0
    /// `-`, `]` or `?` bytes just seen in a comment, CDATA section or processing instruction.
    private var run = 0
    /// The byte two of which, then `>`, end the current section: `-` in a comment, `]` in a CDATA section.
    private var closer: UInt8 = 0
    /// `[` nesting inside a declaration (a DOCTYPE's internal subset).
    private var brackets = 0

    /// Scans the next bytes of the document; throws the first limit they pass.
    ///
    /// Text and attribute values, nearly all of a feed, are skipped with `memchr`; only markup is looked at byte by
    /// byte, and lines are counted only once per chunk (or up to a violation).
    mutating func scan(_ bytes: UnsafeRawBufferPointer) throws(Violation) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let end = bytes.count
        var index = 0
        while index < end {
            switch state {
            case .text:
                guard let found = memchr(base + index, Int32(UInt8(ascii: "<")), end - index) else {
                    index = end
                    continue
                }
                index = UnsafeRawPointer(found) - UnsafeRawPointer(base) + 1
                state = .open
            case .value:
                let found = memchr(base + index, Int32(quote), end - index)
                let stop = found.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? end
                length += stop - index
                if length > maxValue { throw violation(.attributeValueBytes, base, index) }
                if stop < end { state = .inTag }
                index = stop + 1
            default:
                if let limit = step(base[index]) { throw violation(limit, base, index) }
                index += 1
            }
        }
        linesBefore += Self.newlines(base, end)
    }

    /// The violation of `limit` at `offset` of the current chunk, with its line.
    private func violation(_ limit: InputLimit, _ base: UnsafePointer<UInt8>, _ offset: Int) -> Violation {
        Violation(limit: limit, line: linesBefore + Self.newlines(base, offset) + 1)
    }

    /// The line feeds in the first `count` bytes at `start`.
    private static func newlines(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int {
        var lines = 0
        var cursor = start
        let end = start + count
        while cursor < end, let found = memchr(cursor, 0x0A, end - cursor) {
            lines += 1
            cursor = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return lines
    }

    @inline(__always)
    private mutating func step(_ byte: UInt8) -> InputLimit? {
        switch state {
        case .text:
            break  // skipped in `scan`
        case .open:
            switch byte {
            case UInt8(ascii: "/"): state = .endTag
            case UInt8(ascii: "!"): state = .bang
            case UInt8(ascii: "?"):
                state = .instruction
                run = 0
            default:
                state = .elementName
                attributes = 0
                length = 1
            }
        case .bang:
            switch byte {
            case UInt8(ascii: "-"): state = .commentStart
            case UInt8(ascii: "["):
                state = .section
                closer = UInt8(ascii: "]")
                run = 0
            default:
                state = .declaration
                quote = 0
                brackets = 0
            }
        case .commentStart:
            state = .section
            closer = UInt8(ascii: "-")
            run = 0
        case .section:
            if byte == closer {
                run += 1
            } else {
                if byte == UInt8(ascii: ">") && run >= 2 { state = .text }
                run = 0
            }
        case .instruction:
            if byte == UInt8(ascii: ">") && run > 0 { state = .text }
            run = byte == UInt8(ascii: "?") ? 1 : 0
        case .declaration:
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
                case UInt8(ascii: "["): brackets += 1
                case UInt8(ascii: "]"): brackets -= 1
                case UInt8(ascii: ">"): if brackets <= 0 { state = .text }
                default: break
                }
            }
        case .endTag:
            if byte == UInt8(ascii: ">") {
                if depth > 0 { depth -= 1 }
                state = .text
            }
        case .elementName:
            if isSpace(byte) {
                state = .inTag
            } else if byte == UInt8(ascii: ">") {
                return openElement()
            } else if byte == UInt8(ascii: "/") {
                state = .slash
            } else {
                length += 1
                if length > maxName { return .nameBytes }
            }
        case .inTag:
            return inTag(byte)
        case .attributeName:
            if byte == UInt8(ascii: "=") {
                state = .afterEquals
            } else if isSpace(byte) {
                state = .afterAttributeName
            } else if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") {
                return inTag(byte)
            } else {
                length += 1
                if length > maxName { return .nameBytes }
            }
        case .afterAttributeName:
            if byte == UInt8(ascii: "=") {
                state = .afterEquals
            } else if !isSpace(byte) {
                return inTag(byte)
            }
        case .afterEquals:
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                state = .value
                quote = byte
                length = 0
            } else if !isSpace(byte) {
                return inTag(byte)
            }
        case .value:
            break  // skipped in `scan`
        case .slash:
            if byte == UInt8(ascii: ">") {
                state = .text
            } else {
                return inTag(byte)
            }
        }
        return nil
    }

    /// A byte between a start tag's attributes.
    @inline(__always)
    private mutating func inTag(_ byte: UInt8) -> InputLimit? {
        if isSpace(byte) {
            state = .inTag
        } else if byte == UInt8(ascii: ">") {
            return openElement()
        } else if byte == UInt8(ascii: "/") {
            state = .slash
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            state = .value
            quote = byte
            length = 0
        } else {
            attributes += 1
            if attributes > maxAttributes { return .attributesPerElement }
            state = .attributeName
            length = 1
        }
        return nil
    }

    @inline(__always)
    private mutating func openElement() -> InputLimit? {
        depth += 1
        if depth > maxDepth { return .elementDepth }
        state = .text
        return nil
    }

    @inline(__always)
    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }
}
