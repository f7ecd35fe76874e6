import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive advisory lock on a file (flock), released when the lock is dropped or the process dies.
public final class FileLock {
    private let descriptor: Int32
    public let path: URL

    /// Waits up to `timeout` seconds for the lock; returns nil when another process still holds it.
    public static func acquire(_ path: URL, timeout: TimeInterval) throws(StoreError) -> FileLock? {
        let descriptor = open(path.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let failure = errno
            // A lock is taken to write: in a home that cannot be written, that is what to say.
            var folder = path.deletingLastPathComponent()
            if failure == EACCES || failure == EROFS || failure == EPERM, Home(directory: folder).isReadOnly {
                // Locks live in the home or in its tmp folder: the home is what the patron knows.
                if !FileManager.default.fileExists(atPath: Home(directory: folder).database.path) {
                    folder = folder.deletingLastPathComponent()
                }
                throw .readOnlyHome(path: folder.path, needsUpgrade: false)
            }
            throw .cannotOpen(path: path.path, reason: String(cString: strerror(failure)))
        }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw .cannotOpen(path: path.path, reason: reason)
            }
            if Date() >= deadline {
                close(descriptor)
                return nil
            }
            usleep(100_000)
        }
        // The holder's pid helps a patron find a stuck run.
        _ = ftruncate(descriptor, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(descriptor, $0, strlen($0)) }
        return FileLock(descriptor: descriptor, path: path)
    }

    /// The pid written by the current holder, if readable.
    public static func holder(of path: URL) -> Int32? {
        guard let text = try? String(contentsOf: path, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private init(descriptor: Int32, path: URL) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
