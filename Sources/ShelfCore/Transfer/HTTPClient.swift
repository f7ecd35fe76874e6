import Foundation

/// A response whose body was written to a file or kept in memory.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header names are lower-cased; the last value wins.
    public var headers: [String: String]
    public var url: String
    /// The body, when the request asked for it in memory.
    public var body: Data
    /// Bytes of body received (after content decoding).
    public var bodyBytes: Int64
    /// Where the body is when it was too large to keep in memory; `body` is then empty.
    public var bodyFile: URL?

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
    /// The response says it is an HTML page (a sign-in, captive-portal or error page where a document was asked for).
    public var isHTML: Bool { Self.isHTML(contentType: header("content-type")) }

    /// Whether a `Content-Type` names an HTML or XHTML page: the one test of every answer shelf reads (catalog pages,
    /// entries, manifests, parts, a URL being added), compared by its bytes without regard to ASCII case.
    public static func isHTML(contentType: String?) -> Bool {
        guard let contentType else { return false }
        return contentType.containsIgnoringASCIICase("text/html")
            || contentType.containsIgnoringASCIICase("application/xhtml")
    }
}

/// Validators from an earlier response, for a conditional GET.
public struct CacheValidators: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// Limits and identity for every request.
public struct HTTPConfiguration: Sendable {
    public var userAgent = "shelf/\(ShelfVersion.current) (+libcurl)"
    public var connectTimeout: Int = 15
    /// A transfer that moves less than `stallRate` bytes a second for this long is abandoned (and may be tried
    /// again): a server dripping a document byte by byte cannot hold an attempt for the whole `totalTimeout`.
    public var stallTimeout: Int = 30
    public var stallRate: Int = 512
    /// The whole request, body included.
    public var totalTimeout: Int = 600
    public var maxRedirects: Int = 5
    /// Whether redirects are followed; off, a 3xx is the answer (its `Location` read by the caller).
    public var followRedirects = true
    /// A body larger than this is refused (a feed page, a document).
    public var maxBodyBytes: Int64 = 512 * 1_048_576
    /// Where requests are logged (never with credentials), or nil.
    public var log: (@Sendable (String) -> Void)?
    /// HTTP Basic or Digest credentials, sent by libcurl with every request to their origin and to no other.
    public var login: HTTPLogin?

    public init() {}
}

/// An HTTP client on libcurl: keep-alive, gzip, bounded redirects, TLS verification on.
///
/// Safe to share between threads: each request takes an idle easy handle of its own, and requests made one
/// after another reuse one handle and its connections.
public final class HTTPClient: Sendable {
    public let configuration: HTTPConfiguration
    private let handles = CurlHandles()

    public init(configuration: HTTPConfiguration = HTTPConfiguration()) {
        self.configuration = configuration
    }

    /// GETs `url`, keeping a 2xx body in memory up to `memoryLimit` bytes and writing a larger one to `file`
    /// (`HTTPResponse.bodyFile`); a non-2xx body is kept in memory (up to 64 KB).
    public func get(
        _ url: URL, headers: [String: String] = [:], validators: CacheValidators? = nil, spillingTo file: URL,
        memoryLimit: Int = 16 * 1_048_576
    ) throws(NetworkError) -> HTTPResponse {
        var lines = headers.map { "\($0.key): \($0.value)" }
        if let etag = validators?.etag { lines.append("If-None-Match: \(etag)") }
        if let modified = validators?.lastModified { lines.append("If-Modified-Since: \(modified)") }
        let sink = SpillSink(
            path: file, url: url.absoluteString, limit: configuration.maxBodyBytes, memoryLimit: memoryLimit)
        defer { sink.close() }
        var response = try run(url: url, method: "GET", headerLines: lines, body: nil, sink: sink)
        response.bodyFile = sink.spilledTo
        return response
    }

    /// Sends a request and keeps the whole body in memory (documents, not feeds): a body past `limit` (64 MB when
    /// not given) is cut off as it arrives, `tooLarge`, so it never fills memory.
    public func request(
        _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil, limit: Int? = nil
    ) throws(NetworkError) -> HTTPResponse {
        let bound = min(configuration.maxBodyBytes, Int64(limit ?? 64 * 1_048_576))
        let sink = MemorySink(limit: bound, url: Redaction.url(url.absoluteString))
        return try run(
            url: url, method: method, headerLines: headers.map { "\($0.key): \($0.value)" }, body: body, sink: sink)
    }

    private func run(
        url: URL, method: String, headerLines: [String], body: Data?, sink: ResponseSink
    ) throws(NetworkError) -> HTTPResponse {
        let urlString = url.absoluteString
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw .unsupportedURL(urlString)
        }
        let host = url.host ?? urlString
        let started = Date()
        let request = CurlRequest(
            url: urlString, method: method, headerLines: headerLines, body: body, configuration: configuration,
            stallTimeout: configuration.stallTimeout, stallRate: configuration.stallRate,
            totalTimeout: configuration.totalTimeout, decodesContent: true)
        try CurlGlobal.ready()
        return try handles.withHandle { easy throws(NetworkError) in
            do throws(CurlFailure) {
                try easy.prepare(request, sink: sink)
            } catch {
                // An option libcurl refused (a TLS setting among them): never send the request without it.
                log(method, urlString, "not sent: \(error)", started)
                throw .transfer(url: urlString, reason: "\(error)")
            }
            do throws(CurlFailure) {
                try easy.perform()
            } catch {
                if let overflow = sink.overflow { throw overflow }
                if let failure = sink.failure { throw failure }
                let bytes = sink.received
                log(method, urlString, "failed after \(bytes) bytes: \(error.message)", started)
                if error.isConnectFailure { throw .offline(host: host, reason: error.message) }
                if error.isTimeout {
                    if bytes > 0 { throw .truncated(url: urlString, reason: "stalled after \(bytes) bytes") }
                    throw .timedOut(host: host)
                }
                if error.isTLS { throw .tls(host: host, reason: error.message) }
                if error.isTooManyRedirects { throw .tooManyRedirects(url: urlString) }
                if error.isCutShort {
                    throw .truncated(url: urlString, reason: "connection closed after \(bytes) bytes: \(error.message)")
                }
                if error.isUnsupportedProtocol {
                    // A redirect to file:, ftp: and the like: name where it led (the request's own URL was http).
                    let target = easy.refusedRedirectTarget(from: urlString)
                    throw target.map { .redirectRefused(from: urlString, to: $0) } ?? .unsupportedURL(urlString)
                }
                throw .transfer(url: urlString, reason: error.message)
            }
            let status: Int
            let finalURL: String?
            do throws(CurlFailure) {
                status = try easy.responseCode()
                finalURL = try easy.effectiveURL()
            } catch {
                throw .transfer(url: urlString, reason: "\(error)")
            }
            let response = HTTPResponse(
                status: status, headers: sink.headers, url: finalURL ?? urlString,
                body: sink.memoryBody, bodyBytes: sink.received, bodyFile: nil)
            log(method, urlString, "\(status) \(sink.received) bytes", started)
            return response
        }
    }

    private func log(_ method: String, _ url: String, _ outcome: String, _ started: Date) {
        guard let log = configuration.log else { return }
        let ms = Int(Date().timeIntervalSince(started) * 1000)
        log("\(method) \(Redaction.url(url)) -> \(outcome) (\(ms) ms)")
    }
}

/// Where a response's headers and body go.
class ResponseSink: CurlSink {
    private var head = ResponseHead()
    var headers: [String: String] { head.headers }
    var received: Int64 = 0
    var overflow: NetworkError?
    var failure: NetworkError?
    var memoryBody: Data { Data() }

    final func header(_ line: Data) { took(head.take(line)) }

    /// Reacts to a header line: a new response (after a redirect) forgets the previous one's body.
    func took(_ line: ResponseHead.Line) {
        if case .status = line { restart() }
    }

    func body(_ bytes: UnsafeRawBufferPointer) -> Bool { false }
    func restart() { received = 0 }
}

/// Keeps the body in memory up to a limit.
final class MemorySink: ResponseSink {
    private var data = Data()
    private let limit: Int64
    private let url: String
    init(limit: Int64, url: String) {
        self.limit = limit
        self.url = url
    }
    override var memoryBody: Data { data }
    override func restart() { super.restart(); data.removeAll(keepingCapacity: true) }
    override func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if received == 0, headers["content-encoding"] == nil, let stated = headers["content-length"].flatMap(Int64.init) {
            // A body stated past the limit is refused before a byte of it is kept; one within it gets its room at
            // once, rather than growing by copies that would hold twice its size.
            if stated > limit {
                overflow = .tooLarge(url: url, limit: limit)
                return false
            }
            if stated > Int64(data.count) { data.reserveCapacity(Int(stated)) }
        }
        received += Int64(bytes.count)
        if received > limit {
            overflow = .tooLarge(url: url, limit: limit)
            return false
        }
        data.append(contentsOf: bytes)
        return true
    }
}

/// Keeps a 2xx body in memory up to a threshold and moves it to a file past that, so a typical feed page
/// never touches the disk and a huge one never fills memory; an error body is kept (64 KB) for the message.
final class SpillSink: ResponseSink {
    private let path: URL
    private let limit: Int64
    private let memoryLimit: Int
    private let url: String
    private var held = Data()
    private var handle: FileHandle?
    private var isError = false

    init(path: URL, url: String, limit: Int64, memoryLimit: Int) {
        self.path = path
        self.limit = limit
        self.memoryLimit = memoryLimit
        self.url = url
    }

    override var memoryBody: Data { held }
    /// Where the body went when it outgrew memory.
    var spilledTo: URL? { handle == nil ? nil : path }

    override func restart() {
        super.restart()
        held.removeAll(keepingCapacity: true)
        if let handle {
            try? handle.close()
            self.handle = nil
        }
    }

    override func took(_ line: ResponseHead.Line) {
        super.took(line)
        switch line {
        case .status(let status):
            isError = !(200..<300).contains(status)
        case .field("content-length", let value) where !isError && handle == nil:
            // Reserve once for the whole page instead of growing the buffer chunk by chunk.
            if let length = Int(value), length <= memoryLimit { held.reserveCapacity(length) }
        default:
            break
        }
    }

    override func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += Int64(bytes.count)
        if received > limit {
            overflow = .tooLarge(url: url, limit: limit)
            return false
        }
        if isError {
            if held.count < 65_536 { held.append(contentsOf: bytes.prefix(65_536 - held.count)) }
            return true
        }
        do {
            if handle == nil && held.count + bytes.count > memoryLimit {
                guard FileManager.default.createFile(atPath: path.path, contents: nil) else {
                    failure = .transfer(url: url, reason: "cannot write \(path.path)")
                    return false
                }
                let handle = try FileHandle(forWritingTo: path)
                try handle.write(contentsOf: held)
                held = Data()
                self.handle = handle
            }
            if let handle {
                try handle.write(contentsOf: Data(bytes))
            } else {
                held.append(contentsOf: bytes)
            }
        } catch {
            failure = .transfer(url: url, reason: "cannot write the response to disk: \(error.localizedDescription)")
            return false
        }
        return true
    }

    func close() { try? handle?.close() }
}

/// Keeps credentials out of logs.
public enum Redaction {
    /// The URL with any user-info and token-like query values replaced.
    public static func url(_ string: String) -> String {
        guard var components = URLComponents(string: string) else { return string }
        if components.user != nil || components.password != nil {
            components.user = "***"
            components.password = nil
        }
        if let items = components.queryItems {
            components.queryItems = items.map { item in
                let name = item.name.lowercased()
                let secret = ["token", "access_token", "password", "pin", "key", "signature", "sig"].contains { name.contains($0) }
                return secret ? URLQueryItem(name: item.name, value: "***") : item
            }
        }
        return components.string ?? string
    }
}
