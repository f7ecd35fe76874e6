import Foundation

/// Reads a catalog document in whichever OPDS it is written: OPDS 1 (Atom XML, streamed by `OPDSParser`) or
/// OPDS 2 (JSON). The media type decides when the server names one; otherwise the first byte that is not
/// white space (`{` or `[` is JSON).
public struct FeedDocument: Sendable {
    /// The document's own URL; relative links are resolved against it.
    public var baseURL: URL?
    /// The most navigation links kept in `OPDSFeedInfo.navigation` (see `OPDSParser.maxNavigation`).
    public var maxNavigation = Int.max

    /// A reader resolving relative links against `baseURL`.
    public init(baseURL: URL?) { self.baseURL = baseURL }

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
            let data: Data
            do { data = try Data(contentsOf: file) } catch { throw OPDSParseError.unreadable(error.localizedDescription) }
            return try parseJSON(data, onEntry: onEntry)
        }
        return try opds1.parse(file: file, onEntry: onEntry)
    }

    /// Reads a document held in memory.
    public func parse(data: Data, contentType: String?, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if Self.isJSON(contentType: contentType, firstByte: first) { return try parseJSON(data, onEntry: onEntry) }
        return try opds1.parse(data: data, onEntry: onEntry)
    }

    private func parseJSON(_ data: Data, onEntry: (OPDSEntry) throws -> Void) throws -> OPDSFeedInfo {
        throw OPDSParseError.unreadable("OPDS 2 (JSON) catalogs are not read yet")
    }

    /// Whether a document is JSON: by its media type when it names JSON or XML, else by its first byte.
    static func isJSON(contentType: String?, firstByte: UInt8?) -> Bool {
        if let type = contentType?.lowercased() {
            if type.contains("json") { return true }
            if type.contains("xml") { return false }
        }
        return firstByte == UInt8(ascii: "{") || firstByte == UInt8(ascii: "[")
    }

    private static func firstByte(of file: URL) -> UInt8? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        return head.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
    }
}
