import CCurl
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
    /// A transfer that moves less than 1 byte/s for this long is abandoned.
    public var stallTimeout: Int = 30
    /// The whole request, body included.
    public var totalTimeout: Int = 600
    public var maxRedirects: Int = 5
    /// A body larger than this is refused (a feed page, a document).
    public var maxBodyBytes: Int64 = 512 * 1_048_576
    /// Where requests are logged (never with credentials), or nil.
    public var log: (@Sendable (String) -> Void)?

    public init() {}
}

/// An HTTP client on a libcurl easy handle: keep-alive, gzip, bounded redirects, TLS verification on.
///
/// Not thread-safe: one client per thread of work.
public final class HTTPClient {
    public let configuration: HTTPConfiguration
    private let easy = CurlEasy()

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

    /// Sends a request and keeps the whole body in memory (documents, not feeds).
    public func request(
        _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) throws(NetworkError) -> HTTPResponse {
        let sink = MemorySink(limit: min(configuration.maxBodyBytes, 64 * 1_048_576))
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
        easy.reset()
        easy.set(CURLOPT_URL, urlString)
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, 1)
        easy.set(CURLOPT_MAXREDIRS, configuration.maxRedirects)
        // Credentials never follow a redirect to another host.
        easy.set(CURLOPT_UNRESTRICTED_AUTH, 0)
        easy.set(CURLOPT_ACCEPT_ENCODING, "")
        easy.set(CURLOPT_CONNECTTIMEOUT, configuration.connectTimeout)
        easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        easy.set(CURLOPT_LOW_SPEED_TIME, configuration.stallTimeout)
        easy.set(CURLOPT_TIMEOUT, configuration.totalTimeout)
        easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_USERAGENT, configuration.userAgent)
        if let body {
            easy.set(CURLOPT_CUSTOMREQUEST, method)
            easy.setBody(body)
        } else if method == "HEAD" {
            easy.set(CURLOPT_NOBODY, 1)
        } else if method != "GET" {
            easy.set(CURLOPT_CUSTOMREQUEST, method)
        }
        easy.setHeaders(headerLines + ["Expect:"])

        do {
            try easy.perform(sink: sink)
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
            if error.isUnsupportedProtocol { throw .unsupportedURL(urlString) }
            throw .transfer(url: urlString, reason: error.message)
        }
        let status = easy.responseCode
        let response = HTTPResponse(
            status: status, headers: sink.headers, url: easy.effectiveURL ?? urlString,
            body: sink.memoryBody, bodyBytes: sink.received, bodyFile: nil)
        log(method, urlString, "\(status) \(sink.received) bytes", started)
        return response
    }

    private func log(_ method: String, _ url: String, _ outcome: String, _ started: Date) {
        guard let log = configuration.log else { return }
        let ms = Int(Date().timeIntervalSince(started) * 1000)
        log("\(method) \(Redaction.url(url)) -> \(outcome) (\(ms) ms)")
    }
}

/// Where a response's headers and body go.
class ResponseSink: CurlSink {
    private(set) var headers: [String: String] = [:]
    var received: Int64 = 0
    var overflow: NetworkError?
    var failure: NetworkError?
    var memoryBody: Data { Data() }

    func header(_ line: Data) {
        guard let text = String(data: line, encoding: .utf8) ?? String(data: line, encoding: .isoLatin1) else { return }
        if text.hasPrefix("HTTP/") {
            // A new response (after a redirect or a 100 Continue): forget the previous one's headers and body.
            headers = [:]
            restart()
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headers[name] = value
    }

    func body(_ bytes: UnsafeRawBufferPointer) -> Bool { false }
    func restart() { received = 0 }
}

/// Keeps the body in memory up to a limit.
final class MemorySink: ResponseSink {
    private var data = Data()
    private let limit: Int64
    init(limit: Int64) { self.limit = limit }
    override var memoryBody: Data { data }
    override func restart() { super.restart(); data.removeAll(keepingCapacity: true) }
    override func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += Int64(bytes.count)
        if received > limit {
            overflow = .tooLarge(url: "response", limit: limit)
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

    override func header(_ line: Data) {
        super.header(line)
        if line.starts(with: Data("HTTP/".utf8)), let text = String(data: line, encoding: .utf8) {
            let parts = text.split(separator: " ")
            let status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            isError = !(200..<300).contains(status)
        } else if isError == false, handle == nil, line.starts(with: Data("content-length:".utf8)) || line.starts(with: Data("Content-Length:".utf8)) {
            // Reserve once for the whole page instead of growing the buffer chunk by chunk.
            let text = String(decoding: line, as: UTF8.self)
            if let length = Int(text.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""),
                length <= memoryLimit
            {
                held.reserveCapacity(length)
            }
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
