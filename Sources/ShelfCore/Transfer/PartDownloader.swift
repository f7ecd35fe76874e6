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

    /// Where the part is written until it is complete, and the record beside it (`PartFileRecord`).
    var partFile: URL { destination.appendingPathExtension("part") }
    var recordFile: URL { destination.appendingPathExtension("part.json") }

    /// Throws the `.part` file and its record away.
    func removePartFiles() {
        try? FileManager.default.removeItem(at: partFile)
        try? FileManager.default.removeItem(at: recordFile)
    }

    /// Renames the complete `.part` file into place, over an older copy, and drops its record.
    func movePartIntoPlace() throws {
        if FileManager.default.fileExists(atPath: destination.path) {
            try FileManager.default.removeItem(at: destination)
        }
        try FileManager.default.moveItem(at: partFile, to: destination)
        try? FileManager.default.removeItem(at: recordFile)
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
    /// A part with at least twice this many bytes still to come, from a server that takes byte ranges, is split
    /// into ranges of at least this many bytes fetched over the connections no other part uses (as aria2c's
    /// `--split`), so a server capping each connection no longer caps the book. Not under `limitRate`.
    public var minimumSplit: Int64 = 2 * 1_048_576
    /// Only a part whose rest would take longer than this many seconds at its speed so far is split.
    public var worthSplitting: TimeInterval = 0.5
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

extension PartResult {
    var isComplete: Bool { if case .complete = self { true } else { false } }
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
            } else if let split = SplitPart.resumed(part) {
                // An earlier run fetched it as byte ranges: each range goes on where it stopped.
                let left = split.spans.filter { $0.remaining > 0 }
                pending += left.map { Transfer(part: part, settings: settings, split: split, span: $0) }
                guard left.isEmpty else { continue }
                if case .done(let result) = completeSplit(split) {
                    results[part.index] = result
                } else {
                    part.removePartFiles()
                    pending.append(Transfer(part: part, settings: settings))
                }
            } else {
                pending.append(Transfer(part: part, settings: settings))
            }
        }
        try checkDiskSpace(parts.filter { part in pending.contains { $0.part.index == part.index } })
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
                    try? transfer.split?.save()
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
                // A range stopped earlier in this step (its part ended) is no longer active, nor in the multi.
                guard let transfer = active.removeValue(forKey: ObjectIdentifier(easy)) else { continue }
                try multi.remove(easy)
                if transfer.diskFull {
                    // Every part writes to the same disk: stop them all, keeping what they wrote.
                    transfer.easy.detach()
                    transfer.close()
                    try? transfer.split?.save()
                    for other in active.values {
                        try? multi.remove(other.easy)
                        other.easy.detach()
                        other.close()
                        try? other.split?.save()
                    }
                    let (path, mountPoint) = (transfer.partFile.path, DiskSpace.mountPoint(of: transfer.partFile.path))
                    if let available = transfer.spaceLeft {
                        throw DownloadError.spaceKept(
                            path: path, mountPoint: mountPoint, available: available, margin: transfer.margin)
                    }
                    throw DownloadError.diskFull(path: path, mountPoint: mountPoint)
                }
                /// The part's result, once: the other ranges of a split part stop, keeping their bytes.
                func end(_ result: PartResult) {
                    if transfer.split != nil, !result.isComplete {
                        stopRanges(of: transfer, active: &active, pending: &pending, on: multi)
                    }
                    results[transfer.part.index] = result
                    settings.partFinished?(transfer.part.index, result)
                }
                switch finish(transfer, failure: failure) {
                case .done(let result):
                    end(result)
                case .rangeDone:
                    // Two ranges may end in one step: the part is settled by the first that finds it complete.
                    guard let split = transfer.split, !split.settled else { continue }
                    try? split.save()
                    guard split.isComplete else { continue }
                    split.settled = true
                    switch completeSplit(split) {
                    case .done(let result): end(result)
                    case .whole(let reason): pending.append(whole(transfer, reason, active: &active, pending: &pending, on: multi))
                    default: continue
                    }
                case .whole(let reason):
                    pending.append(whole(transfer, reason, active: &active, pending: &pending, on: multi))
                case .retry(_, _) where transfer.pace?.isPast() == true:
                    end(.failed(reason: transfer.pace!.reason))
                case .retry(let reason, let after):
                    transfer.attempt += 1
                    let wait = after == 0
                        ? 0 : settings.retry.delay(afterAttempt: transfer.attempt, retryAfter: after, waited: transfer.waited)
                    if transfer.attempt >= settings.maxAttempts || wait == nil {
                        end(.failed(reason: "gave up after \(transfer.attempt) attempts: \(reason)"))
                    } else if let wait {
                        transfer.waited += wait
                        transfer.notBefore = Date().addingTimeInterval(wait)
                        settings.log?("part \(transfer.part.index + 1): \(reason); retrying")
                        pending.append(transfer)
                    }
                }
            }
            if pending.isEmpty, active.count < settings.concurrency, settings.limitRate == nil {
                pending += split(active: active, idle: settings.concurrency - active.count, limiter: limiter)
            }
            if let progress, Date().timeIntervalSince(lastProgress) > 0.2 {
                lastProgress = Date()
                var shown = Set<Int>()
                for transfer in active.values where shown.insert(transfer.part.index).inserted {
                    progress(PartProgress(index: transfer.part.index, received: transfer.split?.done ?? transfer.position,
                                          total: transfer.split?.total ?? transfer.total))
                }
            }
        }
        return results
    }

    // MARK: Byte ranges

    /// Shares the idle connections among the running transfers a server that takes ranges is sending, the most
    /// bytes still to come first: each keeps the first of its ranges, of at least `minimumSplit` bytes, and the
    /// returned transfers take the rest. The ranges are recorded before any of them starts.
    private func split(active: [ObjectIdentifier: Transfer], idle: Int, limiter: RateLimiter?) -> [Transfer] {
        let minimum = max(1, settings.minimumSplit)
        let now = Date()
        let candidates = active.values.filter { $0.isSplittable(worthSplitting: settings.worthSplitting, at: now) }
            .sorted { $0.left > $1.left }
        var (idle, started) = (idle, [Transfer]())
        for (rank, chosen) in candidates.enumerated() where idle > 0 {
            let share = max(1, idle / (candidates.count - rank))
            let count = Int(min(Int64(share + 1), chosen.left / minimum))
            guard count >= 2, let ranges = split(chosen, into: count) else { continue }
            idle -= ranges.count
            started += ranges.map { span in
                let transfer = Transfer(part: chosen.part, settings: settings, split: chosen.split, span: span)
                transfer.limiter = limiter
                return transfer
            }
        }
        return started
    }

    /// Cuts what `chosen` has still to come into `count` ranges: it keeps the first; the others are returned, once
    /// recorded (nil when they could not be: the part goes on over one connection).
    private func split(_ chosen: Transfer, into count: Int) -> [ByteSpan]? {
        guard let total = chosen.total, let validator = chosen.validator else { return nil }
        let wasWhole = chosen.split == nil
        let split = chosen.split ?? SplitPart(part: chosen.part, total: total, validator: validator,
                                              spans: [ByteSpan(start: 0, end: total, done: chosen.position)])
        let span = chosen.span ?? split.spans[0]
        let (from, end) = (chosen.position, span.end)
        let piece = (end - from) / Int64(count)
        let added = (1..<count).map { index in
            ByteSpan(start: from + piece * Int64(index), end: index == count - 1 ? end : from + piece * Int64(index + 1), done: 0)
        }
        span.end = from + piece
        split.spans += added
        do {
            try split.save()
        } catch {
            span.end = end
            split.spans.removeLast(added.count)
            return nil
        }
        if wasWhole { (chosen.split, chosen.span) = (split, span) }
        settings.log?("part \(chosen.part.index + 1): \(ByteCountText.of(end - from)) to come; fetching it over \(count) connections")
        return added
    }

    /// Stops the other ranges of `transfer`'s part, running or waiting, keeping their bytes and recording where
    /// each stopped.
    private func stopRanges(
        of transfer: Transfer, active: inout [ObjectIdentifier: Transfer], pending: inout [Transfer], on multi: CurlMulti
    ) {
        for other in active.values where other.part.index == transfer.part.index && other !== transfer {
            try? multi.remove(other.easy)
            other.easy.detach()
            other.close()
            active[ObjectIdentifier(other.easy)] = nil
        }
        pending.removeAll { $0.part.index == transfer.part.index }
        try? transfer.split?.save()
    }

    /// Throws a split part's bytes away and returns a transfer that fetches it whole over one connection: the
    /// server ignored a range or its copy changed. Told once in the log.
    private func whole(
        _ transfer: Transfer, _ reason: String, active: inout [ObjectIdentifier: Transfer], pending: inout [Transfer],
        on multi: CurlMulti
    ) -> Transfer {
        stopRanges(of: transfer, active: &active, pending: &pending, on: multi)
        transfer.discard()
        settings.log?("part \(transfer.part.index + 1): \(reason); fetching it again over one connection")
        let again = Transfer(part: transfer.part, settings: settings)
        again.wholeOnly = true
        again.limiter = transfer.limiter
        again.attempt = transfer.attempt
        again.waited = transfer.waited
        return again
    }

    /// A split part whose every range is in: checks it as a whole part is checked and moves it into place.
    private func completeSplit(_ split: SplitPart) -> Outcome {
        let part = split.part
        let file = part.partFile
        let size = ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.int64Value ?? -1
        guard size == split.total else { return .whole("the ranges left \(size) bytes of \(split.total)") }
        if let expected = part.expectedLength, expected != size {
            part.removePartFiles()
            return .done(.failed(reason: "the part has \(size) bytes, the manifest says \(expected)"))
        }
        if let expected = part.sha256, (try? SHA256.hex(of: file)) != expected.lowercased() {
            return .whole("the part's SHA-256 does not match the manifest")
        }
        do {
            let handle = try FileHandle(forWritingTo: file)
            try handle.synchronize()
            try handle.close()
            try part.movePartIntoPlace()
        } catch {
            return .done(.failed(reason: "cannot move the part into place: \(error.localizedDescription)"))
        }
        return .done(.complete(bytes: size))
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
        guard let expected = part.expectedLength, Transfer.existingBytes(part) == expected,
            SplitPart.resumed(part).map({ $0.isComplete && $0.total == expected }) ?? true
        else { return nil }
        if let digest = part.sha256, (try? SHA256.hex(of: part.partFile)) != digest.lowercased() { return nil }
        do {
            try part.movePartIntoPlace()
        } catch {
            return nil
        }
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
        if let span = transfer.span {
            // One range of a split part, and only while the server's copy is the one its other ranges came from.
            lines.append("Range: bytes=\(span.position)-\(span.end - 1)")
            if let validator = transfer.validator { lines.append("If-Range: \(validator)") }
        } else if transfer.offset > 0 {
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
        /// One range of a split part is in.
        case rangeDone
        /// The split part cannot go on as ranges (the server ignored one, or its copy changed): fetch it whole.
        case whole(String)
    }

    private func finish(_ transfer: Transfer, failure: CurlFailure?) -> Outcome {
        transfer.easy.detach()
        defer { transfer.close() }
        if let writeFailure = transfer.writeFailure { return .done(.failed(reason: writeFailure)) }
        if let reason = transfer.wholeAgain { return .whole(reason) }
        if let span = transfer.span {
            if span.remaining == 0 { return .rangeDone }
            if failure == nil, transfer.status == 206 || transfer.status == 200 {
                return .retry("received \(span.done) of the \(span.end - span.start) bytes of a range", after: nil)
            }
            if failure == nil, transfer.status == 416 { return .whole("the server refused a byte range (416)") }
        }
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

    /// The split part this transfer fetches one range of, and the range; nil for a part fetched whole. A transfer
    /// that began whole gets both when it is split, and stops at the end of its range.
    var split: SplitPart?
    var span: ByteSpan?
    /// Never split: the server ignored a range, or its copy changed, when this part was split before.
    var wholeOnly = false
    /// Why this range cannot go on: the part must be fetched whole again.
    var wholeAgain: String?
    /// Where the next byte goes in the `.part` file.
    var position: Int64 { offset + received }
    /// Bytes still to come: to the end of the range, or of the file.
    var left: Int64 { (span?.end ?? total ?? 0) - position }

    /// When this attempt's first byte came.
    private var firstByte: Date?

    /// Whether a server that takes ranges is sending the file, whose size and validator are known, with no
    /// failure so far, and what is still to come would take more than `worthSplitting` seconds at the speed of
    /// its first tenth of a second: a part that will be in soon is not worth more connections.
    func isSplittable(worthSplitting seconds: TimeInterval, at now: Date = Date()) -> Bool {
        guard !wholeOnly, checkedStart, status == 200 || status == 206, total != nil, validator != nil,
            writeFailure == nil, restartReason == nil, wholeAgain == nil, left > 0,
            status == 206 || headers["accept-ranges"]?.lowercased().contains("bytes") == true,
            let firstByte, case let elapsed = now.timeIntervalSince(firstByte), elapsed >= 0.1
        else { return false }
        return Double(left) > Double(received) / elapsed * seconds
    }

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
    init(part: DownloadPart, settings: DownloadSettings, split: SplitPart? = nil, span: ByteSpan? = nil) {
        self.part = part
        self.split = split
        self.span = span
        bound = part.bound(bytesPerSecond: settings.boundBytesPerSecond, cap: settings.partCap)
        margin = settings.freeSpaceMargin
        let limited = settings.limitRate != nil
        minimumRate = limited ? 0 : settings.minimumRate
        rateWindow = settings.rateWindow
        if !limited, settings.minimumAverage > 0 {
            pace = PartDownloader.Pace(start: Date(), grace: settings.averageGrace, rate: settings.minimumAverage, size: bound)
        }
    }

    var partFile: URL { part.partFile }

    /// Bytes of the part already received: the `.part` file's, or, for a split part, its ranges'.
    static func existingBytes(_ part: DownloadPart) -> Int64 {
        if let split = SplitPart.resumed(part) { return split.done }
        return ((try? FileManager.default.attributesOfItem(atPath: part.partFile.path))?[.size] as? NSNumber)?.int64Value ?? 0
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
        if let split, let span {
            // A range: its bytes go where it stopped, whatever the other ranges wrote after it.
            offset = span.position
            validator = split.validator
        } else {
            offset = Self.existingBytes(part)
            validator = nil
            if offset > 0, let record = PartFileRecord.read(part), record.ranges == nil { validator = record.validator }
            // Without a validator the partial bytes cannot be trusted to belong to the same file.
            if offset > 0 && validator == nil { try? FileHandle(forWritingTo: partFile).truncate(atOffset: 0); offset = 0 }
        }
        guard let handle = try? FileHandle(forWritingTo: partFile) else {
            throw DownloadError.cannotWrite(path: partFile.path, reason: "cannot open the file")
        }
        if span != nil { _ = try? handle.seek(toOffset: UInt64(offset)) } else { _ = try? handle.seekToEnd() }
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
        wholeAgain = nil
        firstByte = nil
    }

    func close() {
        try? handle?.close()
        handle = nil
    }

    /// Throws the partial file away (the server's copy changed, or it is unusable).
    func discard() {
        close()
        part.removePartFiles()
    }

    /// Flushes the part and renames it into place.
    func commit() throws {
        try handle?.synchronize()
        close()
        try part.movePartIntoPlace()
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
        if firstByte == nil { firstByte = Date() }
        if !checkedStart, let split {
            checkedStart = true
            // A range must come as asked, of the same copy, or the part is no longer one file.
            guard status == 206 else {
                wholeAgain = "the server ignored a byte range"
                return false
            }
            guard head.contentRange?.first == offset, head.contentRange?.total == split.total else {
                wholeAgain = "the server sent another range or copy than asked for"
                return false
            }
        }
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
        // A range takes its own bytes only: the next range's are another connection's.
        let count = span.map { Int(min(Int64(bytes.count), max(0, $0.end - position))) } ?? bytes.count
        if position + Int64(count) > bound {
            writeFailure = "the server sent more than " + allowance + "; nothing of it was kept"
            discard()
            return false
        }
        sinceSpaceCheck += count
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
        var remaining = count
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
        received += Int64(count)
        limiter?.take(count)
        if let span {
            span.done = position - span.start
            // The range is in: stop here, whatever else the response holds.
            if span.remaining == 0 { return false }
        }
        let now = Date()
        if let pace, pace.isPast(at: now) {
            restartReason = pace.reason
            return false
        }
        // A server dripping bytes keeps the connection alive past the stall timeout: judge the rate too.
        windowBytes += Int64(count)
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
            try? FileManager.default.removeItem(at: part.recordFile)
            return
        }
        validator = value
        try? PartFileRecord(validator: value, path: part.url.path).write(part)
    }
}

/// What `.part.json` keeps beside a `.part` file: the validator of the copy its bytes came from (for If-Range),
/// the path asked for, and, for a split part, the file's size and each range as `[start, end, done]`.
struct PartFileRecord: Codable {
    var validator: String?
    var path: String
    var total: Int64?
    var ranges: [[Int64]]?

    /// The record of `part`'s `.part` file, when there is one for the same path.
    static func read(_ part: DownloadPart) -> PartFileRecord? {
        guard let data = try? Data(contentsOf: part.recordFile), let record = try? JSONDecoder().decode(PartFileRecord.self, from: data),
            record.path == part.url.path
        else { return nil }
        return record
    }

    func write(_ part: DownloadPart) throws {
        try JSONEncoder().encode(self).write(to: part.recordFile, options: .atomic)
    }
}

/// A byte range `[start, end)` of a split part, fetched over its own connection; `done` bytes of it are written.
final class ByteSpan {
    let start: Int64
    var end: Int64
    var done: Int64

    init(start: Int64, end: Int64, done: Int64) {
        (self.start, self.end, self.done) = (start, end, done)
    }

    var position: Int64 { start + done }
    var remaining: Int64 { end - position }
}

/// A part fetched as byte ranges over several connections into one `.part` file. Its size, validator and ranges
/// are recorded in `.part.json` whenever a range starts or stops, so a later run resumes each where it stopped.
final class SplitPart {
    let part: DownloadPart
    let total: Int64
    let validator: String
    var spans: [ByteSpan]
    /// Its every range is in and the part has had its result.
    var settled = false

    init(part: DownloadPart, total: Int64, validator: String, spans: [ByteSpan]) {
        (self.part, self.total, self.validator, self.spans) = (part, total, validator, spans)
    }

    /// Bytes written in all ranges.
    var done: Int64 { spans.reduce(0) { $0 + $1.done } }
    var isComplete: Bool { spans.allSatisfy { $0.remaining == 0 } }

    func save() throws {
        try PartFileRecord(validator: validator, path: part.url.path, total: total,
                           ranges: spans.map { [$0.start, $0.end, $0.done] }).write(part)
    }

    /// The split part an earlier run left, when its record and `.part` file are both there and the ranges are
    /// sound (inside the file, not overlapping); nil otherwise.
    static func resumed(_ part: DownloadPart) -> SplitPart? {
        guard let record = PartFileRecord.read(part), let ranges = record.ranges, let total = record.total, total > 0,
            let validator = record.validator,
            FileManager.default.fileExists(atPath: part.partFile.path)
        else { return nil }
        var spans: [ByteSpan] = []
        for range in ranges {
            guard range.count == 3, 0 <= range[0], range[0] <= range[1], range[1] <= total, 0 <= range[2],
                range[2] <= range[1] - range[0]
            else { return nil }
            spans.append(ByteSpan(start: range[0], end: range[1], done: range[2]))
        }
        let sorted = spans.sorted { $0.start < $1.start }
        guard sorted.first?.start == 0, sorted.last?.end == total,
            zip(sorted, sorted.dropFirst()).allSatisfy({ $0.end == $1.start })
        else { return nil }
        return SplitPart(part: part, total: total, validator: validator, spans: spans)
    }
}
