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
    /// Seconds of audio, when the manifest states them: without a stated length, the part may hold at most what
    /// that plays at `DownloadSettings.boundBytesPerSecond`.
    public var duration: Double?
    public var headers: [String: String]

    public init(
        index: Int, url: URL, destination: URL, expectedLength: Int64? = nil, sha256: String? = nil,
        duration: Double? = nil, headers: [String: String] = [:]
    ) {
        self.index = index
        self.url = url
        self.destination = destination
        self.expectedLength = expectedLength
        self.sha256 = sha256
        self.duration = duration
        self.headers = headers
    }

    /// The most bytes the part may hold: its stated length; else what its duration plays at `bytesPerSecond`, with
    /// 16 MB to spare; else `cap`.
    func bound(bytesPerSecond: Int64, cap: Int64) -> Int64 {
        if let expectedLength { return expectedLength }
        if let duration, duration > 0 { return min(cap, Int64(duration * Double(bytesPerSecond)) + 16 * 1_048_576) }
        return cap
    }
}

/// How parts are fetched. The user agent, connect timeout and redirect limit are the `HTTPConfiguration`'s, as
/// for every other request.
public struct DownloadSettings: Sendable {
    /// Transfers at once.
    public var concurrency = 4
    /// Transfers at once to one host.
    public var perHost = 4
    /// When to try a part again; the same policy as catalog pages, with more room.
    public var retry = RetryPolicy.parts
    /// Attempts per part before giving up on transient failures.
    public var maxAttempts: Int {
        get { retry.maxAttempts }
        set { retry.maxAttempts = newValue }
    }
    /// No byte for this long abandons the attempt (and retries).
    public var stallSeconds = 30
    /// The most bytes a part of unknown length and duration may hold (a server sending for ever is cut off here).
    public var partCap: Int64 = 4 * 1_073_741_824
    /// A part of known duration but unknown length may hold what it plays at this rate (2 Mbit/s: more than any
    /// audiobook's codec, lossless FLAC of speech included), with 16 MB to spare.
    public var boundBytesPerSecond: Int64 = 256_000
    /// Free space kept on the disk while a part is written: below it the download stops as on a full disk.
    public var freeSpaceMargin: Int64 = 64 * 1_048_576
    /// A part arriving slower than this many bytes a second over `rateWindow` (a server dripping bytes) is cut off
    /// and tried again, its bytes kept; not under `limitRate`, the patron's own choice of slowness.
    public var minimumRate: Int64 = 1024
    public var rateWindow: TimeInterval = 120
    /// A part must average at least this many bytes a second over all its attempts, after `averageGrace`: its
    /// deadline is `averageGrace` plus what it may hold (`DownloadPart.bound`) at this rate (16 KB/s: about a
    /// minute a megabyte), so a server just above `minimumRate` cannot hold a sync for days. Not under `limitRate`.
    public var minimumAverage: Int64 = 16_384
    public var averageGrace: TimeInterval = 600
    /// Bytes per second for all transfers together, or nil.
    public var limitRate: Int64?
    public var backoffBase: TimeInterval {
        get { retry.base }
        set { retry.base = newValue }
    }
    public var backoffCap: TimeInterval {
        get { retry.cap }
        set { retry.cap = newValue }
    }
    public var log: (@Sendable (String) -> Void)?
    /// Asked often: a signal number (SIGINT, SIGTERM) stops every transfer, keeping the bytes received, and
    /// `run` throws `DownloadError.interrupted`.
    public var stopSignal: (@Sendable () -> Int32?)?
    /// Parts to fetch before the others (the one a player waits for), read each time a transfer starts.
    public var priority: PartPriority?
    /// Told once a download's parts are recorded, before the first of them is asked for: a player that could not
    /// know where it starts before the manifest came sets `priority` here, so the first wave holds its part.
    public var partsRecorded: (@Sendable () -> Void)?
    /// Told how each part ended as soon as it does, while the others still run.
    public var partFinished: (@Sendable (Int, PartResult) -> Void)?

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
    case diskSpace(directory: String, mountPoint: String, needed: Int64, available: Int64, margin: Int64)
    /// A write failed with ENOSPC mid-download; the bytes written so far are kept for a resume.
    case diskFull(path: String, mountPoint: String)
    /// Free space fell below the margin mid-download; the bytes written so far are kept for a resume.
    case spaceKept(path: String, mountPoint: String, available: Int64, margin: Int64)
    case cannotWrite(path: String, reason: String)
    /// A signal stopped the transfers; the `.part` files keep what arrived, for the next run to resume.
    case interrupted(signal: Int32)

    public var exitCode: ShelfExit {
        switch self {
        case .diskSpace, .diskFull, .spaceKept: .diskFull
        case .cannotWrite: .storeFailure
        case .interrupted: .failure
        }
    }

    public var description: String {
        switch self {
        case .diskSpace(let directory, let mountPoint, 0, let available, let margin):
            "not enough room on the disk at \(mountPoint) for \(directory): \(Self.megabytes(available)) free, less than "
                + "the \(Self.megabytes(margin)) shelf keeps free there (--keep-free); free some space there and try again"
        case .diskSpace(let directory, let mountPoint, let needed, let available, let margin):
            "not enough room on the disk at \(mountPoint) for \(directory): \(Self.megabytes(needed)) needed (with "
                + "\(Self.megabytes(margin)) to spare), \(Self.megabytes(available)) free; free some space there and try again"
        case .diskFull(let path, let mountPoint):
            "the disk at \(mountPoint) is full: cannot write \(path); free some space there, then download the title again: "
                + "the bytes received are kept"
        case .spaceKept(let path, let mountPoint, let available, let margin):
            "the disk at \(mountPoint) is down to \(Self.megabytes(available)) free, less than the \(Self.megabytes(margin)) "
                + "shelf keeps free there (--keep-free): stopped writing \(path); free some space there, then download the "
                + "title again: the bytes received are kept"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .interrupted(let signal):
            "the download was interrupted (signal \(signal)); the bytes received are kept for the next download of the title"
        }
    }
}

extension DownloadError {
    fileprivate static func megabytes(_ bytes: Int64) -> String {
        bytes >= 1_048_576 ? "\(bytes / 1_048_576) MB" : "\(max(1, bytes / 1024)) KB"
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
        try CurlGlobal.ready()
        var results: [Int: PartResult] = [:]
        var pending: [Transfer] = []
        for part in parts {
            if let size = Self.completeSize(part) ?? Self.promoteCompletePartFile(part) {
                results[part.index] = .complete(bytes: size)
            } else {
                pending.append(Transfer(part: part, settings: settings))
            }
        }
        try checkDiskSpace(pending.map(\.part))
        // One bucket for every connection: the limit is for the download, however many parts run at once.
        let limiter = settings.limitRate.map { RateLimiter(bytesPerSecond: $0) }
        for transfer in pending { transfer.limiter = limiter }
        let multi = try CurlMulti(maxConnections: settings.concurrency, maxPerHost: settings.perHost)
        var active: [ObjectIdentifier: Transfer] = [:]
        var lastProgress = Date.distantPast
        while !pending.isEmpty || !active.isEmpty {
            if let signal = settings.stopSignal?() {
                for transfer in active.values {
                    try? multi.remove(transfer.easy)
                    transfer.easy.detach()
                    transfer.close()
                }
                throw DownloadError.interrupted(signal: signal)
            }
            let now = Date()
            while active.count < settings.concurrency, let chosen = nextToStart(pending, at: now) {
                let next = pending.remove(at: chosen)
                do {
                    try start(next, on: multi)
                    active[ObjectIdentifier(next.easy)] = next
                } catch {
                    results[next.part.index] = .failed(reason: "\(error)")
                    settings.partFinished?(next.part.index, .failed(reason: "\(error)"))
                }
            }
            if active.isEmpty {
                if let next = pending.min(by: { $0.notBefore < $1.notBefore }) {
                    Thread.sleep(forTimeInterval: min(0.2, max(0.01, next.notBefore.timeIntervalSinceNow)))
                }
                continue
            }
            for (easy, failure) in try multi.step(timeout: 100) {
                try multi.remove(easy)
                guard let transfer = active.removeValue(forKey: ObjectIdentifier(easy)) else { continue }
                if transfer.diskFull {
                    // Every part writes to the same disk: stop them all, keeping what they wrote.
                    transfer.easy.detach()
                    transfer.close()
                    for other in active.values {
                        try? multi.remove(other.easy)
                        other.easy.detach()
                        other.close()
                    }
                    let (path, mountPoint) = (transfer.partFile.path, DiskSpace.mountPoint(of: transfer.partFile.path))
                    if let available = transfer.spaceLeft {
                        throw DownloadError.spaceKept(
                            path: path, mountPoint: mountPoint, available: available, margin: transfer.margin)
                    }
                    throw DownloadError.diskFull(path: path, mountPoint: mountPoint)
                }
                switch finish(transfer, failure: failure) {
                case .done(let result):
                    results[transfer.part.index] = result
                    settings.partFinished?(transfer.part.index, result)
                case .retry(_, _) where transfer.pace?.isPast() == true:
                    let failure = PartResult.failed(reason: transfer.pace!.reason)
                    results[transfer.part.index] = failure
                    settings.partFinished?(transfer.part.index, failure)
                case .retry(let reason, let after):
                    transfer.attempt += 1
                    let wait = after == 0
                        ? 0 : settings.retry.delay(afterAttempt: transfer.attempt, retryAfter: after, waited: transfer.waited)
                    if transfer.attempt >= settings.maxAttempts || wait == nil {
                        let failure = PartResult.failed(reason: "gave up after \(transfer.attempt) attempts: \(reason)")
                        results[transfer.part.index] = failure
                        settings.partFinished?(transfer.part.index, failure)
                    } else if let wait {
                        transfer.waited += wait
                        transfer.notBefore = Date().addingTimeInterval(wait)
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

    /// A part's deadline (`DownloadSettings.minimumAverage`): from its first attempt, the grace and its size at the
    /// slowest average allowed. Its size is what it may hold (`DownloadPart.bound`) until the server states it.
    struct Pace {
        let start: Date
        let grace: TimeInterval
        let rate: Int64
        var size: Int64

        var seconds: TimeInterval { grace + Double(size) / Double(rate) }
        func isPast(at now: Date = Date()) -> Bool { now.timeIntervalSince(start) >= seconds }

        /// Why the part failed, for its line.
        var reason: String {
            let time = seconds < 120 ? "\(Int(seconds.rounded(.up))) s" : "\(Int((seconds / 60).rounded(.up))) minutes"
            return "took longer than \(time), the most a part of "
                + "\(ByteCountText.of(size)) may take (its bytes are kept; running the download again goes on from them)"
        }
    }

    /// The pending transfer to start next among those whose wait is over: the most wanted by `priority`, then the
    /// first in book order; nil when every one still waits.
    private func nextToStart(_ pending: [Transfer], at now: Date) -> Int? {
        let ready = pending.indices.filter { pending[$0].notBefore <= now }
        return ready.min { a, b in
            let (x, y) = (pending[a].part, pending[b].part)
            let (p, q) = (settings.priority?.rank(x.index) ?? Int.max, settings.priority?.rank(y.index) ?? Int.max)
            return p != q ? p < q : (pending[a].notBefore, x.index) < (pending[b].notBefore, y.index)
        }
    }

    /// A part already in place (and of the expected length, when known).
    private static func completeSize(_ part: DownloadPart) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: part.destination.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return nil }
        if let expected = part.expectedLength, expected != size { return nil }
        return size
    }

    /// A `.part` file that already holds every byte the manifest states (and the right SHA-256, when it gives one)
    /// but was never renamed — the process was killed between the last write and the rename — is moved into place
    /// without asking the server again. Returns its size, or nil when it is not complete or not known to be.
    static func promoteCompletePartFile(_ part: DownloadPart) -> Int64? {
        guard let expected = part.expectedLength, Transfer.existingBytes(part) == expected else { return nil }
        let partFile = part.destination.appendingPathExtension("part")
        if let digest = part.sha256, (try? SHA256.hex(of: partFile)) != digest.lowercased() { return nil }
        do {
            if FileManager.default.fileExists(atPath: part.destination.path) {
                try FileManager.default.removeItem(at: part.destination)
            }
            try FileManager.default.moveItem(at: partFile, to: part.destination)
        } catch {
            return nil
        }
        try? FileManager.default.removeItem(at: part.destination.appendingPathExtension("part.json"))
        return expected
    }

    private func checkDiskSpace(_ parts: [DownloadPart]) throws {
        let needed = parts.reduce(Int64(0)) { total, part in
            guard let expected = part.expectedLength else { return total }
            return total + max(0, expected - Transfer.existingBytes(part))
        }
        guard let directory = parts.first?.destination.deletingLastPathComponent() else { return }
        // The directory may not exist yet: ask about the nearest one that does.
        var existing = directory
        while !FileManager.default.fileExists(atPath: existing.path) && existing.path != "/" {
            existing.deleteLastPathComponent()
        }
        guard let available = DiskSpace.available(at: existing.path) else { return }
        // Keep the margin so the rest of the system does not run out because of us: parts of unknown length need
        // at least that much free to start.
        if needed + settings.freeSpaceMargin > available {
            throw DownloadError.diskSpace(
                directory: directory.path, mountPoint: DiskSpace.mountPoint(of: existing.path), needed: needed,
                available: available, margin: settings.freeSpaceMargin)
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
            // Under a limit, smaller reads keep the shared bucket's waits short and even.
            bufferSize: settings.limitRate.map { Int(min(256 * 1024, max(4096, $0 / 10))) } ?? 256 * 1024)
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
            if failure.isTooManyRedirects {
                return .done(.failed(reason: "too many redirects; the library's server is misconfigured"))
            }
            let url = transfer.part.url.absoluteString
            if failure.isUnsupportedProtocol, let target = transfer.easy.refusedRedirectTarget(from: url) {
                // A redirect to file:, ftp: and the like: never followed, and named, as for every other request.
                return .done(.failed(reason: "\(NetworkError.redirectRefused(from: url, to: target))"))
            }
            let transient = failure.isTimeout || failure.isCutShort || failure.isConnectFailure
            return transient ? .retry(failure.message, after: nil) : .done(.failed(reason: failure.message))
        }
        let status = transfer.status
        switch status {
        case 200, 206:
            // A sign-in, captive-portal or error page answered 200 is not the part: never keep it as one.
            if transfer.isHTML {
                transfer.discard()
                return .done(.failed(reason: "the server sent an HTML page instead of the audio; nothing of it was kept"))
            }
            return complete(transfer, total: transfer.total)
        case 416:
            // Asked for bytes past the end: complete when what we hold is the whole file. The total is the one
            // of `Content-Range: bytes */total`; the Content-Length of a 416 is its error body's.
            if let total = transfer.rangeTotal, total == transfer.offset { return complete(transfer, total: total) }
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

    /// Checks the length against `total` (the whole file's, as the server stated it) and moves the part into place.
    private func complete(_ transfer: Transfer, total: Int64?) -> Outcome {
        let size = transfer.offset + transfer.received
        if let total, total != size {
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
    /// The download's shared limit on bytes per second, or nil.
    var limiter: RateLimiter?
    /// Seconds spent waiting between attempts, against the policy's budget.
    var waited: TimeInterval = 0

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
    /// The last write failed with ENOSPC: no part can go on.
    var diskFull = false
    /// The free space found below `margin`, when that is why `diskFull`.
    var spaceLeft: Int64?
    var restartReason: String?

    /// The most bytes the part may hold (`DownloadPart.bound`).
    let bound: Int64
    /// When the part must be complete (`DownloadSettings.minimumAverage`); nil under a rate limit or without an
    /// average.
    var pace: PartDownloader.Pace?
    /// Free space kept while writing, looked at every 16 MB written.
    let margin: Int64
    private var sinceSpaceCheck = 0

    /// What the part may hold, and why, for a message.
    private var allowance: String {
        if let length = part.expectedLength { return "the \(length) bytes its manifest states" }
        if part.duration != nil { return "what a part of its duration may hold (\(ByteCountText.of(bound)))" }
        return "\(ByteCountText.of(bound)), the most a part may hold (--part-cap)"
    }

    /// The slowest a part may arrive, bytes a second over `rateWindow` (0: no floor).
    let minimumRate: Int64
    let rateWindow: TimeInterval
    private var windowStart = Date()
    private var windowBytes: Int64 = 0

    /// A transfer of `part` held to the bounds of `settings`; neither rate applies under `limitRate`, the patron's
    /// own choice of slowness.
    init(part: DownloadPart, settings: DownloadSettings) {
        self.part = part
        bound = part.bound(bytesPerSecond: settings.boundBytesPerSecond, cap: settings.partCap)
        margin = settings.freeSpaceMargin
        let limited = settings.limitRate != nil
        minimumRate = limited ? 0 : settings.minimumRate
        rateWindow = settings.rateWindow
        if !limited, settings.minimumAverage > 0 {
            pace = PartDownloader.Pace(start: Date(), grace: settings.averageGrace, rate: settings.minimumAverage, size: bound)
        }
    }

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
        windowStart = Date()
        windowBytes = 0
        head = ResponseHead()
        checkedStart = false
        writeFailure = nil
        diskFull = false
        spaceLeft = nil
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
    var rangeTotal: Int64? { head.contentRange?.total }

    var retryAfter: TimeInterval? { RetryPolicy.retryAfter(headers["retry-after"]) }
    /// The response says it is an HTML page.
    var isHTML: Bool { HTTPResponse.isHTML(contentType: headers["content-type"]) }

    func header(_ line: Data) { head.take(line) }

    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard status == 200 || status == 206 else { return true }
        if !checkedStart {
            checkedStart = true
            if status == 206 {
                // The range must start where our file ends, or the bytes would land in the wrong place.
                let start = head.contentRange?.first
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
            if let total, total > bound {
                writeFailure = "the server offers \(total) bytes, more than " + allowance + "; nothing of it was kept"
                discard()
                return false
            }
            // The deadline is the stated size's, once the server states one.
            if let total, total > 0, let size = pace?.size, total < size { pace?.size = total }
        }
        if offset + received + Int64(bytes.count) > bound {
            writeFailure = "the server sent more than " + allowance + "; nothing of it was kept"
            discard()
            return false
        }
        sinceSpaceCheck += bytes.count
        if sinceSpaceCheck >= 16 * 1_048_576 {
            sinceSpaceCheck = 0
            if let free = DiskSpace.available(at: partFile.path), free < margin {
                diskFull = true
                spaceLeft = free
                writeFailure = "cannot write \(partFile.lastPathComponent): the disk is nearly full"
                return false
            }
        }
        // Straight from libcurl's buffer to the file: no copy into a Data per chunk.
        guard let descriptor = handle?.fileDescriptor, var base = bytes.baseAddress else { return bytes.isEmpty }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == ENOSPC { diskFull = true }
                let reason = errno == ENOSPC ? "the disk is full" : String(cString: strerror(errno))
                writeFailure = "cannot write \(partFile.lastPathComponent): \(reason)"
                return false
            }
            remaining -= written
            base += written
        }
        received += Int64(bytes.count)
        limiter?.take(bytes.count)
        let now = Date()
        if let pace, pace.isPast(at: now) {
            restartReason = pace.reason
            return false
        }
        // A server dripping bytes keeps the connection alive past the stall timeout: judge the rate too.
        windowBytes += Int64(bytes.count)
        let elapsed = now.timeIntervalSince(windowStart)
        if minimumRate > 0, elapsed >= rateWindow {
            if Double(windowBytes) < Double(minimumRate) * elapsed {
                restartReason = "slower than \(minimumRate) bytes a second for \(Int(rateWindow)) s"
                return false
            }
            (windowStart, windowBytes) = (now, 0)
        }
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
