import Foundation

/// A page's document as a sync kept it, to be read again when the sync applies what it fetched.
struct StagedDocument: Sendable {
    /// The document on disk; nil when it is held in memory (a fetch without a stage).
    var file: URL?
    var baseURL: URL
    var contentType: String?
}

/// The pages a sync fetched, in feed order, kept on disk while the network is in use. The catalog's write lock is
/// taken only once every page has been read, to apply them (`SyncEngine`): the patron's commands never wait for
/// the network. The directory is private to the process and removed when the stage goes.
final class SyncStage: @unchecked Sendable {
    /// What one page of the feeds came to, in the order the fetcher read them.
    enum Page: Sendable {
        case fetched(kind: FeedKind, url: String, position: Int, etag: String?, lastModified: String?, StagedDocument)
        case notModified(kind: FeedKind, url: String, position: Int)
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

    /// Keeps a response's body: a body spilled to a file is moved here, one held in memory is written.
    func keep(_ response: HTTPResponse, baseURL: URL, contentType: String?) throws -> StagedDocument {
        count += 1
        let file = directory.appendingPathComponent("page-\(count)")
        do {
            if let spilled = response.bodyFile {
                try FileManager.default.moveItem(at: spilled, to: file)
            } else {
                try response.body.write(to: file)
            }
        } catch {
            if DiskSpace.isNearlyFull(directory.path) {
                throw StoreError.diskFull(path: directory.path, mountPoint: DiskSpace.mountPoint(of: directory.path))
            }
            throw StoreError.files("cannot keep a fetched page in \(directory.path): \(error.localizedDescription); "
                + "fix its folder's permissions and sync again (nothing was changed)")
        }
        return StagedDocument(file: file, baseURL: baseURL, contentType: contentType)
    }

    /// Notes what the fetcher handed on; entries are not kept (the stage reads them again from the documents).
    func note(_ event: FetchEvent) {
        switch event {
        case .page(let kind, let url, let position, let etag, let lastModified, let staged?):
            pages.append(.fetched(kind: kind, url: url, position: position, etag: etag, lastModified: lastModified, staged))
        case .notModified(let kind, let url, let position):
            pages.append(.notModified(kind: kind, url: url, position: position))
        case .finished(let crawlable, let shelf, let crawl):
            finished = (crawlable, shelf, crawl)
        case .page, .entries, .pageEnd, .failed:
            break
        }
    }

    /// Reads the staged pages again, in order, into `channel` as the fetcher first handed them on, entries
    /// included: what applies them cannot tell a replay from a fetch.
    func replay(into channel: FetchChannel, bounds: CrawlBounds, crawlLinks: (OPDSFeedInfo) -> [String]) {
        do {
            for page in pages {
                switch page {
                case .notModified(let kind, let url, let position):
                    guard channel.put(.notModified(kind: kind, url: url, position: position)) else { return }
                case .fetched(let kind, let url, let position, let etag, let lastModified, let document):
                    guard channel.put(.page(
                        kind: kind, url: url, position: position, etag: etag, lastModified: lastModified, staged: nil))
                    else { return }
                    let read: (info: OPDSFeedInfo, count: Int, fresh: Int, digest: Int64)?
                    do {
                        read = try FeedFetcher.read(document, kind: kind, bounds: bounds, channel: channel)
                    } catch let error as OPDSParseError {
                        // What only the full read finds (an entry too large) is said as the page's, as when fetched.
                        throw SyncError.page(feed: kind.name, page: position, url: url, reason: FeedError.parse(error))
                    }
                    guard let (info, count, _, digest) = read else { return }
                    guard channel.put(.pageEnd(info, count: count, navigation: crawlLinks(info), idsDigest: digest))
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
