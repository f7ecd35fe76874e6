/// How a demo library server is set up before it starts.
public struct DemoConfiguration: Sendable {
    /// Entries per page of the crawlable feed.
    public var pageSize: Int
    /// Size of a synthetic catalog; `nil` serves the built-in catalog.
    public var generatedEntries: Int?
    /// The demo patron's HTTP Basic username (library card barcode).
    public var username: String
    /// The demo patron's HTTP Basic password (PIN).
    public var password: String
    /// TCP port on 127.0.0.1; 0 picks a free one.
    public var port: Int
    /// Delay before every response, in milliseconds (also a switch on `DemoState`).
    public var delayMilliseconds: Int
    /// The library's name in feeds and the authentication document.
    public var libraryName: String
    /// gzip level for compressed page bodies (1 fastest … 9 smallest).
    public var gzipLevel: Int

    /// Creates a configuration; the defaults serve the built-in catalog on an ephemeral port.
    public init(
        pageSize: Int = 5,
        generatedEntries: Int? = nil,
        username: String = "demo",
        password: String = "1234",
        port: Int = 0,
        delayMilliseconds: Int = 0,
        libraryName: String = "Shelf Demo Library",
        gzipLevel: Int = 6
    ) {
        self.pageSize = pageSize
        self.generatedEntries = generatedEntries
        self.username = username
        self.password = password
        self.port = port
        self.delayMilliseconds = delayMilliseconds
        self.libraryName = libraryName
        self.gzipLevel = gzipLevel
    }
}
