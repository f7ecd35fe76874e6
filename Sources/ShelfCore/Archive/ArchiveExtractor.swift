import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How much an archive may expand before shelf refuses it.
public struct ArchiveLimits: Sendable, Equatable {
    /// Most bytes all entries together may hold once extracted.
    public var maxTotalBytes: Int64
    /// Most entries (files and folders) an archive may hold.
    public var maxEntries: Int
    /// Most uncompressed bytes per compressed byte, for each entry and for the whole archive.
    public var maxCompressionRatio: Int64
    /// Below this many bytes the ratio is not checked: a small file of silence or padding compresses
    /// far better than 200:1 and is harmless, while a bomb has to be large to matter.
    public var ratioExemptBytes: Int64

    /// Limits for audiobooks: 4 GiB, 10,000 entries, 200:1 past the first MiB.
    public init(
        maxTotalBytes: Int64 = 4 << 30, maxEntries: Int = 10_000, maxCompressionRatio: Int64 = 200,
        ratioExemptBytes: Int64 = 1 << 20
    ) {
        self.maxTotalBytes = maxTotalBytes
        self.maxEntries = maxEntries
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioExemptBytes = ratioExemptBytes
    }
}

/// What an extraction put on disk.
public struct ExtractionReport: Sendable, Equatable {
    /// One extracted file.
    public struct File: Sendable, Equatable {
        /// The path below the destination, `/`-separated.
        public var path: String
        /// Bytes written, counted as they were written.
        public var size: Int64

        /// A file at `path` of `size` bytes.
        public init(path: String, size: Int64) {
            self.path = path
            self.size = size
        }
    }

    /// The regular files, in archive order (folders are implied by their paths).
    public var files: [File]
    /// The sum of the files' sizes.
    public var totalBytes: Int64
}

/// Why an archive could not be extracted.
public enum ArchiveError: ShelfFailure, Equatable {
    /// The archive file cannot be opened.
    case unreadable(archive: String, reason: String)
    /// The archive is corrupt, truncated or not a zip or tar.
    case corrupt(archive: String, reason: String)
    /// An entry has an absolute path.
    case absolutePath(entry: String)
    /// An entry has a `..` component.
    case leavesDestination(entry: String)
    /// An entry's name cannot be used on disk.
    case unusableName(entry: String, reason: String)
    /// An entry is a symbolic or hard link.
    case link(entry: String, kind: String, target: String)
    /// An entry is a device, FIFO, socket or something else that is neither file nor folder.
    case specialFile(entry: String, kind: String)
    /// Two entries want the same place on disk, or a file is in the way of a folder.
    case clash(entry: String)
    /// The archive has more entries than allowed.
    case tooManyEntries(limit: Int)
    /// An entry takes the extracted size over the limit.
    case tooLarge(entry: String, limit: Int64)
    /// An entry expands more than the ratio allows.
    case entryRatio(entry: String, limit: Int64)
    /// The archive as a whole expands more than the ratio allows.
    case overallRatio(limit: Int64)
    /// libarchive's own secure-extraction rules refused an entry our checks let through.
    case refused(entry: String, reason: String)
    /// The extracted files could not be written or moved into place.
    case writeFailed(path: String, reason: String)

    /// Hostile or corrupt archives are bad data; local disk problems are store failures.
    public var exitCode: ShelfExit {
        switch self {
        case .unreadable, .writeFailed: .storeFailure
        default: .badData
        }
    }

    /// One line saying what was wrong and what to do.
    public var description: String {
        switch self {
        case .unreadable(let archive, let reason):
            "cannot read the archive \(archive) (\(reason)); download it again"
        case .corrupt(let archive, let reason):
            "\(archive) is not a readable zip or tar archive (\(reason)); download it again"
        case .absolutePath(let entry):
            "archive entry '\(entry)' has an absolute path; refusing the archive"
        case .leavesDestination(let entry):
            "archive entry '\(entry)' leaves the destination; refusing the archive"
        case .unusableName(let entry, let reason):
            "archive entry '\(entry)' has an unusable name (\(reason)); refusing the archive"
        case .link(let entry, let kind, let target):
            "archive entry '\(entry)' is a \(kind) link to '\(target)'; shelf extracts no links, refusing the archive"
        case .specialFile(let entry, let kind):
            "archive entry '\(entry)' is a \(kind), not a file or folder; refusing the archive"
        case .clash(let entry):
            "archive entry '\(entry)' clashes with another entry of the same name; refusing the archive"
        case .tooManyEntries(let limit):
            "the archive has more than \(limit) entries; refusing it"
        case .tooLarge(let entry, let limit):
            "archive entry '\(entry)' takes the archive past \(ByteCountText.of(limit)) uncompressed; refusing it"
        case .entryRatio(let entry, let limit):
            "archive entry '\(entry)' expands more than \(limit):1, like a zip bomb; refusing the archive"
        case .overallRatio(let limit):
            "the archive expands more than \(limit):1 overall, like a zip bomb; refusing it"
        case .refused(let entry, let reason):
            "archive entry '\(entry)' is unsafe to extract (\(reason)); refusing the archive"
        case .writeFailed(let path, let reason):
            "cannot write \(path) (\(reason)); check free space and permissions"
        }
    }
}

/// Byte counts as patrons read them in messages.
enum ByteCountText {
    static func of(_ bytes: Int64) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return "\(bytes) bytes"
    }
}

/// Turns a downloaded zip, tar or tar.gz (a packaged `.audiobook` or a bundle of audio parts) into files on disk.
///
/// Only regular files and folders are extracted. Links of every kind are refused, not only those pointing
/// outside: an audiobook never needs one, and a link followed by a later entry is how extractors get escaped.
/// Every entry is checked by name and type before anything is written, and bytes are counted as they are
/// written, so a bomb is stopped after about a mebibyte rather than after its header's claims.
/// libarchive's secure-extraction flags stay on underneath as a second line of defence.
public struct ArchiveExtractor: Sendable {
    /// The limits every extraction is held to.
    public let limits: ArchiveLimits

    /// An extractor holding archives to `limits`.
    public init(limits: ArchiveLimits = .init()) {
        self.limits = limits
    }

    /// Extracts `archive` so that `destination` becomes a folder holding exactly its files.
    ///
    /// The files are written into a hidden folder beside `destination` and renamed into place only once all
    /// of them are written; an existing `destination` is replaced only then. On any failure the hidden folder
    /// is removed and `destination` is left as it was.
    public func extract(_ archive: URL, into destination: URL) throws -> ExtractionReport {
        let archiveName = archive.lastPathComponent
        guard FileManager.default.isReadableFile(atPath: archive.path) else {
            throw ArchiveError.unreadable(archive: archiveName, reason: "no such file or no permission")
        }
        let parent = destination.deletingLastPathComponent()
        let name = destination.lastPathComponent
        let pid = getpid()
        let staging = parent.appendingPathComponent(".\(name).extracting-\(pid)")
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            // A folder of this name can only be left from a crashed run of an earlier process with our pid.
            try? FileManager.default.removeItem(at: staging)
            try FileManager.default.createDirectory(
                at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        } catch {
            throw ArchiveError.writeFailed(path: staging.path, reason: Self.reason(error))
        }
        do {
            let report = try withPrivateWorkingDirectory(staging) {
                try extractEntries(of: archive.path, archiveName: archiveName, staging: staging)
            }
            try install(staging, at: destination, aside: parent.appendingPathComponent(".\(name).replaced-\(pid)"))
            return report
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    /// Finds a packaged audiobook's `manifest.json` at the top of `directory` or in its single top-level folder.
    public func packagedManifest(in directory: URL) -> URL? {
        let manager = FileManager.default
        let top = directory.appendingPathComponent("manifest.json")
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: top.path, isDirectory: &isDirectory), !isDirectory.boolValue { return top }
        guard let children = try? manager.contentsOfDirectory(atPath: directory.path) else { return nil }
        // Hidden files (macOS's __MACOSX, .DS_Store) do not count against "a single folder".
        let visible = children.filter { !$0.hasPrefix(".") && $0 != "__MACOSX" }
        guard visible.count == 1 else { return nil }
        let folder = directory.appendingPathComponent(visible[0])
        guard manager.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        let nested = folder.appendingPathComponent("manifest.json")
        guard manager.fileExists(atPath: nested.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        return nested
    }

    // MARK: Reading

    /// Runs on the private-directory thread: every name handed to libarchive is relative to `staging`.
    private func extractEntries(of path: String, archiveName: String, staging: URL) throws -> ExtractionReport {
        var files: [ExtractionReport.File] = []
        var total: Int64 = 0
        var entries = 0
        var filePaths = Set<String>()
        var folderPaths = Set<String>()
        var current = ""
        do {
            let session = try ArchiveExtractionSession(archivePath: path)
            while let header = try session.nextEntry() {
                entries += 1
                guard entries <= limits.maxEntries else { throw ArchiveError.tooManyEntries(limit: limits.maxEntries) }
                guard let rawName = header.pathname else {
                    throw ArchiveError.unusableName(entry: "#\(entries)", reason: "the name is not UTF-8")
                }
                current = rawName
                let relative = try Self.sanitisedPath(rawName)
                let isDirectory: Bool
                switch header.kind {
                case .file: isDirectory = false
                case .directory: isDirectory = true
                case .symbolicLink:
                    throw ArchiveError.link(entry: rawName, kind: "symbolic", target: header.linkTarget ?? "")
                case .hardLink:
                    throw ArchiveError.link(entry: rawName, kind: "hard", target: header.linkTarget ?? "")
                case .characterDevice: throw ArchiveError.specialFile(entry: rawName, kind: "character device")
                case .blockDevice: throw ArchiveError.specialFile(entry: rawName, kind: "block device")
                case .fifo: throw ArchiveError.specialFile(entry: rawName, kind: "FIFO")
                case .socket: throw ArchiveError.specialFile(entry: rawName, kind: "socket")
                case .unknown: throw ArchiveError.specialFile(entry: rawName, kind: "file of unknown type")
                }
                // "./" in a tar made with `tar -C folder .` is the destination itself.
                if relative.isEmpty {
                    guard isDirectory else { throw ArchiveError.unusableName(entry: rawName, reason: "the name is empty") }
                    continue
                }
                try Self.claim(relative, isDirectory: isDirectory, entry: rawName, files: &filePaths, folders: &folderPaths)
                if let declared = header.declaredSize, declared > limits.maxTotalBytes - total {
                    throw ArchiveError.tooLarge(entry: rawName, limit: limits.maxTotalBytes)
                }
                let size = try session.writeCurrentEntry(as: relative, isDirectory: isDirectory) { entryBytes, entryCompressed in
                    try check(entry: rawName, entryBytes: entryBytes, entryCompressed: entryCompressed,
                              total: total + entryBytes, totalCompressed: session.compressedPosition)
                }
                if !isDirectory {
                    files.append(.init(path: relative, size: size))
                    total += size
                }
            }
            try session.finish()
        } catch let error as ArchiveLibraryError {
            switch error.side {
            case .reading: throw ArchiveError.corrupt(archive: archiveName, reason: error.message)
            case .writing where error.isLibarchiveRefusal:
                throw ArchiveError.refused(entry: current, reason: error.message)
            case .writing:
                let place = current.isEmpty ? staging.path : staging.appendingPathComponent(current).path
                throw ArchiveError.writeFailed(path: place, reason: error.message)
            }
        }
        return ExtractionReport(files: files, totalBytes: total)
    }

    /// Refuses an entry the moment its counted bytes break a limit, before the block is written.
    private func check(entry: String, entryBytes: Int64, entryCompressed: Int64, total: Int64, totalCompressed: Int64)
        throws
    {
        if total > limits.maxTotalBytes { throw ArchiveError.tooLarge(entry: entry, limit: limits.maxTotalBytes) }
        let ratio = limits.maxCompressionRatio
        if entryBytes > limits.ratioExemptBytes, entryBytes / max(entryCompressed, 1) > ratio {
            throw ArchiveError.entryRatio(entry: entry, limit: ratio)
        }
        if total > limits.ratioExemptBytes, total / max(totalCompressed, 1) > ratio {
            throw ArchiveError.overallRatio(limit: ratio)
        }
    }

    /// The entry's name as a clean relative path (`a/b/c`), or an error naming the rule it breaks.
    static func sanitisedPath(_ name: String) throws -> String {
        guard !name.isEmpty else { throw ArchiveError.unusableName(entry: name, reason: "the name is empty") }
        guard !name.utf8.contains(0) else {
            throw ArchiveError.unusableName(entry: name, reason: "the name contains a NUL byte")
        }
        guard !name.hasPrefix("/") else { throw ArchiveError.absolutePath(entry: name) }
        var components: [Substring] = []
        for component in name.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." { throw ArchiveError.leavesDestination(entry: name) }
            guard component.utf8.count <= 255 else {
                throw ArchiveError.unusableName(entry: name, reason: "a component is longer than 255 bytes")
            }
            components.append(component)
        }
        let path = components.joined(separator: "/")
        guard path.utf8.count < 4096 else {
            throw ArchiveError.unusableName(entry: name, reason: "the path is longer than 4095 bytes")
        }
        return path
    }

    /// Records where an entry goes, refusing one that lands on a file already extracted or runs through one.
    private static func claim(
        _ path: String, isDirectory: Bool, entry: String, files: inout Set<String>, folders: inout Set<String>
    ) throws {
        if files.contains(path) || (!isDirectory && folders.contains(path)) { throw ArchiveError.clash(entry: entry) }
        var ancestor = Substring(path)
        while let slash = ancestor.lastIndex(of: "/") {
            ancestor = ancestor[..<slash]
            if files.contains(String(ancestor)) { throw ArchiveError.clash(entry: entry) }
            folders.insert(String(ancestor))
        }
        if isDirectory { folders.insert(path) } else { files.insert(path) }
    }

    // MARK: Installing

    /// Renames the finished staging folder onto `destination`, keeping the old one until the new one is in.
    private func install(_ staging: URL, at destination: URL, aside: URL) throws {
        var hadOld = false
        // attributesOfItem does not follow a symlink, so even a dangling one at the destination is set aside.
        if (try? FileManager.default.attributesOfItem(atPath: destination.path)) != nil {
            try? FileManager.default.removeItem(at: aside)
            try Self.rename(destination, to: aside)
            hadOld = true
        }
        do {
            try Self.rename(staging, to: destination)
        } catch {
            if hadOld { try? Self.rename(aside, to: destination) }
            throw error
        }
        if hadOld { try? FileManager.default.removeItem(at: aside) }
    }

    /// `rename(2)`, which is atomic on one filesystem, unlike a move that may fall back to copying.
    private static func rename(_ from: URL, to: URL) throws {
        guard Glibc.rename(from.path, to.path) == 0 else {
            throw ArchiveError.writeFailed(path: to.path, reason: String(cString: strerror(errno)))
        }
    }

    private static func reason(_ error: Error) -> String {
        ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription
            ?? (error as NSError).localizedDescription
    }
}
