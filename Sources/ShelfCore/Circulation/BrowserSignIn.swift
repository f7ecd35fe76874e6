import Foundation
import ShelfSpawn
#if canImport(Glibc)
import Glibc
#endif

/// A sign-in through the patron's web browser (SAML, OpenID Connect, the OAuth implicit grant): the library's page
/// opens in the browser, and the page sends the browser back to a one-shot listener on 127.0.0.1 with the token.
///
/// The listener takes one answer on `/callback/STATE` (another state is refused, not waited for) and closes at once,
/// or when `timeout` passes. A token in the URL's fragment (the implicit grant), which a browser never sends to a
/// server, is handed over by the small page the listener answers first: its script requests the same address with
/// the fragment as the query. Without a browser (no display, or `SHELF_BROWSER=none`) the address is printed, and
/// the address the browser ended at, or the token alone, may be pasted on standard input instead.
public struct BrowserSignIn {
    /// What came back: the parameters of the redirect's query or fragment, `+` read as a space.
    public typealias Answer = [String: String]

    /// How long to wait for the browser.
    public var timeout: TimeInterval = 300
    /// The program that opens an address (`xdg-open`), with its arguments; nil: print the address only.
    public var browser: [String]?
    /// Lines for the patron (where to go, what to paste).
    public var say: (String) -> Void
    /// Standard input, read for a pasted address or token; nil when it is not to be read.
    public var input: Int32?
    let library: String

    public init(library: String, say: @escaping (String) -> Void) {
        self.library = library
        self.say = say
    }

    /// The browser `SHELF_BROWSER` names (`none`: none), else `xdg-open` where there is a display, else none.
    public static func defaultBrowser(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String]? {
        if let chosen = environment["SHELF_BROWSER"], !chosen.isEmpty {
            return chosen == "none" ? nil : chosen.split(separator: " ").map(String.init)
        }
        let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        return display ? ["xdg-open"] : nil
    }

    /// Runs the sign-in: `start` makes the address to open from the redirect URI shelf listens on (and the state
    /// it carries, for flows that pass one on); the answer the library sent back.
    public func run(start: (_ redirectURI: String, _ state: String) -> URL) throws -> Answer {
        let listener = try Listener()
        defer { listener.close() }
        let state = Self.randomState()
        let redirect = "http://127.0.0.1:\(listener.port)/callback/\(state)"
        let address = start(redirect, state)
        var opened = false
        if let browser, let program = browser.first {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : "/usr/bin/env")
            process.arguments = (program.hasPrefix("/") ? [] : [program]) + browser.dropFirst() + [address.absoluteString]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            opened = (try? process.run()) != nil
        }
        say(opened ? "Opened your browser at the library's sign-in page. If it did not open, go to:" : "Open this address in a web browser to sign in:")
        say("  \(address.absoluteString)")
        let minutes = Int((timeout / 60).rounded(.up))
        say("Waiting up to \(minutes) minute\(minutes == 1 ? "" : "s") for the library to send the browser back"
            + (input == nil ? "." : "; or paste the address the browser ended at (or the token) here:"))
        let deadline = Date().addingTimeInterval(timeout)
        // Standard input is read until it ends; then only the browser can answer.
        var reading = input
        var pasted = Data()
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw CirculationError.browserSignInTimedOut(library: library, minutes: minutes) }
            var fds = [pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)]
            if let reading { fds.append(pollfd(fd: reading, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(left, 3_600) * 1000))
            guard ready > 0 else { continue }
            if fds[0].revents & Int16(POLLIN) != 0, let answer = try listener.serve(state: state, library: library) {
                return answer
            }
            guard fds.count > 1, fds[1].revents & Int16(POLLIN | POLLHUP) != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(fds[1].fd, &buffer, buffer.count)
            if count > 0 { pasted.append(contentsOf: buffer[0..<count]) } else { reading = nil }
            // A whole line, or what was left when the input ended.
            guard let end = pasted.firstIndex(of: 0x0A) ?? (count > 0 ? nil : pasted.endIndex) else { continue }
            let line = String(decoding: pasted[..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            pasted.removeSubrange(..<(end < pasted.endIndex ? end + 1 : end))
            if !line.isEmpty { return try Self.answer(pasted: line, state: state, library: library) }
        }
    }

    /// What a pasted line says: an address (its query or fragment: the one shelf listens on must carry this
    /// sign-in's state), or a token alone.
    static func answer(pasted line: String, state: String, library: String) throws -> Answer {
        guard line.contains("://"), let url = URL(string: line) ?? URL(string: line.replacingOccurrences(of: " ", with: "%20")) else {
            return ["access_token": line]
        }
        if url.host == "127.0.0.1", url.path.hasPrefix("/callback/"), url.lastPathComponent != state {
            throw CirculationError.browserSignInMismatch(library: library, reason: "the address carries another sign-in's state")
        }
        var answer = parameters(url.query ?? "")
        for (key, value) in parameters(url.fragment ?? "") { answer[key] = value }
        guard answer["access_token"] != nil || answer["error"] != nil else {
            throw CirculationError.browserSignInMismatch(library: library, reason: "the pasted address holds neither a token nor an error")
        }
        return answer
    }

    /// `a=1&b=x+y%21` → ["a": "1", "b": "x y!"]: split on the first `=`, `+` a space (Python's `urlencode`).
    public static func parameters(_ text: String) -> Answer {
        var result: Answer = [:]
        for pair in text.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = String(text).replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            result[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }

    static func randomState() -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", random.next() as UInt8) }.joined()
    }

    /// The one-shot HTTP listener on 127.0.0.1.
    final class Listener {
        let socket: Int32
        let port: Int

        init() throws {
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw NetworkError.offline(host: "127.0.0.1", reason: "no socket: \(String(cString: strerror(errno)))") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 4) == 0 else {
                let why = String(cString: strerror(errno))
                Glibc.close(fd)
                throw NetworkError.offline(host: "127.0.0.1", reason: "cannot listen for the browser: \(why)")
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            socket = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        func close() { Glibc.close(socket) }

        /// Accepts one connection and answers it: the parameters of the sign-in's answer, or nil when this request
        /// was not it (a favicon, the fragment relay page) and the browser is still to answer.
        func serve(state: String, library: String) throws -> Answer? {
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else { return nil }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            defer { Glibc.close(connection) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var request = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while request.count < 65_536, request.range(of: Data("\r\n\r\n".utf8)) == nil {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                request.append(contentsOf: buffer[0..<count])
            }
            let line = String(decoding: request.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
            let parts = line.split(separator: " ")
            guard parts.count >= 2, parts[0] == "GET" else {
                respond(connection, status: "405 Method Not Allowed", body: "shelf waits for a GET here.")
                return nil
            }
            let target = String(parts[1])
            let path = String(target.prefix { $0 != "?" })
            let query = target.contains("?") ? String(target[target.index(after: target.firstIndex(of: "?")!)...]) : ""
            guard path.hasPrefix("/callback/") else {
                respond(connection, status: "404 Not Found", body: "Nothing here.")
                return nil
            }
            guard path == "/callback/\(state)" else {
                respond(connection, status: "400 Bad Request", body: "This is not the sign-in shelf is waiting for.")
                throw CirculationError.browserSignInMismatch(library: library, reason: "it came back with another sign-in's state")
            }
            let answer = BrowserSignIn.parameters(query)
            guard answer["access_token"] != nil || answer["error"] != nil else {
                // A token in the fragment: this page's script sends it back as a query.
                respond(connection, status: "200 OK", html: """
                    <!DOCTYPE html><html><head><title>shelf</title></head><body><p id="m">Finishing the sign-in…</p>
                    <script>var h=location.hash.slice(1);if(h){fetch(location.pathname+'?'+h).then(function(){\
                    document.getElementById('m').textContent='Signed in. You can close this tab and go back to shelf.'})}\
                    else{document.getElementById('m').textContent='The library sent nothing back; go back to shelf.'}</script>
                    </body></html>
                    """)
                return nil
            }
            let signedIn = answer["access_token"] != nil
            respond(connection, status: "200 OK", html: """
                <!DOCTYPE html><html><head><title>shelf</title></head><body><p>\(signedIn
                    ? "Signed in. You can close this tab and go back to shelf."
                    : "The library did not sign you in; shelf says why.")</p></body></html>
                """)
            return answer
        }

        private func respond(_ connection: Int32, status: String, body: String) {
            respond(connection, status: status, html: "<!DOCTYPE html><html><body><p>\(body)</p></body></html>")
        }

        private func respond(_ connection: Int32, status: String, html: String) {
            let body = Data(html.utf8)
            let head = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
                + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
            let data = Data(head.utf8) + body
            _ = data.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }
}
