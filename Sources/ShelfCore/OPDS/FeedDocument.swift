import Foundation

/// Reads a catalog document in whichever OPDS it is written: OPDS 1 (Atom XML, streamed by `OPDSParser`) or
/// OPDS 2 (JSON, read by `OPDS2Parser`). A document starting with `{` or `[` is JSON whatever its media type says;
/// otherwise the media type decides (a "JSON" document that is not JSON gets JSON's error, never "malformed XML").
public struct FeedDocument: Sendable {
    /// The document's own URL; relative links are resolved against it.
    public var baseURL: URL?
    /// The most navigation links kept in `OPDSFeedInfo.navigation` (see `OPDSParser.maxNavigation`).
    public var maxNavigation = Int.max

    /// A reader resolving relative links against `baseURL`.
    public init(baseURL: URL?) { self.baseURL = baseURL }

    private var opds2: OPDS2Parser {
        var parser = OPDS2Parser(baseURL: baseURL)
        parser.maxNavigation = maxNavigation
        return parser
    }

    private var opds1: OPDSParser {
        var parser = OPDSParser(baseURL: baseURL)
        parser.maxNavigation = maxNavigation
        return parser
    }

    /// The media types shelf asks catalog servers for, OPDS 1 first.
    public static let accept =
        "application/atom+xml;profile=opds-catalog, application/opds+json;q=0.95, application/atom+xml;q=0.9, "
        + "application/json;q=0.8, application/xml;q=0.8, */*;q=0.5"

    /// Reads a document held in a file.
    public func parse(file: URL, contentType: String?, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        if Self.isJSON(contentType: contentType, firstByte: Self.firstByte(of: file)) {
            return try opds2.parse(file: file, onEntry: onEntry)
        }
        return try opds1.parse(file: file, onEntry: onEntry)
    }

    /// Reads a document held in memory.
    public func parse(data: Data, contentType: String?, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        if Self.isJSON(contentType: contentType, firstByte: Self.firstByte(of: data)) {
            return try opds2.parse(data: data, onEntry: onEntry)
        }
        return try opds1.parse(data: data, onEntry: onEntry)
    }

    /// Reads the one entry a borrow, revoke or entry-URL response holds (the first, if it is a feed), in either
    /// OPDS; a document without one fails with `notAtom` (OPDS 1) or `wrongShape` (OPDS 2).
    public func parseEntry(data: Data, contentType: String?) throws -> OPDSEntry {
        guard Self.isJSON(contentType: contentType, firstByte: Self.firstByte(of: data)) else {
            return try OPDSParser(baseURL: baseURL).parseEntry(data: data)
        }
        var first: OPDSEntry?
        _ = try OPDS2Parser(baseURL: baseURL).parse(data: data) { entry in
            if first == nil { first = entry }
        }
        guard let first else { throw OPDSParseError.wrongShape(reason: "it holds no publication") }
        return first
    }

    private static func firstByte(of data: Data) -> UInt8? {
        data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
    }

    /// Whether a document is JSON: a first byte of `{` or `[` (no XML document starts so), else a media type that
    /// names JSON.
    static func isJSON(contentType: String?, firstByte: UInt8?) -> Bool {
        if firstByte == UInt8(ascii: "{") || firstByte == UInt8(ascii: "[") { return true }
        return contentType?.lowercased().contains("json") ?? false
    }

    private static func firstByte(of file: URL) -> UInt8? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        return head.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
    }
}
