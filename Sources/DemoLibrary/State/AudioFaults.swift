/// Faults the parts of an audiobook can be made to show, for a client's downloader to survive.
///
/// "Once" faults clear themselves after firing on the first matching request.
public struct AudioFaults: Codable, Sendable, Equatable {
    /// Part numbers (from 1) the faults apply to; `nil` means every part.
    public var parts: [Int]?
    /// Send this many body bytes, then close the connection short of Content-Length.
    public var dropAfterBytes: Int?
    /// Drop on every request rather than only the first.
    public var dropEveryTime: Bool
    /// Answer the next request 500 with a problem document.
    public var failOnce: Bool
    /// Answer the next request 429 with `Retry-After: 1`.
    public var rateLimitOnce: Bool
    /// Cap each response at this many bytes per second (a per-connection limit, as CDNs impose).
    public var bytesPerSecond: Int?
    /// The listed parts' bytes differ from before (last byte inverted): new ETag and Last-Modified.
    public var changedParts: [Int]
    /// Content-Length promises this many bytes more than are sent; the connection then closes.
    public var extraContentLength: Int?
    /// After the part's bytes, send filler for ever (until the client hangs up): with a Content-Length of the part
    /// plus `extraContentLength` when that is given, else with none (chunked), as a hostile server would.
    public var endless: Bool
    /// Answer every request with the whole part and 200, Range or not, while still saying `Accept-Ranges: bytes`,
    /// as some servers behind a cache do.
    public var ignoresRanges: Bool
    /// The listed parts answer 404.
    public var missingParts: [Int]
    /// Faults of the response to the listed parts, as for a page (a status, a reset, a redirect loop, HTML…).
    public var response: PageFaults?

    /// Creates a set of faults; the default has none.
    public init(
        parts: [Int]? = nil,
        dropAfterBytes: Int? = nil,
        dropEveryTime: Bool = false,
        failOnce: Bool = false,
        rateLimitOnce: Bool = false,
        bytesPerSecond: Int? = nil,
        changedParts: [Int] = [],
        extraContentLength: Int? = nil,
        missingParts: [Int] = [],
        response: PageFaults? = nil,
        endless: Bool = false,
        ignoresRanges: Bool = false
    ) {
        self.parts = parts
        self.dropAfterBytes = dropAfterBytes
        self.dropEveryTime = dropEveryTime
        self.failOnce = failOnce
        self.rateLimitOnce = rateLimitOnce
        self.bytesPerSecond = bytesPerSecond
        self.changedParts = changedParts
        self.extraContentLength = extraContentLength
        self.missingParts = missingParts
        self.response = response
        self.endless = endless
        self.ignoresRanges = ignoresRanges
    }

    private enum CodingKeys: String, CodingKey {
        case parts, dropAfterBytes, dropEveryTime, failOnce, rateLimitOnce, bytesPerSecond, changedParts
        case extraContentLength, missingParts, response, endless, ignoresRanges
    }

    /// Decodes faults; absent keys mean no such fault.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        parts = try c.decodeIfPresent([Int].self, forKey: .parts)
        dropAfterBytes = try c.decodeIfPresent(Int.self, forKey: .dropAfterBytes)
        dropEveryTime = try c.decodeIfPresent(Bool.self, forKey: .dropEveryTime) ?? false
        failOnce = try c.decodeIfPresent(Bool.self, forKey: .failOnce) ?? false
        rateLimitOnce = try c.decodeIfPresent(Bool.self, forKey: .rateLimitOnce) ?? false
        bytesPerSecond = try c.decodeIfPresent(Int.self, forKey: .bytesPerSecond)
        changedParts = try c.decodeIfPresent([Int].self, forKey: .changedParts) ?? []
        extraContentLength = try c.decodeIfPresent(Int.self, forKey: .extraContentLength)
        missingParts = try c.decodeIfPresent([Int].self, forKey: .missingParts) ?? []
        response = try c.decodeIfPresent(PageFaults.self, forKey: .response)
        endless = try c.decodeIfPresent(Bool.self, forKey: .endless) ?? false
        ignoresRanges = try c.decodeIfPresent(Bool.self, forKey: .ignoresRanges) ?? false
    }

    /// True when parts are served normally.
    public var isEmpty: Bool { self == AudioFaults() }

    /// Whether the per-request faults apply to part `number`.
    func applies(to number: Int) -> Bool { parts.map { $0.contains(number) } ?? true }
}
