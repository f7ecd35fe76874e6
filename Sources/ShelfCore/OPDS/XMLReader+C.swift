import CLibXML2
import Foundation

/// An element or attribute name (or namespace URI) interned in one reader's dictionary.
///
/// Two names from the same reader are equal exactly when their strings are equal, so the parser compares
/// them as integers instead of building a `String` for every node. A name is only meaningful for the
/// reader that produced it.
struct XMLName: Equatable, Sendable {
    fileprivate let bits: UInt

    /// The absent name: an element or attribute without a namespace has this as its namespace URI.
    static let none = XMLName(bits: 0)

    fileprivate init(bits: UInt) { self.bits = bits }

    fileprivate init(_ pointer: UnsafePointer<xmlChar>?) {
        bits = UInt(bitPattern: pointer)
    }
}

/// The kinds of reader node the OPDS parser distinguishes.
enum XMLNodeKind: Equatable {
    case element
    case endElement
    /// Character data, CDATA or whitespace: anything whose value is document text.
    case text
    /// A reference to an entity declared in the DTD, deliberately left unexpanded.
    case entityReference
    case other
}

/// One attribute of the element the reader is on, valid only inside `XMLReader.forEachAttribute`.
struct XMLAttribute {
    let name: XMLName
    let namespace: XMLName
    fileprivate let attr: xmlAttrPtr

    /// The value with surrounding whitespace trimmed; entity references in it are dropped, never expanded.
    var value: String {
        // Nearly every value is one text node: decode it in place rather than through a buffer.
        if let only = attr.pointee.children, only.pointee.next == nil {
            guard only.pointee.type == XML_TEXT_NODE, let content = only.pointee.content else { return "" }
            return decodeTrimmed(UnsafePointer(content))
        }
        var buffer = ByteBuffer()
        appendAttributeValue(attr, to: &buffer)
        return buffer.trimmedString()
    }
}

/// A growable byte buffer reused across text reads, so reading text allocates only the final `String`.
struct ByteBuffer {
    fileprivate var bytes: [UInt8] = []

    var count: Int { bytes.count }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    fileprivate mutating func append(_ pointer: UnsafePointer<xmlChar>) {
        let length = Int(strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)))
        bytes.append(contentsOf: UnsafeBufferPointer(start: pointer, count: length))
    }

    /// The bytes as a `String`, without leading or trailing XML whitespace.
    func trimmedString() -> String {
        bytes.withUnsafeBufferPointer { decodeTrimmed($0) }
    }
}

/// A NUL-terminated libxml2 string as a `String`, without leading or trailing XML whitespace.
private func decodeTrimmed(_ pointer: UnsafePointer<xmlChar>) -> String {
    let length = Int(strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)))
    return decodeTrimmed(UnsafeBufferPointer(start: pointer, count: length))
}

private func decodeTrimmed(_ all: UnsafeBufferPointer<UInt8>) -> String {
    var start = 0
    var end = all.count
    while start < end, isXMLSpace(all[start]) { start += 1 }
    while end > start, isXMLSpace(all[end - 1]) { end -= 1 }
    return String(decoding: UnsafeBufferPointer(rebasing: all[start..<end]), as: UTF8.self)
}

@inline(__always)
private func isXMLSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
}

/// Appends an attribute's text children, skipping entity references so that no entity is ever expanded.
private func appendAttributeValue(_ attr: xmlAttrPtr, to buffer: inout ByteBuffer) {
    var child = attr.pointee.children
    while let node = child {
        if node.pointee.type == XML_TEXT_NODE, let content = node.pointee.content {
            buffer.append(UnsafePointer(content))
        }
        child = node.pointee.next
    }
}

/// libxml2's process-wide setup, done once before the first reader exists.
private let libxml2Setup: Void = {
    xmlInitParser()
    // Refusing every external entity here means no document can make libxml2 open a file or a URL,
    // whatever options a future caller passes.
    xmlSetExternalEntityLoader { _, _, _ in nil }
}()

/// A libxml2 streaming reader (`xmlTextReader`) over a document in memory or in a file.
///
/// Only this file touches C: the OPDS parser above it sees Swift types. Every libxml2 error ends up in
/// `OPDSParseError.malformed` with libxml2's own message, line and column.
final class XMLReader {
    /// Parser options: no network, nothing printed, no entity substitution, no DTD loading, no huge mode.
    static let options: Int32 = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue)

    private let reader: xmlTextReaderPtr
    private let fileDescriptor: Int32
    /// The file being streamed to libxml2 through the limit scanner; nil for a document in memory (scanned whole
    /// before the reader exists).
    private let input: ScannedInput?
    // Unchecked exclusivity: touched for every text node by this reader's single thread only.
    @exclusivity(unchecked) private var textBuffer = ByteBuffer()
    /// The root element's namespace declarations with their interned URIs.
    ///
    /// Almost every element of a feed uses a namespace declared on the root, and the root node lives until
    /// the document ends, so its declarations can be recognised by address instead of by a dictionary
    /// lookup of the URI on every element.
    private var rootNamespaces: [(declaration: xmlNsPtr, uri: XMLName)] = []

    /// The first fatal diagnostic libxml2 reported: it names the real cause of a failed parse.
    private var firstFatal: (line: Int, column: Int, message: String)?
    /// The first error-level diagnostic, used when libxml2 fails without a fatal one.
    private var firstError: (line: Int, column: Int, message: String)?
    /// Non-fatal errors (an undeclared namespace prefix, …), kept so the caller can warn about them.
    private(set) var diagnostics: [String] = []

    /// Runs `body` with a reader over `data`, read in place; the reader must not outlive `body`.
    ///
    /// Reading in place rather than from a copy matters for large feeds: copying a 50 MB page costs more
    /// than a tenth of the time it takes to parse it. The document is first scanned for shelf's input limits
    /// (`XMLLimitScanner`), so libxml2 never sees a start tag that would cost it minutes.
    /// The corresponding C function is `xmlReaderForMemory`.
    static func withReader<Result>(
        data: Data, url: String?, _ body: (XMLReader) throws -> Result
    ) throws -> Result {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var scanner = XMLLimitScanner()
            do throws(XMLLimitScanner.Violation) { try scanner.scan(bytes) } catch { throw OPDSParseError.overLimit(error.limit, line: error.line) }
            let reader = try XMLReader(bytes: bytes, url: url)
            return try withExtendedLifetime(reader) { try body(reader) }
        }
    }

    /// A valid address for an empty document, since `Data` may give none.
    nonisolated(unsafe) private static let emptyDocument: UnsafeMutablePointer<CChar> = {
        let byte = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        byte.initialize(to: 0)
        return byte
    }()

    private init(bytes: UnsafeRawBufferPointer, url: String?) throws {
        _ = libxml2Setup
        guard bytes.count <= Int(Int32.max) else {
            throw OPDSParseError.unreadable(
                "a \(bytes.count)-byte document is too large to parse in memory; parse it from a file")
        }
        // The thread's last error is only a fallback in `check`; a stale one from an earlier parse must not
        // be mistaken for this document's.
        xmlResetLastError()
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? UnsafePointer(Self.emptyDocument)
        guard let reader = xmlReaderForMemory(base, Int32(clamping: bytes.count), url, nil, Self.options) else {
            throw OPDSParseError.unreadable("libxml2 could not create a reader for \(bytes.count) bytes")
        }
        self.reader = reader
        self.fileDescriptor = -1
        self.input = nil
        installErrorHandler()
    }

    /// Opens a reader that streams the file at `path`, never holding the whole document in memory.
    ///
    /// Reading through a descriptor we opened, rather than by file name, keeps libxml2 from
    /// transparently decompressing gzip input or interpreting the name as a URL. Each chunk libxml2 asks for
    /// is scanned for shelf's input limits before libxml2 gets it. The corresponding C function is
    /// `xmlReaderForIO`.
    init(path: String) throws {
        _ = libxml2Setup
        xmlResetLastError()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw OPDSParseError.unreadable("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let input = ScannedInput(fileDescriptor: fd)
        let read: xmlInputReadCallback = { context, buffer, length in
            guard let context, let buffer else { return -1 }
            return Unmanaged<ScannedInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, length)
        }
        // No close callback: the descriptor is closed in deinit, after libxml2 is done with it.
        let context = Unmanaged.passUnretained(input).toOpaque()
        guard let reader = xmlReaderForIO(read, nil, context, path, nil, Self.options) else {
            close(fd)
            if let violation = input.violation {
                throw OPDSParseError.overLimit(violation.limit, line: violation.line)
            }
            throw OPDSParseError.unreadable("libxml2 could not create a reader for \(path)")
        }
        self.reader = reader
        self.fileDescriptor = fd
        self.input = input
        installErrorHandler()
    }

    deinit {
        xmlTextReaderSetStructuredErrorHandler(reader, nil, nil)
        xmlFreeTextReader(reader)
        if fileDescriptor >= 0 { close(fileDescriptor) }
    }

    /// Routes libxml2's diagnostics to this reader instead of stderr.
    ///
    /// The corresponding C function is `xmlTextReaderSetStructuredErrorHandler`.
    private func installErrorHandler() {
        let handler: xmlStructuredErrorFunc = { context, error in
            guard let context, let error else { return }
            let reader = Unmanaged<XMLReader>.fromOpaque(context).takeUnretainedValue()
            reader.record(error.pointee)
        }
        xmlTextReaderSetStructuredErrorHandler(reader, handler, Unmanaged.passUnretained(self).toOpaque())
    }

    private func record(_ error: xmlError) {
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message =
            error.message.map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "libxml2 error \(error.code)"
        let entry = (line: Int(error.line), column: Int(error.int2), message: message)
        if error.level == XML_ERR_FATAL {
            if firstFatal == nil { firstFatal = entry }
        } else {
            if firstError == nil { firstError = entry }
            if diagnostics.count < 20 { diagnostics.append("line \(error.line): \(message)") }
        }
    }

    /// The single path from a libxml2 return code to a Swift error.
    private func check(_ code: Int32) throws -> Bool {
        // A limit passed in the input stops the parse, whatever libxml2 made of the input ending early.
        if let violation = input?.violation {
            throw OPDSParseError.overLimit(violation.limit, line: violation.line)
        }
        if code == 1 { return true }
        // Read can report a plain end of input after a fatal error (an empty or truncated document), so a
        // recorded fatal error wins over the return code.
        if let fatal = firstFatal {
            throw OPDSParseError.malformed(line: fatal.line, column: fatal.column, message: fatal.message)
        }
        if code == 0 { return false }
        if let error = firstError {
            throw OPDSParseError.malformed(line: error.line, column: error.column, message: error.message)
        }
        if let last = xmlGetLastError() {
            let message = last.pointee.message.map { String(cString: $0) } ?? "unknown libxml2 error"
            throw OPDSParseError.malformed(
                line: Int(last.pointee.line), column: Int(last.pointee.int2),
                message: message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        throw OPDSParseError.malformed(line: parserLine, column: 0, message: "the XML reader failed")
    }

    /// Moves to the next node in document order; false at the end of the document.
    ///
    /// The corresponding C function is `xmlTextReaderRead`.
    @inline(__always)
    func read() throws -> Bool {
        if let pending = skippedTo {
            skippedTo = nil
            return pending
        }
        return try check(xmlTextReaderRead(reader))
    }

    /// Set when `skipElement` has already moved onto the following node, which the next `read` returns.
    @exclusivity(unchecked) private var skippedTo: Bool?

    /// What the current node is.
    ///
    /// The corresponding C function is `xmlTextReaderNodeType`.
    var kind: XMLNodeKind {
        switch xmlTextReaderNodeType(reader) {
        case Int32(XML_READER_TYPE_ELEMENT.rawValue): return .element
        case Int32(XML_READER_TYPE_END_ELEMENT.rawValue): return .endElement
        case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue),
            Int32(XML_READER_TYPE_WHITESPACE.rawValue), Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue):
            return .text
        case Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue): return .entityReference
        default: return .other
        }
    }

    /// The depth of the current node; the root element is at depth 0.
    ///
    /// The corresponding C function is `xmlTextReaderDepth`.
    var depth: Int { Int(xmlTextReaderDepth(reader)) }

    /// True for an element written as `<x/>`, which has no end-element node.
    ///
    /// The corresponding C function is `xmlTextReaderIsEmptyElement`.
    var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

    /// The current node's local name, interned.
    ///
    /// The corresponding C function is `xmlTextReaderConstLocalName`.
    var localName: XMLName { XMLName(xmlTextReaderConstLocalName(reader)) }

    /// The current element's namespace URI, interned, or `.none`.
    ///
    /// The corresponding C function is `xmlTextReaderConstNamespaceUri`.
    var namespaceURI: XMLName {
        guard let node = xmlTextReaderCurrentNode(reader) else { return .none }
        guard let ns = node.pointee.ns else { return .none }
        for known in rootNamespaces where known.declaration == ns { return known.uri }
        return XMLName(xmlTextReaderConstNamespaceUri(reader))
    }

    /// Remembers the namespaces declared on the current element, which must be the root.
    ///
    /// The corresponding C function is `xmlTextReaderCurrentNode`.
    func rememberRootNamespaces() {
        guard let node = xmlTextReaderCurrentNode(reader), node.pointee.type == XML_ELEMENT_NODE,
            node.pointee.parent?.pointee.type == XML_DOCUMENT_NODE
        else { return }
        var next = node.pointee.nsDef
        while let ns = next {
            if let href = ns.pointee.href {
                rootNamespaces.append((ns, XMLName(xmlTextReaderConstString(reader, href))))
            }
            next = ns.pointee.next
        }
    }

    /// The interned URI of a namespace declaration.
    private func uri(of ns: xmlNsPtr) -> XMLName {
        for known in rootNamespaces where known.declaration == ns { return known.uri }
        guard let href = ns.pointee.href else { return .none }
        return XMLName(xmlTextReaderConstString(reader, href))
    }

    /// The current node's local name as a string, for messages.
    ///
    /// The corresponding C function is `xmlTextReaderConstLocalName`.
    var localNameString: String {
        xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
    }

    /// The current node's namespace URI as a string, for messages.
    ///
    /// The corresponding C function is `xmlTextReaderConstNamespaceUri`.
    var namespaceURIString: String? {
        xmlTextReaderConstNamespaceUri(reader).map { String(cString: $0) }
    }

    /// Interns `string` in this reader's dictionary so it can be compared with node names.
    ///
    /// The corresponding C function is `xmlTextReaderConstString`.
    func intern(_ string: String) -> XMLName {
        XMLName(xmlTextReaderConstString(reader, string))
    }

    /// The line of the current node: the node's own line when libxml2 stored it, else the parser's.
    ///
    /// libxml2 stores element lines in 16 bits, so from line 65535 on it can only give the parser's line,
    /// which may be a few lines ahead of the node. The corresponding C function is `xmlGetLineNo`.
    var line: Int {
        if let node = xmlTextReaderCurrentNode(reader) {
            let line = xmlGetLineNo(node)
            if line > 0 && line < 65535 { return Int(line) }
        }
        return parserLine
    }

    /// The line the underlying parser has reached, which may be a little ahead of the current node.
    ///
    /// The corresponding C function is `xmlTextReaderGetParserLineNumber`.
    var parserLine: Int { Int(xmlTextReaderGetParserLineNumber(reader)) }

    /// How many bytes of input the parser has consumed.
    ///
    /// The corresponding C function is `xmlTextReaderByteConsumed`.
    var bytesConsumed: Int { Int(xmlTextReaderByteConsumed(reader)) }

    /// Calls `body` with each attribute of the current element, in document order.
    ///
    /// Walks the element's attribute list directly: unlike `xmlTextReaderConstValue`, this never expands an
    /// entity reference inside an attribute value. The corresponding C function is `xmlTextReaderCurrentNode`.
    func forEachAttribute(_ body: (XMLAttribute) throws -> Void) rethrows {
        guard let node = xmlTextReaderCurrentNode(reader), node.pointee.type == XML_ELEMENT_NODE else { return }
        var next = node.pointee.properties
        while let attr = next {
            let namespace = attr.pointee.ns.map(uri(of:)) ?? .none
            try body(XMLAttribute(name: XMLName(attr.pointee.name), namespace: namespace, attr: attr))
            next = attr.pointee.next
        }
    }

    /// Reads the text inside the current element and leaves the reader on its end tag.
    ///
    /// Text of nested elements is included (XHTML content); entity references are dropped. Returns nil as
    /// soon as the text exceeds `maxBytes`, without reading further, so a huge element is never held.
    /// The corresponding C function is `xmlTextReaderConstValue`.
    func readText(maxBytes: Int) throws -> String? {
        if isEmptyElement { return "" }
        let startDepth = xmlTextReaderDepth(reader)
        textBuffer.removeAll()
        while try read() {
            let type = xmlTextReaderNodeType(reader)
            if type == Int32(XML_READER_TYPE_END_ELEMENT.rawValue) {
                if xmlTextReaderDepth(reader) == startDepth { break }
            } else if type == Int32(XML_READER_TYPE_TEXT.rawValue)
                || type == Int32(XML_READER_TYPE_CDATA.rawValue)
                || type == Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
                || type == Int32(XML_READER_TYPE_WHITESPACE.rawValue)
            {
                if let value = xmlTextReaderConstValue(reader) {
                    textBuffer.append(value)
                    if textBuffer.count > maxBytes { return nil }
                }
            }
        }
        return textBuffer.trimmedString()
    }

    /// Skips the current element and its subtree; the next `read` returns the node that follows it.
    ///
    /// The corresponding C function is `xmlTextReaderNext`.
    func skipElement() throws {
        if isEmptyElement { return }
        skippedTo = try check(xmlTextReaderNext(reader))
    }
}

/// A file handed to libxml2 chunk by chunk, each chunk scanned for shelf's input limits first.
private final class ScannedInput {
    let fileDescriptor: Int32
    private var scanner = XMLLimitScanner()
    /// The limit the input passed; once set, libxml2 gets no more bytes.
    private(set) var violation: XMLLimitScanner.Violation?

    init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Fills `buffer` with up to `length` bytes of the file; -1 on a read error or once a limit is passed.
    ///
    /// The corresponding C type is `xmlInputReadCallback`.
    func read(into buffer: UnsafeMutablePointer<CChar>, _ length: Int32) -> Int32 {
        if violation != nil { return -1 }
        var count: Int
        repeat { count = Foundation.read(fileDescriptor, buffer, Int(length)) } while count < 0 && errno == EINTR
        guard count > 0 else { return Int32(count) }
        do throws(XMLLimitScanner.Violation) {
            try scanner.scan(UnsafeRawBufferPointer(start: buffer, count: count))
        } catch {
            violation = error
            return -1
        }
        return Int32(count)
    }
}
