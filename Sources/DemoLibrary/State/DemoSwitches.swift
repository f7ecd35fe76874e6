/// Faults one page of the crawlable feed (or the loans feed, a manifest, an audiobook part) can be made to show.
public struct PageFaults: Codable, Sendable, Equatable {
    /// Answer with this HTTP status (e.g. 404, 500) and a problem document instead of the page.
    public var status: Int?
    /// Answer with `status` only this many times, then serve the page normally (nil: every time).
    public var statusTimes: Int?
    /// Send `Retry-After` with this value (seconds or an HTTP-date) alongside `status`.
    public var retryAfter: String?
    /// Send well-formed HTTP whose body is the page cut in half (Content-Length matches what is sent).
    public var truncate: Bool
    /// Promise the whole page in Content-Length, send this many bytes, then close the connection.
    public var dropConnectionAfterBytes: Int?
    /// Serve an HTML page (`text/html`, or `contentType` when given), as a captive portal or error page would.
    public var html: Bool
    /// Serve well-formed XML that is not Atom (an RSS document) under the OPDS content type.
    public var notAtom: Bool
    /// Point the page's `next` link at this page number (itself or an earlier one makes a loop).
    public var nextPage: Int?
    /// Put one extra entry first on the page with a summary of this many bytes, streamed.
    public var hugeEntryBytes: Int?
    /// Close the connection with a TCP reset before any byte of an answer.
    public var reset: Bool
    /// Send the whole body with a Content-Length this many bytes short of it, then close the connection.
    public var understateContentLength: Int?
    /// Send the body at this many bytes per second.
    public var bytesPerSecond: Int?
    /// Answer 302 to the same address, every time.
    public var redirectLoop: Bool
    /// Send the document as it is, under this Content-Type.
    public var contentType: String?
    /// Answer the bearer token (or a part link's signature) as expired, as often as `statusTimes` allows.
    public var expiredToken: Bool
    /// Answer 302 to this address (a `file:` URL, a name no one should be sent to…), every time.
    public var redirectTo: String?

    /// Creates a set of faults; the default has none.
    public init(
        status: Int? = nil,
        statusTimes: Int? = nil,
        retryAfter: String? = nil,
        truncate: Bool = false,
        dropConnectionAfterBytes: Int? = nil,
        html: Bool = false,
        notAtom: Bool = false,
        nextPage: Int? = nil,
        hugeEntryBytes: Int? = nil,
        reset: Bool = false,
        understateContentLength: Int? = nil,
        bytesPerSecond: Int? = nil,
        redirectLoop: Bool = false,
        contentType: String? = nil,
        expiredToken: Bool = false,
        redirectTo: String? = nil
    ) {
        self.status = status
        self.statusTimes = statusTimes
        self.retryAfter = retryAfter
        self.truncate = truncate
        self.dropConnectionAfterBytes = dropConnectionAfterBytes
        self.html = html
        self.notAtom = notAtom
        self.nextPage = nextPage
        self.hugeEntryBytes = hugeEntryBytes
        self.reset = reset
        self.understateContentLength = understateContentLength
        self.bytesPerSecond = bytesPerSecond
        self.redirectLoop = redirectLoop
        self.contentType = contentType
        self.expiredToken = expiredToken
        self.redirectTo = redirectTo
    }

    private enum CodingKeys: String, CodingKey {
        case status, statusTimes, retryAfter, truncate, dropConnectionAfterBytes, html, notAtom, nextPage, hugeEntryBytes
        case reset, understateContentLength, bytesPerSecond, redirectLoop, contentType, expiredToken, redirectTo
    }

    /// Decodes faults; absent keys mean no such fault.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decodeIfPresent(Int.self, forKey: .status)
        statusTimes = try c.decodeIfPresent(Int.self, forKey: .statusTimes)
        retryAfter = try c.decodeIfPresent(String.self, forKey: .retryAfter)
        truncate = try c.decodeIfPresent(Bool.self, forKey: .truncate) ?? false
        dropConnectionAfterBytes = try c.decodeIfPresent(Int.self, forKey: .dropConnectionAfterBytes)
        html = try c.decodeIfPresent(Bool.self, forKey: .html) ?? false
        notAtom = try c.decodeIfPresent(Bool.self, forKey: .notAtom) ?? false
        nextPage = try c.decodeIfPresent(Int.self, forKey: .nextPage)
        hugeEntryBytes = try c.decodeIfPresent(Int.self, forKey: .hugeEntryBytes)
        reset = try c.decodeIfPresent(Bool.self, forKey: .reset) ?? false
        understateContentLength = try c.decodeIfPresent(Int.self, forKey: .understateContentLength)
        bytesPerSecond = try c.decodeIfPresent(Int.self, forKey: .bytesPerSecond)
        redirectLoop = try c.decodeIfPresent(Bool.self, forKey: .redirectLoop) ?? false
        contentType = try c.decodeIfPresent(String.self, forKey: .contentType)
        expiredToken = try c.decodeIfPresent(Bool.self, forKey: .expiredToken) ?? false
        redirectTo = try c.decodeIfPresent(String.self, forKey: .redirectTo)
    }

    /// True when the page is served normally.
    public var isEmpty: Bool { self == PageFaults() }

    /// The faults this request meets, counting down `statusTimes` (which bounds `status` and `expiredToken`); what
    /// is left stays in `self`.
    mutating func take() -> PageFaults {
        guard let times = statusTimes, status != nil || expiredToken else { return self }
        var now = self
        if times <= 0 { now.status = nil; now.expiredToken = false }
        if times <= 1 {
            status = nil; statusTimes = nil; retryAfter = nil; expiredToken = false
        } else {
            statusTimes = times - 1
        }
        return now
    }
}

/// How a loan's fulfil link is written in the loans feed and the loan's entry.
public enum DemoFulfilLinks: String, Codable, Sendable {
    /// A plain `link` to `…/fulfill`, as a Palace circulation manager writes it.
    case plain
    /// An ODL templated link (`odl:tlink`) to `…/fulfill{?id,checkout_id,patron_id,client_id}`, as an ODL
    /// distributor's feed has it.
    case templated
    /// The templated link, then a plain one to the same fulfilment: a client may follow either.
    case templatedAndPlain
}

/// The fault switches of a running demo library; JSON at `/_demo/switches`.
public struct DemoSwitches: Codable, Sendable, Equatable {
    /// Delay before every response, in milliseconds.
    public var delayMilliseconds: Int
    /// The loans feed comes back with no entries.
    public var emptyLoans: Bool
    /// The loans feed lists every loan and hold twice (a server bug seen in the wild).
    public var duplicateLoans: Bool
    /// Faults by crawlable page number (1 is the first page).
    public var pages: [Int: PageFaults]
    /// Faults of the patron's loans feed.
    public var loans: PageFaults
    /// Faults of every audiobook manifest behind a fulfilment token.
    public var manifests: PageFaults
    /// Manifests state each part's size in bytes (`length`), as some distributors do.
    public var manifestPartLengths: Bool
    /// Packaged audiobooks are served as a zip's first bytes followed by junk: a package no one can read.
    public var damagedPackages: Bool
    /// The crawlable feed never ends: its last page links a next page, and every page past it repeats the last
    /// page's titles and links one more (a server paging for ever).
    public var endlessPages: Bool
    /// With `endlessPages`, every page past the last brings titles never served before (their ids carry the page
    /// number), as a server generating entries for ever would: only a page bound stops a client.
    public var endlessNewTitles: Bool
    /// Borrowing answers 500 with a `cannot-issue-loan` problem document and changes nothing.
    public var borrowFails: Bool
    /// Borrowing answers 200 with an HTML page instead of an entry, and changes nothing.
    public var borrowHTML: Bool
    /// Returning answers 500 with a `remote-integration-failed` problem document and changes nothing.
    public var revokeFails: Bool
    /// The authentication document (also the body of a 401) is JSON cut off in the middle.
    public var malformedAuthDocument: Bool
    /// The OAuth token endpoint (`/oauth/token`) answers 200 with an HTML page, as a captive portal would.
    public var tokenEndpointHTML = false
    /// Faults of audiobook parts, by title id; `"*"` applies to every title without its own entry.
    public var audio: [String: AudioFaults]
    /// The next annotations collection served starts with one malformed annotation of this kind;
    /// serving it turns the switch off.
    public var malformedAnnotation: MalformedAnnotation?

    /// The key of `audio` whose faults a title's parts meet: its own entry, else `"*"`.
    func audioFaultKey(for id: String) -> String { audio[id] != nil ? id : "*" }

    /// Creates switches; the default serves everything normally.
    public init(
        delayMilliseconds: Int = 0,
        emptyLoans: Bool = false,
        pages: [Int: PageFaults] = [:],
        borrowFails: Bool = false,
        borrowHTML: Bool = false,
        revokeFails: Bool = false,
        malformedAuthDocument: Bool = false,
        audio: [String: AudioFaults] = [:],
        malformedAnnotation: MalformedAnnotation? = nil,
        duplicateLoans: Bool = false,
        loans: PageFaults = PageFaults(),
        manifests: PageFaults = PageFaults(),
        manifestPartLengths: Bool = false,
        damagedPackages: Bool = false,
        endlessPages: Bool = false,
        endlessNewTitles: Bool = false
    ) {
        self.endlessPages = endlessPages
        self.endlessNewTitles = endlessNewTitles
        self.manifestPartLengths = manifestPartLengths
        self.damagedPackages = damagedPackages
        self.duplicateLoans = duplicateLoans
        self.loans = loans
        self.manifests = manifests
        self.delayMilliseconds = delayMilliseconds
        self.emptyLoans = emptyLoans
        self.pages = pages
        self.borrowFails = borrowFails
        self.borrowHTML = borrowHTML
        self.revokeFails = revokeFails
        self.malformedAuthDocument = malformedAuthDocument
        self.audio = audio
        self.malformedAnnotation = malformedAnnotation
    }

    private enum CodingKeys: String, CodingKey {
        case delayMilliseconds, emptyLoans, pages, borrowFails, borrowHTML, revokeFails, malformedAuthDocument, audio
        case malformedAnnotation, duplicateLoans, loans, manifests, manifestPartLengths, damagedPackages
        case endlessPages, endlessNewTitles, tokenEndpointHTML
    }

    /// Decodes switches; absent keys take their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        delayMilliseconds = try c.decodeIfPresent(Int.self, forKey: .delayMilliseconds) ?? 0
        emptyLoans = try c.decodeIfPresent(Bool.self, forKey: .emptyLoans) ?? false
        pages = try c.decodeIfPresent([Int: PageFaults].self, forKey: .pages) ?? [:]
        borrowFails = try c.decodeIfPresent(Bool.self, forKey: .borrowFails) ?? false
        borrowHTML = try c.decodeIfPresent(Bool.self, forKey: .borrowHTML) ?? false
        revokeFails = try c.decodeIfPresent(Bool.self, forKey: .revokeFails) ?? false
        malformedAuthDocument = try c.decodeIfPresent(Bool.self, forKey: .malformedAuthDocument) ?? false
        audio = try c.decodeIfPresent([String: AudioFaults].self, forKey: .audio) ?? [:]
        malformedAnnotation = try c.decodeIfPresent(MalformedAnnotation.self, forKey: .malformedAnnotation)
        duplicateLoans = try c.decodeIfPresent(Bool.self, forKey: .duplicateLoans) ?? false
        loans = try c.decodeIfPresent(PageFaults.self, forKey: .loans) ?? PageFaults()
        manifests = try c.decodeIfPresent(PageFaults.self, forKey: .manifests) ?? PageFaults()
        manifestPartLengths = try c.decodeIfPresent(Bool.self, forKey: .manifestPartLengths) ?? false
        damagedPackages = try c.decodeIfPresent(Bool.self, forKey: .damagedPackages) ?? false
        endlessPages = try c.decodeIfPresent(Bool.self, forKey: .endlessPages) ?? false
        endlessNewTitles = try c.decodeIfPresent(Bool.self, forKey: .endlessNewTitles) ?? false
        tokenEndpointHTML = try c.decodeIfPresent(Bool.self, forKey: .tokenEndpointHTML) ?? false
    }
}

/// Requests the server has answered, by request target (`/crawlable?page=2`).
public struct DemoRequestStats: Codable, Sendable, Equatable {
    /// All requests.
    public var requests: [String: Int] = [:]
    /// Requests carrying `If-None-Match` or `If-Modified-Since`.
    public var conditional: [String: Int] = [:]
    /// Requests answered 304 Not Modified.
    public var notModified: [String: Int] = [:]
    /// Requests to the token endpoint, `/patrons/me/token/`.
    public var tokenRequests = 0
    /// Bearer tokens issued.
    public var tokensIssued = 0
    /// Requests to protected routes carrying `Authorization: Basic`.
    public var basicRequests = 0
    /// Requests to protected routes carrying `Authorization: Bearer`.
    public var bearerRequests = 0
    /// Requests for audiobook parts, by `<title id>/<part number>` (numbered from 1).
    public var partRequests: [String: Int] = [:]
    /// Requests for audiobook parts in the order they came, as `<title id>/<part number>`.
    public var partRequestOrder: [String] = []
    /// Part requests carrying a `Range` header, by `<title id>/<part number>`.
    public var partRangeRequests: [String: Int] = [:]
    /// Body bytes of parts actually written to the wire, by `<title id>/<part number>`.
    public var partBytesSent: [String: Int] = [:]
    /// Fulfilment tokens issued by `/works/{id}/fulfill`.
    public var fulfilmentTokensIssued = 0
    /// Browser sign-ins begun (SAML and OpenID Connect redirects to an identity provider).
    public var signInsBegun = 0
    /// OAuth token requests (`/oauth/token`), by grant type.
    public var oauthTokenRequests: [String: Int] = [:]

    /// Creates empty statistics.
    public init() {}

    /// Sums a table over every target whose path (before `?`) is `path`, or the exact target if it has a query.
    public static func total(_ table: [String: Int], for target: String) -> Int {
        if target.contains("?") { return table[target] ?? 0 }
        return table.reduce(0) { sum, item in
            let path = item.key.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            return path == target ? sum + item.value : sum
        }
    }
}
