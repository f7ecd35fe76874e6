import Foundation

/// Process exit codes, one per kind of failure, documented in shelf(1).
public enum ShelfExit: Int32, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 64
    /// A server sent a document shelf cannot use: malformed XML, not Atom, HTML, a pagination loop, too large.
    case badData = 65
    /// The library or edition named does not exist in the store.
    case notFound = 66
    /// The server could not be reached (offline, DNS, refused, timed out).
    case offline = 68
    /// The server answered with an error status.
    case serverError = 69
    case internalError = 70
    /// The local database is corrupt or cannot be read or written.
    case storeFailure = 74
    /// Another `shelf sync` holds the lock.
    case busy = 75
    /// TLS verification failed, too many redirects, or another protocol violation.
    case protocolError = 76
    /// The server refused access (authentication required or rejected).
    case notPermitted = 77
    /// No library is configured, or the configuration is invalid.
    case configuration = 78
    /// The database is locked by another process for longer than shelf waits.
    case storeLocked = 79
    /// The library refused a loan: the patron's loan limit is reached.
    case loanLimit = 80
    /// The library refused a hold: the patron's hold limit is reached.
    case holdLimit = 81
    /// The title is already on loan or on hold to the patron.
    case alreadyHave = 82
    /// The library does not know the title or loan asked about.
    case serverNotFound = 83
    /// The library only offers sign-in methods shelf cannot use from a terminal.
    case unsupportedAuth = 84
    /// The action does not apply to the title in its current state (borrowing a title already on loan…).
    case notAllowed = 85
    /// The title is protected by DRM shelf does not implement (Findaway, LCP, …), or comes in no format it can use.
    case protectedContent = 86
    /// No audio device could be opened, or the one playing went away.
    case audioDevice = 87
    /// The audiobook's files could not be played (missing, damaged, not audio).
    case playbackFailed = 88
    /// The library asks the patron to sign in (HTTP Basic or Digest, or its authentication document) first.
    case needsSignIn = 89
    /// The URL is not an OPDS catalog (an HTML page, a 404, JSON that is not OPDS), or leads to no title at all.
    case notACatalog = 90
    /// The library's catalog offers no search (`shelf search`).
    case noSearch = 91
    /// `shelf export` could not write its file: FFmpeg failed to read a part or write the m4b.
    case exportFailed = 92
    /// The server has no page at the URL asked for (404, 410): the library's URL is wrong or has moved.
    case noSuchPage = 93
    /// The disk shelf writes to is full, or has too little room for a download to start.
    case diskFull = 94
    /// `shelf doctor` found at least one problem (each printed with its fix).
    case doctorFoundProblems = 95
    /// `shelf schedule` could not enable, write or remove the timer, or cron cannot express the interval.
    case scheduleFailed = 96
    /// `shelf login` to a library that asks for no sign-in: its catalog opens without one and links no
    /// authentication document.
    case nothingToSignIn = 97
    /// The library registry answered with an error, or with something that is not a list of libraries.
    case registryFailed = 98
    /// The desktop keyring that holds the sign-in is locked or not running.
    case keyringUnavailable = 99
}

/// A failure a patron can act on: one lower-case line saying what went wrong and what to do.
public protocol ShelfFailure: Error, CustomStringConvertible {
    var exitCode: ShelfExit { get }
}

/// Why talking to a server failed.
public enum NetworkError: ShelfFailure, Equatable {
    case offline(host: String, reason: String)
    case timedOut(host: String)
    case httpStatus(url: String, status: Int)
    /// 429 Too Many Requests, with how long the server asked to wait (`Retry-After`, `X-RateLimit-Reset`) when it said.
    case rateLimited(url: String, wait: TimeInterval?)
    case tls(host: String, reason: String)
    case tooManyRedirects(url: String)
    case truncated(url: String, reason: String)
    case tooLarge(url: String, limit: Int64)
    case unsupportedURL(String)
    /// A redirect to something that is not a web address (`file:`, `ftp:`…), refused.
    case redirectRefused(from: String, to: String)
    case transfer(url: String, reason: String)
    /// libcurl (opened when the first request is made) could not be loaded: the installation is broken.
    case libraryMissing(String)

    public var exitCode: ShelfExit {
        switch self {
        case .offline, .timedOut: .offline
        case .httpStatus(_, let status):
            switch status {
            case 401, 403: .notPermitted
            case 404, 410: .noSuchPage
            default: .serverError
            }
        case .tls, .tooManyRedirects, .redirectRefused: .protocolError
        case .truncated, .transfer, .rateLimited: .serverError
        case .tooLarge: .badData
        case .unsupportedURL: .usage
        case .libraryMissing: .internalError
        }
    }

    public var description: String {
        switch self {
        case .offline(let host, let reason): "offline: cannot reach \(host) (\(reason)); check the connection and try again"
        case .timedOut(let host): "offline: \(host) did not answer in time; try again later"
        case .httpStatus(let url, let status):
            Self.statusLine(url: url, status: status)
        case .rateLimited(let url, let wait?):
            "\(url) answered 429 Too Many Requests: the library asks shelf to wait \(Self.duration(wait)), until "
                + "\(LocalTime.timestamp(Date().addingTimeInterval(wait))); try again then"
        case .rateLimited(let url, nil):
            "\(url) answered 429 Too Many Requests: the library is limiting requests and did not say for how long; try again later"
        case .tls(let host, let reason): "TLS verification failed for \(host): \(reason); shelf will not connect insecurely"
        case .tooManyRedirects(let url): "too many redirects from \(url); the library's server is misconfigured"
        case .truncated(let url, let reason): "the response from \(url) was cut short (\(reason)); try again"
        case .tooLarge(let url, let limit): "the response from \(url) is larger than \(limit / 1_048_576) MB; refusing it"
        case .unsupportedURL(let url): "not an http(s) URL: \(url)"
        case .redirectRefused(let from, let to):
            "\(Redaction.url(from)) redirects to \(Redaction.url(to)), which is not a web address (http or https); "
                + "shelf does not follow it: the library's server is misconfigured"
        case .libraryMissing(let reason): "\(reason); install Debian's libcurl4 (Scripts/setup does)"
        case .transfer(let url, let reason): "transfer from \(url) failed: \(reason)"
        }
    }
}

extension NetworkError {
    /// Whether another try may succeed: the server was slow, cut the response short, or answered 408, 429 or 5xx.
    /// A host that cannot be reached at all is not retried within a run; the next run tries again.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .truncated, .rateLimited: true
        case .httpStatus(_, let status): Self.isTransient(status: status)
        default: false
        }
    }

    /// Whether an HTTP status is worth another try: timeouts, rate limits and server errors.
    public static func isTransient(status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }

    /// Whether the message names the URL itself, so a caller need not repeat it.
    public var namesURL: Bool {
        switch self {
        case .httpStatus, .rateLimited: true
        default: false
        }
    }

    /// `45 s`, `12 min`, `3 h`.
    static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 120 { return "\(whole) s" }
        if whole < 2 * 3600 { return "\((whole + 59) / 60) min" }
        return "\((whole + 3599) / 3600) h"
    }

    /// What an error status means to a patron: only a server's own failure is worth trying again later.
    private static func statusLine(url: String, status: Int) -> String {
        switch status {
        case 401:
            "\(url) answered 401 Unauthorized: it wants a sign-in shelf does not have; run `shelf login`, or check the library's URL"
        case 403: "\(url) answered 403 Forbidden: the server refuses this account or this page; check the library's URL and your account"
        case 404: "the server has no page at \(url) (404); check the library's URL with `shelf library list`"
        case 410: "the server no longer has a page at \(url) (410); check the library's URL with `shelf library list`"
        default: "server error: \(url) answered \(status) \(HTTPStatus.reason(status)); try again later"
        }
    }
}

/// Short reason phrases for the statuses a patron is likely to see.
enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
