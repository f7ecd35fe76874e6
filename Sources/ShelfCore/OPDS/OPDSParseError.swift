import Foundation

/// Why an OPDS document could not be read.
public enum OPDSParseError: Error, Equatable, Sendable {
    /// The XML is not well-formed; line and column are 1-based.
    case malformed(line: Int, column: Int, message: String)
    /// Well-formed XML whose root is not an Atom feed or entry.
    case notAtom(root: String)
    /// One entry is larger than the parser accepts.
    case entryTooLarge(line: Int, limit: Int)
    /// The document could not be opened or read.
    case unreadable(String)
    /// The server said it sent JSON (or the document starts like JSON) but it does not parse as JSON.
    case notJSON(reason: String)
    /// Well-formed JSON that is neither an OPDS 2 feed nor a publication.
    case wrongShape(reason: String)
    /// An OPDS 2 Authentication document where a catalog feed was expected.
    case authenticationDocument
    /// A JSON document larger than the reader accepts, in bytes.
    case tooLarge(limit: Int)
    /// A JSON document nested deeper than the reader accepts.
    case tooDeep(limit: Int)
    /// A document that passed one of shelf's input limits (XML attributes, depth, name or value length, entries
    /// per page), at the line given when there is one.
    case overLimit(InputLimit, line: Int?)
}

extension OPDSParseError: LocalizedError {
    /// A one-line, lower-case description that says what was wrong and what to do.
    public var errorDescription: String? {
        switch self {
        case .malformed(let line, let column, let message):
            return "the catalog document is not well-formed XML (line \(line), column \(column): \(message)); "
                + "the server may have sent an error page"
        case .notAtom(let root):
            return "expected an OPDS (Atom) feed or entry but found \(root); check that the URL is an OPDS catalog"
        case .entryTooLarge(let line, let limit):
            return "the entry starting at line \(line) is larger than the \(limit)-byte limit; the feed looks broken"
        case .unreadable(let reason):
            return "cannot read the catalog document: \(reason)"
        case .notJSON(let reason):
            return "the catalog sent a document that is not JSON (\(reason)); check the library URL"
        case .wrongShape(let reason):
            return "the catalog sent JSON that is not an OPDS 2 feed (\(reason)); check the library URL"
        case .authenticationDocument:
            return "the URL is the library's sign-in (Authentication for OPDS) document, not a catalog feed; "
                + "use the catalog's own URL"
        case .tooLarge(let limit):
            return "the catalog document is larger than the \(limit / 1_048_576) MB limit; the feed looks broken"
        case .tooDeep(let limit):
            return "the catalog document nests deeper than \(limit) levels; the feed looks broken"
        case .overLimit(let limit, let line):
            return "the catalog document is refused: " + limit.message(line: line)
        }
    }
}
