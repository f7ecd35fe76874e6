import Foundation

/// Why a document from the server could not be used.
public enum FeedError: ShelfFailure {
    case parse(OPDSParseError)
    case html
    case status(Int)

    public var exitCode: ShelfExit { .badData }

    public var description: String {
        switch self {
        case .html: "the server sent an HTML page, not an OPDS feed; check the library URL"
        case .status(let status): "unexpected status \(status)"
        case .parse(let error):
            switch error {
            case .malformed(let line, let column, let message):
                "malformed XML at line \(line), column \(column): \(message)"
            case .notAtom(let root): "not an OPDS/Atom feed (the document's root is <\(root)>)"
            case .entryTooLarge(let line, let limit):
                "an entry at line \(line) is larger than \(limit / 1_048_576) MB; refusing it"
            case .unreadable(let reason): "unreadable document: \(reason)"
            case .notJSON(let reason): "the catalog sent a document that is not JSON (\(reason)); check the library URL"
            case .wrongShape(let reason):
                "the catalog sent JSON that is not an OPDS 2 feed (\(reason)); check the library URL"
            case .authenticationDocument:
                "the URL is the library's sign-in document, not a catalog feed; add the catalog's own URL"
            case .tooLarge(let limit): "the document is larger than \(limit / 1_048_576) MB; refusing it"
            case .tooDeep(let limit): "the document nests deeper than \(limit) levels; refusing it"
            case .overLimit(let limit, let line): limit.message(line: line)
            }
        }
    }
}
