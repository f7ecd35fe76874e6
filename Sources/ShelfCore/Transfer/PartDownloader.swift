import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One file to fetch: a part of an audiobook.
public struct DownloadPart: Sendable, Equatable {
    public var index: Int
    public var url: URL
    /// The final path; the transfer writes `<destination>.part` and renames it when complete.
    public var destination: URL
    /// Bytes, when the manifest states them.
    public var expectedLength: Int64?
    /// The SHA-256 digest (lower-case hex), when the manifest gives one.
    public var sha256: String?
    public var headers: [String: String]

    public init(
        index: Int, url: URL, destination: URL, expectedLength: Int64? = nil, sha256: String? = nil,
        headers: [String: String] = [:]
    ) {
        self.index = index
        self.url = url
        self.destination = destination
        self.expectedLength = expectedLength
        self.sha256 = sha256
        self.headers = headers
    }
}

/// How parts are fetched. The user agent, connect timeout and redirect limit are the `HTTPConfiguration`'s, as
/// for every other request.
public struct DownloadSettings: Sendable {
    /// Transfers at once.
    public var concurrency = 4
    /// Transfers at once to one host.
    public var perHost = 4
    /// Attempts per part before giving up on transient failures.
    public var maxAttempts = 6
    /// No byte for this long abandons the attempt (and retries).
    public var stallSeconds = 30
    /// Bytes per second for all transfers together, or nil.
    public var limitRate: Int64?
    public var backoffBase: TimeInterval = 0.5
    public var backoffCap: TimeInterval = 30
    public var log: (@Sendable (String) -> Void)?

    public init() {}
}

/// How one part ended.
public enum PartResult: Sendable, Equatable {
    case complete(bytes: Int64)
    /// The URL or its token is no longer accepted (401, 403, 410): fetch new URLs and try again; the bytes
    /// already received are kept.
    case expired(status: Int)
    case failed(reason: String)
}

/// Progress of one part, for a progress bar.
public struct PartProgress: Sendable, Equatable {
    public var index: Int
    public var received: Int64
    public var total: Int64?
}

/// Why a download could not start.
public enum DownloadError: ShelfFailure, Equatable {
    case diskSpace(directory: String, needed: Int64, available: Int64)
    case cannotWrite(path: String, reason: String)

    public var exitCode: ShelfExit { .storeFailure }

    public var description: String {
        switch self {
        case .diskSpace(let directory, let needed, let available):
            "not enough disk space in \(directory): \(needed / 1_048_576) MB needed, \(available / 1_048_576) MB free; free some space and try again"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}

/// Fetches many parts in parallel on libcurl's multi interface, resuming `.part` files with Range and
/// If-Range, retrying transient failures with backoff, and renaming each part into place only when complete.
public final class PartDownloader {
    private let settings: DownloadSettings
    private let configuration: HTTPConfiguration

    /// A downloader whose requests have `configuration`'s identity and limits, as the client's do.
    public init(settings: DownloadSettings = DownloadSettings(), configuration: HTTPConfiguration = HTTPConfiguration()) {
        self.settings = settings
        self.configuration = configuration
    }

    /// Downloads every part; one part's failure never stops the others.
    public func run(_ parts: [DownloadPart], progress: ((PartProgress) -> Void)? = nil) throws -> [Int: PartResult] {
        var results: [Int: PartResult] = [:]
        var pending: [Transfer] = []
        for part in parts {
            if let size = Self.completeSize(part) {
                results[part.index] = .complete(bytes: size)
            } else {
                pending.append(Transfer(part: part))
            }
        }
        try checkDiskSpace(pending.map(\.part))
        let multi = try CurlMulti(maxConnections: settings.concurrency, maxPerHost: settings.perHost)
        var active: [ObjectIdentifier: Transfer] = [:]
        var lastProgress = Date.distantPast
        while !pending.isEmpty || !active.isEmpty {
            let now = Date()
            pending.sort { $0.notBefore < $1.notBefore }
            while active.count < settings.concurrency, let next = pending.first, next.notBefore <= now {
                pending.removeFirst()
                do {
                    try start(next, on: multi)
                    active[ObjectIdentifier(next.easy)] = next
                } catch {
                    results[next.part.index] = .failed(reason: "\(error)")
                }
            }
            if active.isEmpty {
                if let next = pending.first { Thread.sleep(forTimeInterval: min(0.2, max(0.01, next.notBefore.timeIntervalSinceNow))) }
                continue
            }
            for (easy, failure) in try multi.step(timeout: 100) {
                try multi.remove(easy)
                guard let transfer = active.removeValue(forKey: ObjectIdentifier(easy)) else { continue }
                switch finish(transfer, failure: failure) {
                case .done(let result):
                    results[transfer.part.index] = result
                case .retry(let reason, let after):
                    transfer.attempt += 1
                    if transfer.attempt >= settings.maxAttempts {
                        results[transfer.part.index] = .failed(
                            reason: "gave up after \(transfer.attempt) attempts: \(reason)")
                    } else {
                        transfer.notBefore = Date().addingTimeInterval(after ?? backoff(transfer.attempt))
                        settings.log?("part \(transfer.part.index + 1): \(reason); retrying")
                        pending.append(transfer)
                    }
                }
            }
            if let progress, Date().timeIntervalSince(lastProgress) > 0.2 {
                lastProgress = Date()
                for transfer in active.values {
                    progress(PartProgress(index: transfer.part.index, received: transfer.offset + transfer.received,
                                          total: transfer.total))
                }
            }
        }
        return results
    }

    /// Full jitter on an exponential backoff: spreads retries so parts do not hammer a struggling server together.
    private func backoff(_ attempt: Int) -> TimeInterval {
        let ceiling = min(settings.backoffCap, settings.backoffBase * pow(2, Double(attempt - 1)))
        return Double.random(in: 0...ceiling)
    }

    /// A part already in place (and of the expected length, when known).
    private static func completeSize(_ part: DownloadPart) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: part.destination.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return nil }
        if let expected = part.expectedLength, expected != size { return nil }
        return size
    }

    private func checkDiskSpace(_ parts: [DownloadPart]) throws {
        let needed = parts.reduce(Int64(0)) { total, part in
            guard let expected = part.expectedLength else { return total }
            return total + max(0, expected - Transfer.existingBytes(part))
        }
        guard needed > 0, let directory = parts.first?.destination.deletingLastPathComponent() else { return }
        var info = statvfs()
        guard statvfs(directory.path, &info) == 0 else { return }
        let available = Int64(info.f_bavail) * Int64(info.f_frsize)
        // Keep a margin so the rest of the system does not run out because of us.
        if needed + 64 * 1_048_576 > available {
            throw DownloadError.diskSpace(directory: directory.path, needed: needed, available: available)
        }
    }

    private func start(_ transfer: Transfer, on multi: CurlMulti) throws {
        try transfer.open()
        var lines = transfer.part.headers.map { "\($0.key): \($0.value)" }
        if transfer.offset > 0 {
            lines.append("Range: bytes=\(transfer.offset)-")
            if let validator = transfer.validator { lines.append("If-Range: \(validator)") }
        }
        // No total timeout (a part may take long on a slow line) and no content decoding (a Range counts the
        // bytes as stored); larger reads mean fewer callbacks and writes for parts of many megabytes.
        let request = CurlRequest(
            url: transfer.part.url.absoluteString, headerLines: lines, configuration: configuration,
            stallTimeout: settings.stallSeconds, decodesContent: false,
            maxReceiveSpeed: settings.limitRate.map { max(1024, $0 / Int64(max(1, settings.concurrency))) },
            bufferSize: 256 * 1024)
        do {
            try transfer.easy.prepare(request, sink: transfer)
            try multi.add(transfer.easy)
        } catch {
            transfer.easy.detach()
            transfer.close()
            throw error
        }
    }

    private enum Outcome {
        case done(PartResult)
        case retry(String, after: TimeInterval?)
    }

    private func finish(_ transfer: Transfer, failure: CurlFailure?) -> Outcome {
        transfer.easy.detach()
        defer { transfer.close() }
        if let writeFailure = transfer.writeFailure { return .done(.failed(reason: writeFailure)) }
        if let failure {
            if failure.isAbortedByCallback, let restart = transfer.restartReason {
                return .retry(restart, after: 0)
            }
            let transient = failure.isTimeout || failure.isCutShort || failure.isConnectFailure
            return transient ? .retry(failure.message, after: nil) : .done(.failed(reason: failure.message))
        }
        let status = transfer.status
        switch status {
        case 200, 206:
            return complete(transfer)
        case 416:
            // Asked for bytes past the end: complete when what we hold is the whole file.
            if let total = transfer.rangeTotal, total == transfer.offset { return complete(transfer) }
            transfer.discard()
            return .retry("the server refused the range (416); starting the part again", after: 0)
        case 401, 403, 410:
            return .done(.expired(status: status))
        case 408, 429, 500...599:
            return .retry("the server answered \(status)", after: transfer.retryAfter)
        default:
            return .done(.failed(reason: "the server answered \(status) \(HTTPStatus.reason(status))"))
        }
    }

    /// Checks the length and moves the part into place.
    private func complete(_ transfer: Transfer) -> Outcome {
        let size = transfer.offset + transfer.received
        if let total = transfer.total, total != size {
            return .retry("received \(size) of \(total) bytes", after: nil)
        }
        if let expected = transfer.part.expectedLength, expected != size {
            transfer.discard()
            return .done(.failed(reason: "the part has \(size) bytes, the manifest says \(expected)"))
        }
        if let expected = transfer.part.sha256 {
            let actual = (try? SHA256.hex(of: transfer.partFile)) ?? ""
            if actual != expected.lowercased() {
                // Bytes damaged on the way, or a stale partial file: fetch the whole part again.
                transfer.discard()
                return .retry("the part's SHA-256 does not match the manifest", after: nil)
            }
        }
        do {
            try transfer.commit()
        } catch {
            return .done(.failed(reason: "cannot move the part into place: \(error.localizedDescription)"))
        }
        return .done(.complete(bytes: size))
    }
}

/// One part's transfer: its `.part` file, what the server said, and the bytes written this attempt.
private final class Transfer: CurlSink {
    let part: DownloadPart
    let easy = CurlEasy()
    var attempt = 0
    var notBefore = Date.distantPast

    /// Bytes already in the `.part` file when this attempt started.
    var offset: Int64 = 0
    /// Bytes written by this attempt.
    var received: Int64 = 0
    /// ETag (strong) or Last-Modified of the partial file, for If-Range.
    var validator: String?
    private var head = ResponseHead()
    var status: Int { head.status }
    private var headers: [String: String] { head.headers }
    private var handle: FileHandle?
    private var checkedStart = false
    var writeFailure: String?
    var restartReason: String?

    init(part: DownloadPart) { self.part = part }

    var partFile: URL { part.destination.appendingPathExtension("part") }
    private var metaFile: URL { part.destination.appendingPathExtension("part.json") }

    static func existingBytes(_ part: DownloadPart) -> Int64 {
        let path = part.destination.appendingPathExtension("part").path
        return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Opens the `.part` file for appending and reads what an earlier attempt (or run) left.
    func open() throws {
        let directory = part.destination.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DownloadError.cannotWrite(path: directory.path, reason: error.localizedDescription)
        }
        if !FileManager.default.fileExists(atPath: partFile.path) {
            guard FileManager.default.createFile(atPath: partFile.path, contents: nil) else {
                throw DownloadError.cannotWrite(path: partFile.path, reason: "cannot create the file")
            }
        }
        offset = Self.existingBytes(part)
        validator = nil
        if offset > 0, let data = try? Data(contentsOf: metaFile),
            let saved = try? JSONDecoder().decode([String: String].self, from: data),
            saved["path"] == part.url.path
        {
            validator = saved["validator"]
        }
        // Without a validator the partial bytes cannot be trusted to belong to the same file.
        if offset > 0 && validator == nil { try? FileHandle(forWritingTo: partFile).truncate(atOffset: 0); offset = 0 }
        guard let handle = try? FileHandle(forWritingTo: partFile) else {
            throw DownloadError.cannotWrite(path: partFile.path, reason: "cannot open the file")
        }
        _ = try? handle.seekToEnd()
        self.handle = handle
        received = 0
        head = ResponseHead()
        checkedStart = false
        writeFailure = nil
        restartReason = nil
    }

    func close() {
        try? handle?.close()
        handle = nil
    }

    /// Throws the partial file away (the server's copy changed, or it is unusable).
    func discard() {
        close()
        try? FileManager.default.removeItem(at: partFile)
        try? FileManager.default.removeItem(at: metaFile)
    }

    /// Flushes the part and renames it into place.
    func commit() throws {
        try handle?.synchronize()
        close()
        if FileManager.default.fileExists(atPath: part.destination.path) {
            try FileManager.default.removeItem(at: part.destination)
        }
        try FileManager.default.moveItem(at: partFile, to: part.destination)
        try? FileManager.default.removeItem(at: metaFile)
    }

    /// The full size of the file, from Content-Range (206) or Content-Length (200).
    var total: Int64? {
        if status == 206 { return rangeTotal }
        return headers["content-length"].flatMap { Int64($0) }
    }

    /// The `/total` of Content-Range.
    var rangeTotal: Int64? {
        headers["content-range"].flatMap { $0.split(separator: "/").last }.flatMap { Int64($0) }
    }

    var retryAfter: TimeInterval? {
        guard let value = headers["retry-after"] else { return nil }
        if let seconds = TimeInterval(value) { return min(seconds, 300) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { min(max(0, $0.timeIntervalSinceNow), 300) }
    }

    func header(_ line: Data) { head.take(line) }

    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard status == 200 || status == 206 else { return true }
        if !checkedStart {
            checkedStart = true
            if status == 206 {
                // The range must start where our file ends, or the bytes would land in the wrong place.
                let start = headers["content-range"].flatMap { $0.split(separator: " ").last }
                    .flatMap { $0.split(separator: "-").first }.flatMap { Int64($0) }
                if start != offset {
                    restartReason = "the server sent a range starting at \(start ?? -1), not \(offset)"
                    discard()
                    return false
                }
            } else if offset > 0 {
                // A full answer to a range request: the file changed on the server (If-Range) — start over.
                try? handle?.truncate(atOffset: 0)
                offset = 0
            }
            saveValidator()
        }
        // Straight from libcurl's buffer to the file: no copy into a Data per chunk.
        guard let descriptor = handle?.fileDescriptor, var base = bytes.baseAddress else { return bytes.isEmpty }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                let reason = errno == ENOSPC ? "the disk is full" : String(cString: strerror(errno))
                writeFailure = "cannot write \(partFile.lastPathComponent): \(reason)"
                return false
            }
            remaining -= written
            base += written
        }
        received += Int64(bytes.count)
        return true
    }

    /// Remembers what identifies this version of the file, so a later resume asks for the same one.
    private func saveValidator() {
        var value: String?
        if let etag = headers["etag"], !etag.hasPrefix("W/") { value = etag } else { value = headers["last-modified"] }
        guard let value else {
            try? FileManager.default.removeItem(at: metaFile)
            return
        }
        validator = value
        let saved = ["validator": value, "path": part.url.path]
        try? JSONEncoder().encode(saved).write(to: metaFile, options: .atomic)
    }
}
