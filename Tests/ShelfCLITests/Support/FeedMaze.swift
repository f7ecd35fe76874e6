import Foundation
import Glibc
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1 that answers each GET from a closure: catalogs of any shape a test needs
/// (navigation loops, roots that lead nowhere, a feed linking very many feeds, HTML, 404, 401), with ETags and
/// 304s so conditional GETs are real, and a log of every path asked for.
final class FeedMaze: @unchecked Sendable {
    struct Reply: Sendable {
        var status = 200
        var contentType = "application/atom+xml;profile=opds-catalog;kind=navigation"
        var body = Data()
        var headers: [String: String] = [:]

        static func atom(_ text: String) -> Reply { Reply(body: Data(text.utf8)) }
        static let notFound = Reply(status: 404, contentType: "text/plain", body: Data("not found".utf8))
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    let base: String
    private let socket: Int32
    /// The paths asked for, shared with the serving threads.
    private final class Log: Sendable {
        let paths = Mutex<[String]>([])
    }

    private let requests = Log()
    private let thread: Thread

    /// Starts serving `route(path-and-query)`; nil is a 404. With `basic` (user name and password), every request
    /// without them in HTTP Basic is answered 401 with a Basic challenge, as a catalog behind a sign-in is.
    init(basic: (user: String, password: String)? = nil,
         route: @escaping @Sendable (_ path: String, _ base: String) -> Reply?) throws {
        let authorization = basic.map { "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString() }
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw CalibreServer.Failure("socket failed") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(listener, raw, length) == 0 && getsockname(listener, raw, &length) == 0
            }
        }
        guard bound, listen(listener, 16) == 0 else {
            close(listener)
            throw CalibreServer.Failure("cannot listen on 127.0.0.1")
        }
        let base = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        self.base = base
        socket = listener
        let requests = self.requests
        thread = Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                // A connection of its own thread: a client may keep one idle while it opens another.
                Thread {
                    Self.serve(client, base: base, authorization: authorization, route: route, requests: requests)
                    close(client)
                }.start()
            }
        }
        thread.start()
    }

    /// Every path asked for, in order.
    var paths: [String] { requests.paths.withLock { $0 } }

    func resetLog() { requests.paths.withLock { $0.removeAll() } }

    /// Stops accepting; the serving thread ends at its next accept.
    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    private static func serve(
        _ client: Int32, base: String, authorization: String?, route: (String, String) -> Reply?, requests: Log
    ) {
        // Keep-alive: answer requests on this connection until the client closes it.
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            while buffer.range(of: Data("\r\n\r\n".utf8)) == nil {
                let count = recv(client, &chunk, chunk.count, 0)
                guard count > 0 else { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            let end = buffer.range(of: Data("\r\n\r\n".utf8))!
            let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            buffer = Data(buffer[end.upperBound...])
            let lines = head.components(separatedBy: "\r\n")
            let target = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            var fields: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            requests.paths.withLock { $0.append(target) }
            var reply = route(target, base) ?? .notFound
            if let authorization, fields["authorization"] != authorization {
                reply = Reply(status: 401, contentType: "text/plain", body: Data("sign in".utf8),
                              headers: ["WWW-Authenticate": #"Basic realm="maze""#])
            }
            let tag = "\"\(reply.body.count)-\(reply.body.prefix(4096).hashValue)-\(reply.body.suffix(4096).hashValue)\""
            if reply.status == 200 {
                reply.headers["ETag"] = reply.headers["ETag"] ?? tag
                if fields["if-none-match"] == reply.headers["ETag"] {
                    reply = Reply(status: 304, contentType: reply.contentType, body: Data(), headers: ["ETag": reply.headers["ETag"]!])
                }
            }
            var text = "HTTP/1.1 \(reply.status) \(reply.status == 200 ? "OK" : "Status")\r\n"
            text += "Content-Type: \(reply.contentType)\r\nContent-Length: \(reply.body.count)\r\n"
            for (name, value) in reply.headers { text += "\(name): \(value)\r\n" }
            text += "\r\n"
            var out = Data(text.utf8)
            out.append(reply.body)
            let sent = out.withUnsafeBytes { raw -> Bool in
                var offset = 0
                while offset < raw.count {
                    let count = send(client, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    guard count > 0 else { return false }
                    offset += count
                }
                return true
            }
            guard sent else { return }
        }
    }
}

/// Atom documents for the maze's catalogs.
enum MazeFeed {
    /// A navigation feed: one entry per `(title, href)`, with feed-level `extra` links.
    static func navigation(id: String, title: String, links: [(String, String)], extra: String = "") -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog">
            <id>\(id)</id><title>\(title)</title><updated>2026-01-01T00:00:00Z</updated>\(extra)

            """
        for (index, (name, href)) in links.enumerated() {
            text += """
                <entry><title>\(name)</title><id>\(id):\(index)</id><updated>2026-01-01T00:00:00Z</updated>\
                <link type="application/atom+xml;profile=opds-catalog;kind=acquisition" href="\(href)"/></entry>

                """
        }
        return text + "</feed>\n"
    }

    /// An acquisition feed of single-file books `(id, title)`, with feed-level `extra` links (`next`, …).
    static func books(id: String, _ books: [(String, String)], extra: String = "") -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><id>\(id)</id><title>Books</title>\
            <updated>2026-01-01T00:00:00Z</updated>\(extra)

            """
        for (bookID, title) in books {
            text += """
                <entry><title>\(title)</title><id>\(bookID)</id><updated>2026-01-01T00:00:00Z</updated>\
                <author><name>A. Writer</name></author>\
                <link rel="http://opds-spec.org/acquisition" type="audio/mpeg" href="/files/\(bookID).mp3"/></entry>

                """
        }
        return text + "</feed>\n"
    }
}
