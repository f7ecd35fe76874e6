import Foundation

/// Whether anything listens on the loopback ports the demo library uses.
public enum Loopback {
    /// Whether something accepts connections on 127.0.0.1 at the URL's port.
    ///
    /// The connection is tried without blocking and waited for 200 ms at most: a blocking connect to a server that
    /// stopped accepting but still holds its socket with a full backlog retries for two minutes, and on the test
    /// process's cooperative threads that stalled every in-process server. No answer in time counts as listening.
    public static func isListening(_ url: URL) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(url.port ?? 0).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, 200) > 0 else { return true }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
        return error == 0
    }

    /// Takes the URL's port on 127.0.0.1 without listening on it, once the server that listened there has let it
    /// go (waiting up to `timeout` seconds): until the returned descriptor is closed, every connection to the port is
    /// refused at once, and no other server can be given it. Nil when the port was not freed in time.
    public static func holdRefusing(_ url: URL, timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            var reuse: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(url.port ?? 0).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            if bound { return descriptor }
            close(descriptor)
            usleep(20_000)
        } while Date() < deadline
        return nil
    }

    /// Waits up to `timeout` seconds for nothing to listen at the URL's port; whether that happened.
    public static func waitUntilClosed(_ url: URL, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !isListening(url) { return true }
            usleep(20_000)
        }
        return false
    }
}
