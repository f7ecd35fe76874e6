import CArchive
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A libarchive call that failed, in libarchive's own words.
struct ArchiveLibraryError: Error, CustomStringConvertible {
    /// Which handle failed: reading means the archive itself is at fault, writing means the disk usually is.
    enum Side: Sendable { case reading, writing }

    var side: Side
    var code: Int32
    /// `archive_errno`: a real errno for disk failures, `ARCHIVE_ERRNO_MISC` (-1) for libarchive's own refusals.
    var errno: Int32
    var message: String

    var description: String { message }

    /// True when libarchive refused on its own judgement (a secure-extraction rule) rather than the OS failing.
    var isLibarchiveRefusal: Bool { side == .writing && errno == -1 }
}

/// What an archive entry is, as far as extraction cares.
enum ArchiveEntryKind: Equatable, Sendable {
    case file, directory, symbolicLink, hardLink, characterDevice, blockDevice, fifo, socket, unknown
}

/// An archive entry's header, read before any of its data.
struct ArchiveEntryHeader: Sendable {
    /// The name as UTF-8, or nil when the archive stores bytes that are not UTF-8.
    var pathname: String?
    var kind: ArchiveEntryKind
    var linkTarget: String?
    /// The size the header claims; never trusted for limits, only used to refuse early.
    var declaredSize: Int64?
}

/// One pass over an archive, writing chosen entries under the current working directory.
///
/// Owns a libarchive reader and an `archive_write_disk` handle and frees both in `deinit`. Names given to
/// `writeCurrentEntry` are relative, so the secure-extraction flags (no `..`, no absolute paths, no writing
/// through symlinks) can all be on: create the session inside `withPrivateWorkingDirectory`.
final class ArchiveExtractionSession {
    private let reader: OpaquePointer
    private let disk: OpaquePointer
    private var entry: OpaquePointer?

    /// libarchive's checks on top of ours. Owners, ACLs, xattrs and file flags are deliberately not restored;
    /// modes are the fixed 0644/0755 that `writeCurrentEntry` sets, under the extraction thread's umask 022.
    static let diskOptions: Int32 =
        ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS

    /// Opens the archive at `path` for reading, detecting zip or tar and any compression filter.
    /// The corresponding C functions are `archive_read_new` and `archive_read_open_filename`.
    init(archivePath path: String) throws {
        guard let reader = archive_read_new(), let disk = archive_write_disk_new() else {
            fatalError("archive_read_new returned NULL (out of memory)")
        }
        self.reader = reader
        self.disk = disk
        archive_read_support_format_zip(reader)
        archive_read_support_format_tar(reader)
        archive_read_support_filter_all(reader)
        try check(archive_write_disk_set_options(disk, Self.diskOptions), disk)
        try check(archive_read_open_filename(reader, path, 64 * 1024), reader)
    }

    deinit {
        archive_read_free(reader)
        archive_write_free(disk)
    }

    /// Every libarchive return code goes through here: success, end of archive and warnings pass through.
    @discardableResult
    private func check(_ code: Int32, _ handle: OpaquePointer) throws -> Int32 {
        if code == ARCHIVE_OK || code == ARCHIVE_EOF || code == ARCHIVE_WARN { return code }
        let message = archive_error_string(handle).map { String(cString: $0) } ?? "libarchive error \(code)"
        throw ArchiveLibraryError(
            side: handle == reader ? .reading : .writing, code: code, errno: archive_errno(handle), message: message)
    }

    /// Bytes of the archive file consumed so far, before decompression. The corresponding C function is
    /// `archive_filter_bytes`.
    var compressedPosition: Int64 { archive_filter_bytes(reader, -1) }

    /// Reads the next entry's header, or nil at the end of the archive. The corresponding C function is
    /// `archive_read_next_header`.
    func nextEntry() throws -> ArchiveEntryHeader? {
        var next: OpaquePointer?
        if try check(archive_read_next_header(reader, &next), reader) == ARCHIVE_EOF { return nil }
        guard let next else { return nil }
        entry = next
        let type = UInt32(archive_entry_filetype(next))
        let kind: ArchiveEntryKind
        if archive_entry_hardlink(next) != nil {
            kind = .hardLink
        } else {
            switch type & CArchive_IFMT {
            case CArchive_IFREG: kind = .file
            case CArchive_IFDIR: kind = .directory
            case CArchive_IFLNK: kind = .symbolicLink
            case CArchive_IFCHR: kind = .characterDevice
            case CArchive_IFBLK: kind = .blockDevice
            case CArchive_IFIFO: kind = .fifo
            case CArchive_IFSOCK: kind = .socket
            default: kind = .unknown
            }
        }
        let name = archive_entry_pathname_utf8(next) ?? archive_entry_pathname(next)
        let target = archive_entry_hardlink_utf8(next) ?? archive_entry_symlink_utf8(next)
            ?? archive_entry_hardlink(next) ?? archive_entry_symlink(next)
        return ArchiveEntryHeader(
            pathname: name.flatMap { String(validatingCString: $0) },
            kind: kind,
            linkTarget: target.map { String(cString: $0) },
            declaredSize: archive_entry_size_is_set(next) != 0 ? archive_entry_size(next) : nil)
    }

    /// Writes the current entry (a file or a directory) at `relativePath`, calling `beforeBlock` with the entry's
    /// size so far including the next block and the compressed bytes consumed for it, so the caller can stop
    /// before anything over a limit reaches the disk. Returns the bytes written.
    /// The corresponding C functions are `archive_write_header`, `archive_read_data_block`,
    /// `archive_write_data_block` and `archive_write_finish_entry`.
    func writeCurrentEntry(
        as relativePath: String, isDirectory: Bool,
        beforeBlock: (_ entryBytes: Int64, _ entryCompressedBytes: Int64) throws -> Void
    ) throws -> Int64 {
        guard let entry else { return 0 }
        archive_entry_copy_pathname(entry, relativePath)
        archive_entry_set_perm(entry, isDirectory ? 0o755 : 0o644)
        // Without a size the disk writer neither pads nor truncates to the header's claim: the file holds
        // exactly the bytes counted below.
        archive_entry_unset_size(entry)
        try check(archive_write_header(disk, entry), disk)
        var written: Int64 = 0
        if !isDirectory {
            let start = compressedPosition
            var buffer: UnsafeRawPointer?
            var size = 0
            var offset: la_int64_t = 0
            while try check(archive_read_data_block(reader, &buffer, &size, &offset), reader) != ARCHIVE_EOF {
                // Sparse entries give offsets past holes: the end of the block is what the file will occupy.
                let end = max(written, offset + Int64(size))
                try beforeBlock(end, compressedPosition - start)
                try check(Int32(clamping: archive_write_data_block(disk, buffer, size, offset)), disk)
                written = end
            }
        }
        try check(archive_write_finish_entry(disk), disk)
        return written
    }

    /// Finishes writing (directory times and modes libarchive defers to the end). The corresponding C function
    /// is `archive_write_close`.
    func finish() throws {
        try check(archive_write_close(disk), disk)
    }
}

/// Runs `body` on a thread of its own whose working directory is `directory`, leaving every other thread's
/// working directory alone, with umask 022 so extracted files get 0644 and folders 0755.
///
/// libarchive's disk writer resolves names against the working directory and, with
/// `ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS`, accepts only relative ones; changing the whole process's directory
/// would break every other thread. The corresponding C functions are `unshare(CLONE_FS)`, `chdir` and `umask`.
func withPrivateWorkingDirectory<T: Sendable>(_ directory: URL, _ body: @escaping @Sendable () throws -> T) throws -> T {
    #if os(Linux)
    let path = directory.path
    return try onThreadOfItsOwn(prepare: {
        guard CArchive_unshare_working_directory() == 0, chdir(path) == 0 else {
            let reason = String(cString: strerror(errno))
            throw ArchiveLibraryError(side: .writing, code: ARCHIVE_FATAL, errno: errno, message: reason)
        }
        umask(0o022)
    }, body)
    #else
    throw ArchiveLibraryError(
        side: .writing, code: ARCHIVE_FATAL, errno: 0, message: "archive extraction needs Linux (unshare)")
    #endif
}

// MARK: - Writing archives (tests and fixtures)

/// Builds zip, tar and tar.gz archives entry by entry, including hostile ones, so tests need no tools.
///
/// Names are written exactly as given: libarchive's writer does not sanitise them, which is the point.
final class ArchiveWriter {
    /// The container and compression to write.
    enum Format: Sendable { case zip, tar, tarGzip }

    private let handle: OpaquePointer

    /// Creates `url` and starts an archive in `format`. The corresponding C functions are `archive_write_new`
    /// and `archive_write_open_filename`.
    init(_ url: URL, format: Format) throws {
        guard let handle = archive_write_new() else { fatalError("archive_write_new returned NULL (out of memory)") }
        self.handle = handle
        switch format {
        case .zip:
            try check(archive_write_set_format_zip(handle))
        case .tar, .tarGzip:
            try check(archive_write_set_format_pax_restricted(handle))
            // Names go in as given bytes: converting them to UTF-8 needs a locale, and tests run in "C".
            try check(archive_write_set_format_option(handle, "pax", "hdrcharset", "BINARY"))
            if format == .tarGzip { try check(archive_write_add_filter_gzip(handle)) }
        }
        try check(archive_write_open_filename(handle, url.path))
    }

    deinit { archive_write_free(handle) }

    private func check(_ code: Int32) throws {
        guard code < ARCHIVE_OK else { return }
        let message = archive_error_string(handle).map { String(cString: $0) } ?? "libarchive error \(code)"
        throw ArchiveLibraryError(side: .writing, code: code, errno: archive_errno(handle), message: message)
    }

    /// Adds one entry: its header, then `size` bytes from `fill`, which writes chunks through `emit`.
    private func add(
        _ name: String, type: UInt32, mode: UInt32, size: Int64, link: String? = nil, hardlink: String? = nil,
        fill: ((_ emit: (Data) throws -> Void) throws -> Void)? = nil
    ) throws {
        guard let entry = archive_entry_new() else { fatalError("archive_entry_new returned NULL (out of memory)") }
        defer { archive_entry_free(entry) }
        archive_entry_copy_pathname(entry, name)
        archive_entry_set_filetype(entry, type)
        archive_entry_set_perm(entry, mode_t(mode))
        archive_entry_set_size(entry, size)
        archive_entry_set_mtime(entry, 1_700_000_000, 0)
        if let link { archive_entry_copy_symlink(entry, link) }
        if let hardlink { archive_entry_copy_hardlink(entry, hardlink) }
        try check(archive_write_header(handle, entry))
        try fill? { chunk in
            let written = chunk.withUnsafeBytes { archive_write_data(handle, $0.baseAddress, $0.count) }
            try check(Int32(clamping: min(written, 0)))
        }
    }

    /// Adds a regular file with `contents`. The corresponding C function is `archive_write_data`.
    func addFile(_ name: String, _ contents: Data, mode: UInt32 = 0o644) throws {
        try add(name, type: CArchive_IFREG, mode: mode, size: Int64(contents.count)) { try $0(contents) }
    }

    /// Adds a regular file of `count` zero bytes, written in 1 MiB chunks so a bomb never sits in memory.
    func addZeros(_ name: String, count: Int64) throws {
        let chunk = Data(count: 1 << 20)
        try add(name, type: CArchive_IFREG, mode: 0o644, size: count) { emit in
            var left = count
            while left > 0 {
                let next = Int(min(left, Int64(chunk.count)))
                try emit(next == chunk.count ? chunk : chunk.prefix(next))
                left -= Int64(next)
            }
        }
    }

    /// Adds a directory entry.
    func addDirectory(_ name: String, mode: UInt32 = 0o755) throws {
        try add(name, type: CArchive_IFDIR, mode: mode, size: 0)
    }

    /// Adds a symbolic link to `target`.
    func addSymlink(_ name: String, to target: String) throws {
        try add(name, type: CArchive_IFLNK, mode: 0o777, size: 0, link: target)
    }

    /// Adds a hard link to `target`.
    func addHardlink(_ name: String, to target: String) throws {
        try add(name, type: CArchive_IFREG, mode: 0o644, size: 0, hardlink: target)
    }

    /// Adds a FIFO entry (tar only).
    func addFIFO(_ name: String) throws {
        try add(name, type: CArchive_IFIFO, mode: 0o644, size: 0)
    }

    /// Adds a character-device entry (tar only).
    func addCharacterDevice(_ name: String) throws {
        try add(name, type: CArchive_IFCHR, mode: 0o666, size: 0)
    }

    /// Writes the end of the archive. The corresponding C function is `archive_write_close`.
    func close() throws {
        try check(archive_write_close(handle))
    }
}
