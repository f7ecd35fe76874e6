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
}

/// Streaming OPDS 1.2 reader on libxml2's xmlTextReader (placeholder until the reader lands).
public struct OPDSParser: Sendable {
    public var baseURL: URL?
    public var maxEntryBytes: Int

    public init(baseURL: URL? = nil, maxEntryBytes: Int = 8 << 20) {
        self.baseURL = baseURL
        self.maxEntryBytes = maxEntryBytes
    }

    /// Reads a feed (or a single-entry document) from a file, handing each entry to `onEntry` as it ends.
    public func parse(file: URL, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        throw OPDSParseError.unreadable("not implemented")
    }

    /// Reads a feed (or a single-entry document) held in memory.
    public func parse(data: Data, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        throw OPDSParseError.unreadable("not implemented")
    }
}
