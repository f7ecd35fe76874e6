import Foundation

/// How a demo library server is set up before it starts.
public struct DemoConfiguration: Sendable {
    /// Entries per page of the crawlable feed.
    public var pageSize: Int
    /// Size of a synthetic catalog; `nil` serves the built-in catalog.
    public var generatedEntries: Int?
    /// With `generatedEntries`, the built-in titles (and their audio) come first, the synthetic ones after.
    public var keepsBuiltInTitles = false
    /// The first patron's HTTP Basic username (library card barcode); the starting shelf is theirs.
    public var username: String
    /// The first patron's HTTP Basic password (PIN).
    public var password: String
    /// Patrons besides the first, each with an empty shelf.
    public var otherPatrons: [DemoAccount]
    /// Whether the first patron starts with an audiobook and an ebook on loan and one hold.
    public var startingShelf: Bool
    /// TCP port on 127.0.0.1; 0 picks a free one.
    public var port: Int
    /// Delay before every response, in milliseconds (also a switch on `DemoState`).
    public var delayMilliseconds: Int
    /// The library's name in feeds and the authentication document.
    public var libraryName: String
    /// gzip level for compressed page bodies (1 fastest … 9 smallest).
    public var gzipLevel: Int
    /// The sign-in flows the authentication document offers, in order.
    public var authFlows: [DemoAuthFlow]
    /// How long a bearer token from `/patrons/me/token/` is valid, in seconds.
    public var tokenLifetime: TimeInterval
    /// How long a new loan runs, in seconds.
    public var loanDuration: TimeInterval
    /// How long a patron has to borrow a copy set aside for their hold, in seconds.
    public var holdReadyDuration: TimeInterval
    /// Loans one patron may have at once.
    public var loanLimit: Int
    /// Holds (waiting or ready) one patron may have at once.
    public var holdLimit: Int
    /// How long a fulfilment token from `/works/{id}/fulfill` opens the manifest, in seconds.
    public var fulfilmentTokenLifetime: TimeInterval
    /// How long the signed part links of a manifest work, in seconds.
    public var partLinkLifetime: TimeInterval
    /// Serve every audiobook part at this size, its audio repeated (for benchmarks); `nil` serves the audio as made.
    public var partBytes: Int?
    /// Give every audiobook this many parts; `nil` gives each 2 to 4, depending on its id.
    public var partCount: Int?
    /// Make every audiobook part this many seconds long; `nil` makes them 2 to 4 seconds.
    public var partSeconds: Int?
    /// The work fulfilled as a packaged audiobook (`application/audiobook+zip`) rather than a manifest.
    public var packagedAudiobookID: String?
    /// The ffmpeg executable that makes the audio; `nil` looks for `ffmpeg` on PATH.
    public var ffmpegPath: String?
    /// Where generated audio is cached across starts; `nil` is `shelf-demo-audio` in the temporary directory.
    public var audioCacheDirectory: URL?

    /// Creates a configuration; the defaults serve the built-in catalog on an ephemeral port to
    /// two patrons, "demo"/"1234" (with the starting shelf) and "other"/"5678".
    public init(
        pageSize: Int = 5,
        generatedEntries: Int? = nil,
        username: String = "demo",
        password: String = "1234",
        otherPatrons: [DemoAccount] = [DemoAccount(username: "other", password: "5678")],
        startingShelf: Bool = true,
        port: Int = 0,
        delayMilliseconds: Int = 0,
        libraryName: String = "Shelf Demo Library",
        gzipLevel: Int = 6,
        authFlows: [DemoAuthFlow] = [.basic, .basicToken],
        tokenLifetime: TimeInterval = 3_600,
        loanDuration: TimeInterval = 21 * 86_400,
        holdReadyDuration: TimeInterval = 3 * 86_400,
        loanLimit: Int = 3,
        holdLimit: Int = 3,
        fulfilmentTokenLifetime: TimeInterval = 3_600,
        partLinkLifetime: TimeInterval = 3_600,
        partBytes: Int? = nil,
        partCount: Int? = nil,
        partSeconds: Int? = nil,
        packagedAudiobookID: String? = DemoConfiguration.builtInPackagedAudiobookID,
        ffmpegPath: String? = nil,
        audioCacheDirectory: URL? = nil
    ) {
        self.pageSize = pageSize
        self.generatedEntries = generatedEntries
        self.username = username
        self.password = password
        self.otherPatrons = otherPatrons
        self.startingShelf = startingShelf
        self.port = port
        self.delayMilliseconds = delayMilliseconds
        self.libraryName = libraryName
        self.gzipLevel = gzipLevel
        self.authFlows = authFlows
        self.tokenLifetime = tokenLifetime
        self.loanDuration = loanDuration
        self.holdReadyDuration = holdReadyDuration
        self.loanLimit = loanLimit
        self.holdLimit = holdLimit
        self.fulfilmentTokenLifetime = fulfilmentTokenLifetime
        self.partLinkLifetime = partLinkLifetime
        self.partBytes = partBytes
        self.partCount = partCount
        self.partSeconds = partSeconds
        self.packagedAudiobookID = packagedAudiobookID
        self.ffmpegPath = ffmpegPath
        self.audioCacheDirectory = audioCacheDirectory
    }

    /// The built-in catalog's packaged audiobook: "The Secret Garden", which can be borrowed.
    public static let builtInPackagedAudiobookID = "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a"


    /// Every patron's credentials, the first patron first.
    public var accounts: [DemoAccount] {
        [DemoAccount(username: username, password: password)] + otherPatrons
    }
}

/// A patron's library card and PIN.
public struct DemoAccount: Codable, Sendable, Hashable {
    /// HTTP Basic username (the library card barcode).
    public var username: String
    /// HTTP Basic password (the PIN).
    public var password: String

    /// Creates credentials.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// A sign-in flow the authentication document can offer.
public enum DemoAuthFlow: Sendable, Hashable {
    /// `http://opds-spec.org/auth/basic`: HTTP Basic on every request.
    case basic
    /// Palace's `http://thepalaceproject.org/authtype/basic-token`: Basic once for a bearer token.
    case basicToken
    /// Palace's SAML 2.0 Web SSO: the browser goes to an identity provider (two are offered) and comes back with a
    /// bearer token in the redirect's query.
    case saml
    /// Palace's OpenID Connect: the same round trip through one OpenID provider.
    case openIDConnect
    /// Authentication for OPDS `oauth/implicit`: an authorisation page redirects back with the token in the fragment.
    case oauthImplicit
    /// Authentication for OPDS `oauth/password`: the card number and PIN posted once to a token endpoint, which
    /// answers an access token that lapses and a refresh token.
    case oauthPassword
    /// Any other type, offered with no way to use it.
    case other(type: String)

    /// The flow's `type` in the authentication document.
    public var type: String {
        switch self {
        case .basic: "http://opds-spec.org/auth/basic"
        case .basicToken: "http://thepalaceproject.org/authtype/basic-token"
        case .saml: "http://librarysimplified.org/authtype/SAML-2.0"
        case .openIDConnect: "http://thepalaceproject.org/authtype/OpenIDConnect"
        case .oauthImplicit: "http://opds-spec.org/auth/oauth/implicit"
        case .oauthPassword: "http://opds-spec.org/auth/oauth/password"
        case .other(let type): type
        }
    }
}
