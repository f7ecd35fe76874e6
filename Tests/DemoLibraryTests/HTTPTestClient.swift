import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as it came off the wire: no decompression, no redirects, no caching.
struct RawResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    /// The connection closed before `Content-Length` bytes arrived.
    var cutShort: Bool

    func header(_ name: String) -> String? { headers[name.lowercased()] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A tiny HTTP/1.1 client over a blocking socket on its own thread, so tests see exactly what the
/// server sent (gzip bytes, truncated bodies, dropped connections) without blocking Swift's pool.
enum HTTPTestClient {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func get(_ url: URL, headers: [String: String] = [:]) async throws -> RawResponse {
        try await send("GET", url, headers: headers, body: nil)
    }

    static func post(_ url: URL, json: String) async throws -> RawResponse {
        try await send("POST", url, headers: ["Content-Type": "application/json"], body: Array(json.utf8))
    }

    static func delete(_ url: URL) async throws -> RawResponse {
        try await send("DELETE", url, headers: [:], body: nil)
    }

    static func send(_ method: String, _ url: URL, headers: [String: String], body: [UInt8]?) async throws -> RawResponse {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try sendBlocking(method, url, headers: headers, body: body) })
            }.start()
        }
    }

    /// The same exchange, blocking the calling thread.
    static func sendBlocking(_ method: String, _ url: URL, headers: [String: String] = [:], body: [UInt8]? = nil) throws
        -> RawResponse
    {
        guard let port = url.port else { throw Failure(description: "no port in \(url)") }
        var target = url.path.isEmpty ? "/" : url.path
        if url.absoluteString.split(separator: "?")[0].hasSuffix("/"), !target.hasSuffix("/") { target += "/" }
        if let query = url.query { target += "?" + query }
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if let body { request += "Content-Length: \(body.count)\r\n" }
        request += "\r\n"
        return try exchange(Array(request.utf8) + (body ?? []), port: UInt16(port))
    }

    /// A socket connected to 127.0.0.1:`port`, whose reads wait at most 30 s for the next bytes; the caller closes it.
    static func connectedSocket(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        // A wait for the next bytes, not a bound on the server: under the full suite on two cores a large body
        // (the hostile-annotation cases) has taken over 10 s to arrive.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let failure = Failure(description: "connect failed: errno \(errno)")
            close(fd)
            throw failure
        }
        return fd
    }

    private static func exchange(_ request: [UInt8], port: UInt16) throws -> RawResponse {
        let fd = try connectedSocket(port: port)
        defer { close(fd) }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "send failed") }
            sent += n
        }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { data.append(contentsOf: buffer[0..<n]) } else if n == 0 { break } else {
                if errno == EINTR { continue }
                if errno == ECONNRESET { break }
                throw Failure(description: "recv failed: errno \(errno)")
            }
        }
        return try parse(data)
    }

    private static func parse(_ data: [UInt8]) throws -> RawResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = data.indices.first(where: { data[$0...].starts(with: separator) }) else {
            throw Failure(description: "no complete response head in \(data.count) bytes")
        }
        let head = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(data[(end + 4)...])
        var cutShort = false
        if let length = headers["content-length"].flatMap(Int.init) {
            if body.count < length { cutShort = true } else { body = Array(body.prefix(length)) }
        }
        return RawResponse(status: status, headers: headers, body: body, cutShort: cutShort)
    }
}
