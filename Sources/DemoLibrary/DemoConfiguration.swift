import Foundation

/// How a demo library server is set up before it starts.
public struct DemoConfiguration: Sendable {
    /// Entries per page of the crawlable feed.
    public var pageSize: Int
    /// Size of a synthetic catalog; `nil` serves the built-in catalog.
    public var generatedEntries: Int?
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
        holdLimit: Int = 3
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
    }

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
    /// Any other type, offered with no way to use it (e.g. `http://librarysimplified.org/authtype/SAML-2.0`).
    case other(type: String)

    /// The flow's `type` in the authentication document.
    public var type: String {
        switch self {
        case .basic: "http://opds-spec.org/auth/basic"
        case .basicToken: "http://thepalaceproject.org/authtype/basic-token"
        case .other(let type): type
        }
    }
}
