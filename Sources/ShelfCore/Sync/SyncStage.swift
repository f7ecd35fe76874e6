import Foundation
import Glibc

/// A fetched page's document as the fetcher reads it: a file the body was spilled to, or bytes in memory.
struct StagedDocument: Sendable {
    /// The document on disk; nil when it is held in memory.
    var file: URL?
    var baseURL: URL
    var contentType: String?
}

/// The pages a sync fetched, in feed order, kept on disk while the network is in use. The catalog's write lock is
/// taken only once every page has been read, to apply them (`SyncEngine`): the patron's commands never wait for
/// the network. Each page is parsed once, as it arrives: what is kept is its entries as they were read
/// (`EntryCodec`), not its document. The directory is private to the process and removed when the stage goes.
final class SyncStage: @unchecked Sendable {
    /// What one page of the feeds came to, in the order the fetcher read them.
    enum Page: Sendable {
        case fetched(
            kind: FeedKind, url: String, position: Int, etag: String?, lastModified: String?, entries: URL, end: End?)
        case notModified(kind: FeedKind, url: String, position: Int)
    }

    /// What the fetcher said at a page's end.
    struct End: Sendable {
        var info: OPDSFeedInfo
        var count: Int
        var navigation: [String]
        var digest: Int64
    }

    let directory: URL
    private var count = 0
    private(set) var pages: [Page] = []
    /// What the fetch ended with.
    private(set) var finished: (crawlable: String?, shelf: String?, crawl: CrawlReport?)?

    /// Made while the sync lock is held: any other stage of this home is what a killed sync left, and goes.
    init(home: Home) throws {
        let stale = (try? FileManager.default.contentsOfDirectory(atPath: home.temporary.path)) ?? []
        for name in stale where name.hasPrefix("sync-stage-") {
            try? FileManager.default.removeItem(at: home.temporary.appendingPathComponent(name))
        }
        directory = home.temporary.appendingPathComponent("sync-stage-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.files("cannot make \(directory.path) to keep the fetched pages in: "
                + "\(error.localizedDescription); fix its folder's permissions and sync again (nothing was changed)")
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A new file for the next page's entries. Only the fetcher's thread calls it.
    func entriesFile() throws -> EntriesFile {
        count += 1
        return try EntriesFile(directory.appendingPathComponent("page-\(count)"))
    }

    /// Notes what the fetcher handed on.
    func note(_ event: FetchEvent) {
        switch event {
        case .page(let kind, let url, let position, let etag, let lastModified, let entries?):
            pages.append(.fetched(
                kind: kind, url: url, position: position, etag: etag, lastModified: lastModified, entries: entries,
                end: nil))
        case .pageEnd(let info, let count, let navigation, let digest):
            guard case .fetched(let kind, let url, let position, let etag, let lastModified, let entries, nil)? =
                pages.last
            else { return }
            pages[pages.count - 1] = .fetched(
                kind: kind, url: url, position: position, etag: etag, lastModified: lastModified, entries: entries,
                end: End(info: info, count: count, navigation: navigation, digest: digest))
        case .notModified(let kind, let url, let position):
            pages.append(.notModified(kind: kind, url: url, position: position))
        case .finished(let crawlable, let shelf, let crawl):
            finished = (crawlable, shelf, crawl)
        case .page, .entries, .failed:
            break
        }
    }

    /// Hands the staged pages on, in order, into `channel` as the fetcher first read them, entries included: what
    /// applies them cannot tell a replay from a fetch.
    func replay(into channel: FetchChannel) {
        do {
            for page in pages {
                switch page {
                case .notModified(let kind, let url, let position):
                    guard channel.put(.notModified(kind: kind, url: url, position: position)) else { return }
                case .fetched(let kind, let url, let position, let etag, let lastModified, let entries, let end):
                    // A page without an end is one whose reading failed: the fetch stopped there.
                    guard let end else { continue }
                    guard channel.put(.page(
                        kind: kind, url: url, position: position, etag: etag, lastModified: lastModified, staged: nil))
                    else { return }
                    guard try EntriesFile.read(entries, batch: FeedFetcher.batchSize, into: { batch in
                        channel.put(.entries(batch.map(EntryRecord.init)))
                    }) else { return }
                    guard channel.put(.pageEnd(end.info, count: end.count, navigation: end.navigation, idsDigest: end.digest))
                    else { return }
                }
            }
            let (crawlable, shelf, crawl) = finished ?? (nil, nil, nil)
            _ = channel.put(.finished(crawlable: crawlable, shelf: shelf, crawl: crawl))
        } catch {
            _ = channel.put(.failed(error))
        }
    }
}

/// One page's entries on disk, each as its length and `EntryCodec` bytes; written in blocks of about 256 KB, read
/// back a block at a time, so that a page of any size never sits whole in memory. (Blocks of a megabyte took a sync's
/// peak memory past 64 MB at 300,000 titles; a block is still many entries, so its writes stay few.)
final class EntriesFile {
    let url: URL
    private let descriptor: Int32
    private var writer = EntryCodec.Writer(capacity: EntriesFile.block + 16 * 1024)
    private var record = EntryCodec.Writer(capacity: 8 * 1024)
    static let block = 256 << 10

    init(_ url: URL) throws {
        self.url = url
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure(url, errno) }
    }

    deinit { close(descriptor) }

    func append(_ entry: OPDSEntry) throws {
        record.removeAll()
        record.write(entry)
        writer.append(record)
        if writer.bytes.count >= Self.block { try flush() }
    }

    /// Writes what is left; the file is then whole.
    func finish() throws { try flush() }

    private func flush() throws {
        var written = 0
        let bytes = writer.bytes
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure(url, errno)
            }
            written += count
        }
        writer.removeAll()
    }

    /// Keeping a page is this computer's doing (a full disk, a folder it cannot write): said as itself, not as a
    /// failure of the library's page.
    private static func failure(_ url: URL, _ code: Int32) -> StoreError {
        let folder = url.deletingLastPathComponent().path
        if code == ENOSPC || code == EDQUOT || DiskSpace.isNearlyFull(folder) {
            return .diskFull(path: folder, mountPoint: DiskSpace.mountPoint(of: folder))
        }
        return .files("cannot keep a fetched page in \(folder): \(String(cString: strerror(code))); "
            + "fix its folder's permissions and sync again (nothing was changed)")
    }

    /// Reads a file's entries back in batches of `batch` into `body`; false when `body` said to stop.
    static func read(_ url: URL, batch size: Int, into body: ([OPDSEntry]) -> Bool) throws -> Bool {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw changed(url, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: block)
        var filled = 0
        var batch: [OPDSEntry] = []
        batch.reserveCapacity(size)
        var atEnd = false
        while !atEnd {
            if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                throw changed(url, String(cString: strerror(errno)))
            }
            atEnd = count == 0
            filled += count
            // The whole records in the buffer; what is left of one cut by the block's end is moved to the front.
            var stopped = false
            let used: Int
            do {
                used = try buffer.withUnsafeBytes { bytes in
                    var reader = EntryCodec.Reader(UnsafeRawBufferPointer(rebasing: bytes[0..<filled]))
                    while let entry = try reader.readRecord() {
                        batch.append(entry)
                        if batch.count == size {
                            guard body(batch) else {
                                stopped = true
                                break
                            }
                            batch.removeAll(keepingCapacity: true)
                        }
                    }
                    return reader.offset
                }
            } catch {
                throw changed(url, "it holds what this sync did not write")
            }
            if stopped { return false }
            if atEnd && used != filled { throw changed(url, "it ends inside an entry") }
            buffer.withUnsafeMutableBytes { bytes in
                bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + used, byteCount: filled - used)
            }
            filled -= used
        }
        if !batch.isEmpty { guard body(batch) else { return false } }
        return true
    }

    private static func changed(_ url: URL, _ reason: String) -> StoreError {
        .files("cannot read back the page this sync kept in \(url.path) (\(reason)): something changed its folder "
            + "while the sync ran; sync again (nothing was changed)")
    }
}
