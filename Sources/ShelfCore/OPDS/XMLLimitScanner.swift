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
        case text, open, bang, commentStart, comment, cdata, declaration, instruction
        case endTag, elementName, inTag, attributeName, afterAttributeName, afterEquals, value, slash
    }

    let maxAttributes = InputLimit.attributesPerElement.value
    let maxDepth = InputLimit.elementDepth.value
    let maxName = InputLimit.nameBytes.value
    let maxValue = InputLimit.attributeValueBytes.value

    private var state = State.text
    private(set) var line = 1
    private var depth = 0
    private var attributes = 0
    /// Bytes of the current name or value.
    private var length = 0
    /// The quote that closes the current value, or the current quoted string in a declaration (0 outside one).
    private var quote: UInt8 = 0
    /// `-`, `]` or `?` bytes just seen in a comment, CDATA section or processing instruction.
    private var run = 0
    /// `[` nesting inside a declaration (a DOCTYPE's internal subset).
    private var brackets = 0

    /// Scans the next bytes of the document; throws the first limit they pass.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) throws(Violation) {
        for byte in bytes {
            if byte == 0x0A { line += 1 }
            try step(byte)
        }
    }

    @inline(__always)
    private mutating func step(_ byte: UInt8) throws(Violation) {
        switch state {
        case .text:
            if byte == UInt8(ascii: "<") { state = .open }
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
                state = .cdata
                run = 0
            default:
                state = .declaration
                quote = 0
                brackets = 0
            }
        case .commentStart:
            state = .comment
            run = 0
        case .comment:
            if byte == UInt8(ascii: "-") {
                run += 1
            } else {
                if byte == UInt8(ascii: ">") && run >= 2 { state = .text }
                run = 0
            }
        case .cdata:
            if byte == UInt8(ascii: "]") {
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
                try openElement()
            } else if byte == UInt8(ascii: "/") {
                state = .slash
            } else {
                length += 1
                if length > maxName { throw Violation(limit: .nameBytes, line: line) }
            }
        case .inTag:
            try inTag(byte)
        case .attributeName:
            if byte == UInt8(ascii: "=") {
                state = .afterEquals
            } else if isSpace(byte) {
                state = .afterAttributeName
            } else if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") {
                try inTag(byte)
            } else {
                length += 1
                if length > maxName { throw Violation(limit: .nameBytes, line: line) }
            }
        case .afterAttributeName:
            if byte == UInt8(ascii: "=") {
                state = .afterEquals
            } else if !isSpace(byte) {
                try inTag(byte)
            }
        case .afterEquals:
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                state = .value
                quote = byte
                length = 0
            } else if !isSpace(byte) {
                try inTag(byte)
            }
        case .value:
            if byte == quote {
                state = .inTag
            } else {
                length += 1
                if length > maxValue { throw Violation(limit: .attributeValueBytes, line: line) }
            }
        case .slash:
            if byte == UInt8(ascii: ">") {
                state = .text
            } else {
                try inTag(byte)
            }
        }
    }

    /// A byte between a start tag's attributes.
    @inline(__always)
    private mutating func inTag(_ byte: UInt8) throws(Violation) {
        if isSpace(byte) {
            state = .inTag
        } else if byte == UInt8(ascii: ">") {
            try openElement()
        } else if byte == UInt8(ascii: "/") {
            state = .slash
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            state = .value
            quote = byte
            length = 0
        } else {
            attributes += 1
            if attributes > maxAttributes { throw Violation(limit: .attributesPerElement, line: line) }
            state = .attributeName
            length = 1
        }
    }

    @inline(__always)
    private mutating func openElement() throws(Violation) {
        depth += 1
        if depth > maxDepth { throw Violation(limit: .elementDepth, line: line) }
        state = .text
    }

    @inline(__always)
    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }
}
