import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The disk a path is on: its mount point and free space, so a full disk is named as the disk it is.
public enum DiskSpace {
    /// The mount point of the file system holding `path` (or its nearest existing ancestor): the last directory
    /// going up whose device is still the path's. The corresponding C function is `stat`.
    public static func mountPoint(of path: String) -> String {
        var current = URL(fileURLWithPath: path).standardizedFileURL
        var info = stat()
        while stat(current.path, &info) != 0 {
            guard current.path != "/" else { return "/" }
            current.deleteLastPathComponent()
        }
        let device = info.st_dev
        while current.path != "/" {
            let parent = current.deletingLastPathComponent()
            var parentInfo = stat()
            guard stat(parent.path, &parentInfo) == 0, parentInfo.st_dev == device else { break }
            current = parent
        }
        return current.path
    }

    /// Whether the file system holding `path` has less than 1 MB left: what an I/O error there most likely means.
    public static func isNearlyFull(_ path: String) -> Bool {
        var existing = URL(fileURLWithPath: path)
        while !FileManager.default.fileExists(atPath: existing.path) && existing.path != "/" { existing.deleteLastPathComponent() }
        return (available(at: existing.path) ?? .max) < 1_048_576
    }

    /// Bytes an unprivileged process may still write on the file system holding `path`, or nil when it cannot
    /// be asked. The corresponding C function is `statvfs`.
    public static func available(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
