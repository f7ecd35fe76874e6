import Foundation

/// What a download did.
public struct DownloadReport: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var state: LifecycleState
    public var parts: Int
    public var completeParts: Int
    public var bytes: Int64
    /// One line per part that did not complete.
    public var failures: [String]
    public var message: String
    /// What this download changed about the title's failure streak (started failing, recovered, skipped while
    /// backing off), for the caller to report once.
    public var transition: FailureTransition?

    /// Not tried: the title failed before and waits its turn.
    public var isBackingOff: Bool {
        if case .backingOff? = transition { true } else { false }
    }
}

/// Where a download stands, for a progress bar.
public struct DownloadProgress: Sendable, Equatable {
    public var title: String
    public var parts: Int
    public var partsDone: Int
    /// Received bytes of the parts under way, by part index.
    public var active: [Int: (received: Int64, total: Int64?)]
    public var bytesDone: Int64

    public static func == (lhs: DownloadProgress, rhs: DownloadProgress) -> Bool {
        lhs.title == rhs.title && lhs.parts == rhs.parts && lhs.partsDone == rhs.partsDone && lhs.bytesDone == rhs.bytesDone
    }
}

/// Turns a borrowed (or open-access) audiobook into files on disk: finds a supported acquisition path, gets the
/// manifest (through a bearer token when the library uses one), downloads the parts, and moves the edition
/// through Authorising → Downloading → Processing → Downloaded — or back, keeping every byte it has.
public final class FulfilmentService {
    let store: Store
    let home: Home
    let library: Library
    let session: LibrarySession
    let http: HTTPClient
    let settings: DownloadSettings
    private let log: (@Sendable (String) -> Void)?
    /// How many times expired URLs are refetched before giving up.
    private let refetchLimit = 2
    /// Downloads larger than this ask `confirmLarge` first.
    public var largeThreshold: Int64 = FulfilmentService.largeDownload
    /// What counts as a large download, worth a question: 500 MB.
    public static let largeDownload: Int64 = 500 * 1_048_576
    /// Asked with the expected size of a large download; false cancels it. Nil never asks.
    public var confirmLarge: ((Int64) -> Bool)?
    /// Called a few times a second while parts download.
    public var progress: ((DownloadProgress) -> Void)?
    /// Skip a title whose downloads keep failing until its streak's next try (unattended downloads); a
    /// `shelf download ID` by hand leaves it false and tries at once.
    public var honourBackoff = false

    public init(
        store: Store, home: Home, library: Library, configuration: HTTPConfiguration,
        settings: DownloadSettings = DownloadSettings()
    ) throws(CirculationError) {
        self.store = store
        self.home = home
        self.library = library
        self.settings = settings
        self.log = configuration.log
        session = try LibrarySession(library: library, credentialStore: CredentialStore(home: home), configuration: configuration)
        // The session's settings carry a plain HTTP login, so parts on the library's own host get it too.
        http = HTTPClient(configuration: session.configuration)
    }

    // MARK: download

    /// Downloads a title the patron may have. Safe to run again after any interruption: it resumes. A failure
    /// adds to the title's failure streak and a success ends it (`DownloadReport.transition` says which, and a
    /// thrown failure's is `lastTransition`).
    public func download(_ edition: EditionRef) throws -> DownloadReport {
        lastTransition = nil
        if honourBackoff, let streak = try store.failureStreak(libraryID: library.id, editionID: edition.rowID),
            streak.nextTryAt > Date()
        {
            let summary = try store.summary(of: edition)
            lastTransition = .backingOff(until: streak.nextTryAt, failures: streak.failures, reason: streak.lastReason)
            var skipped = try report(
                summary, edition: edition,
                message: "Skipped \(summary.title): its download failed \(streak.failures) times in a row; next try after "
                    + "\(SyncError.localTime(streak.nextTryAt)) (`shelf download \(summary.id)` tries now).")
            skipped.transition = lastTransition
            return skipped
        }
        do {
            var report = try attempt(edition)
            if report.state == .downloaded {
                keepCover(edition)
                if let ended = try? store.endFailureStreak(libraryID: library.id, editionID: edition.rowID) {
                    lastTransition = .recovered(failures: ended.failures, since: ended.firstFailedAt)
                }
            } else if let failure = report.failures.first {
                noteFailure(edition, reason: failure)
            }
            report.transition = lastTransition
            return report
        } catch DownloadError.interrupted(let signal) {
            // The patron stopped it: not the title's fault.
            throw DownloadError.interrupted(signal: signal)
        } catch let failure as ShelfFailure {
            // Another shelf downloading the title now is not the title failing.
            if case FulfilmentError.busy? = failure as? FulfilmentError {} else { noteFailure(edition, reason: failure.description) }
            throw failure
        }
    }

    func logLine(_ line: String) { log?(line) }

    /// What the last `download` changed about the title's failure streak.
    public private(set) var lastTransition: FailureTransition?

    private func noteFailure(_ edition: EditionRef, reason: String) {
        guard let streak = try? store.noteFailure(libraryID: library.id, editionID: edition.rowID, reason: reason) else {
            return
        }
        lastTransition = streak.failures == 1
            ? .startedFailing(reason: reason)
            : .stillFailing(failures: streak.failures, nextTry: streak.nextTryAt, reason: reason)
    }

    private func attempt(_ edition: EditionRef) throws -> DownloadReport {
        let detail = try store.edition(edition)
        let summary = detail.summary
        let rowID = edition.rowID
        let lockFile = home.temporary.appendingPathComponent("download-\(library.id)-\(rowID).lock")
        guard let lock = try FileLock.acquire(lockFile, timeout: 0) else {
            throw FulfilmentError.busy(title: summary.title, pid: FileLock.holder(of: lockFile))
        }
        defer { withExtendedLifetime(lock) {} }
        if summary.state == .downloaded {
            return try report(summary, edition: edition, message: "\(summary.title) is already downloaded.")
        }
        // A run that was killed left the edition mid-way: step back to where it rests, then start again.
        var resting = try store.lifecycle(of: edition)
        if summary.state.isInProgress && summary.state != .clearing {
            resting = try store.applyLifecycle(.failed, to: edition, reason: "interrupted; resuming")
        }
        guard [.loan, .free].contains(summary.entitlement) else {
            throw FulfilmentError.notOnLoan(title: summary.title, reason: whyNotDownload(summary))
        }
        let acquisition = try chooseAcquisition(detail, edition: edition)
        let isUpdate = resting.state == .updated
        try store.applyLifecycle(.downloadRequested, to: edition, reason: nil)
        if acquisition.leaf == .package {
            do {
                return try downloadPackage(acquisition, summary: summary, edition: edition, isUpdate: isUpdate)
            } catch {
                _ = try? store.applyLifecycle(.failed, to: edition, reason: "\(error)")
                throw error
            }
        }
        do {
            var manifest = try manifest(for: acquisition, edition: edition, title: summary.title, refresh: isUpdate)
            if let confirmLarge, let size = estimatedSize(manifest), size > largeThreshold, !confirmLarge(size) {
                try store.applyLifecycle(.failed, to: edition, reason: "download cancelled by the patron")
                return try report(summary, edition: edition, message: "Cancelled: \(summary.title) was not downloaded.")
            }
            try Self.refuseNonAudio(manifest, title: summary.title)
            try store.applyLifecycle(.authorised, to: edition, reason: nil)
            let target = bookDirectory(rowID: rowID, staging: isUpdate)
            try recordParts(manifest, edition: edition)
            settings.partsRecorded?()
            var results: [Int: PartResult] = [:]
            for round in 0...refetchLimit {
                let wanted = manifest.parts.filter { part in
                    if case .complete? = results[part.index] { return false }
                    return true
                }
                let downloader = PartDownloader(settings: settings, configuration: http.configuration)
                let parts = try wanted.map { part in
                    let url = URL(string: part.href)!
                    return DownloadPart(
                        index: part.index, url: url,
                        destination: target.appendingPathComponent(Self.fileName(part)), expectedLength: part.length,
                        sha256: part.hash?.algorithm == "sha256" ? part.hash?.hex : nil, duration: part.duration,
                        headers: acquisition.isFile ? try session.credentialHeaders(for: url) : [:])
                }
                // Each part's progress is written at most once a second: a player shows the one it waits for.
                var lastWrites: [Int: Date] = [:]
                var state = DownloadProgress(
                    title: summary.title, parts: manifest.parts.count,
                    partsDone: manifest.parts.count - wanted.count, active: [:], bytesDone: 0)
                let fresh = try downloader.run(parts) { progress in
                    state.active[progress.index] = (progress.received, progress.total)
                    self.progress?(state)
                    guard Date().timeIntervalSince(lastWrites[progress.index] ?? .distantPast) > 1 else { return }
                    lastWrites[progress.index] = Date()
                    let percent = progress.total.flatMap { $0 > 0 ? "\(progress.received * 100 / $0)%" : nil }
                    try? self.store.updatePart(progress.index, of: edition, status: .downloading, bytes: progress.received,
                                               reason: percent)
                }
                for (index, result) in fresh { results[index] = result }
                try recordResults(fresh, edition: edition)
                let expired = fresh.values.contains { if case .expired = $0 { true } else { false } }
                // A single file's link is the catalog's own: fetching it again gives the same link.
                guard expired, round < refetchLimit, !acquisition.isFile else { break }
                // Signed URLs or the token lapsed: fetch them again; parts are matched by position and path.
                log?("part links expired; fetching the manifest again")
                manifest = try self.manifest(for: acquisition, edition: edition, title: summary.title, refresh: true)
                try recordParts(manifest, edition: edition)
            }
            // A book's own file refused with 401: a sign-in is missing or no longer accepted, which one line says.
            if acquisition.isFile {
                for part in manifest.parts {
                    guard case .expired(let status)? = results[part.index], let url = URL(string: part.href),
                        let refusal = session.refusal(of: url, status: status)
                    else { continue }
                    throw refusal
                }
            }
            let failures = manifest.parts.compactMap { part -> String? in
                switch results[part.index] {
                case .complete?: return nil
                case .expired(let status)? where acquisition.isFile:
                    return "part \(part.index + 1): the library refused it (\(status)); `shelf login` if it needs a sign-in"
                case .expired(let status)?: return "part \(part.index + 1): the link expired (\(status))"
                case .failed(let reason)?: return "part \(part.index + 1): \(reason)"
                case nil: return "part \(part.index + 1): not attempted"
                }
            }
            guard failures.isEmpty else {
                let reason = "\(manifest.parts.count - failures.count) of \(manifest.parts.count) parts downloaded; "
                    + failures[0] + (failures.count > 1 ? " (and \(failures.count - 1) more)" : "")
                try store.applyLifecycle(.failed, to: edition, reason: reason)
                var report = try report(summary, edition: edition, message: "\(summary.title): \(reason). Run `shelf download \(summary.shortID)` again to resume.")
                report.failures = failures
                return report
            }
            // A single file is whatever the catalog's link gave (perhaps typed by its name only): an HTML page or a
            // PDF where audio was promised is refused, not kept as the book.
            if acquisition.isFile {
                for part in manifest.parts {
                    let file = target.appendingPathComponent(Self.fileName(part))
                    let head = (try? FileHandle(forReadingFrom: file)).map { handle in
                        defer { try? handle.close() }
                        return (try? handle.read(upToCount: 512)) ?? Data()
                    } ?? Data()
                    if let reason = AudioTypes.whyNotAudio(head: head) {
                        try? FileManager.default.removeItem(at: file)
                        throw FulfilmentError.notAudio(title: summary.title, part: part.index + 1, reason: reason)
                    }
                }
            }
            try store.applyLifecycle(.transferFinished, to: edition, reason: nil)
            try finishProcessing(manifest, target: target, edition: edition, isUpdate: isUpdate)
            try store.applyLifecycle(.processed, to: edition, reason: "\(manifest.parts.count) parts")
            let done = try report(summary, edition: edition, message: "")
            var final = done
            final.message = "Downloaded \(summary.title): \(manifest.parts.count) part\(manifest.parts.count == 1 ? "" : "s"), "
                + "\(Self.megabytes(done.bytes))."
            return final
        } catch {
            _ = try? store.applyLifecycle(.failed, to: edition, reason: "\(error)")
            throw error
        }
    }

    /// The bytes a manifest's parts add up to: their stated lengths, else what the server says (HEAD).
    private func estimatedSize(_ manifest: AudiobookManifest) -> Int64? {
        var total: Int64 = 0
        for part in manifest.parts {
            if let length = part.length {
                total += length
                continue
            }
            guard let url = URL(string: part.href), let response = try? http.request(url, method: "HEAD"),
                (200..<300).contains(response.status), let length = response.header("content-length").flatMap({ Int64($0) })
            else { return nil }
            total += length
        }
        return total
    }

    /// What an ODL templated link is expanded with: the three ODL 1.0 requires of a checkout link (§5.2: `id`, the
    /// title's; `checkout_id`, new for each request; `patron_id`, an opaque id of the patron at this library, a
    /// SHA-256 of the library's URL and the user name, so the card number is never sent), this computer's id as the
    /// client's, and the loan's end. Variables not known are left out (RFC 6570).
    private func templateValues(_ summary: EditionSummary) -> [String: String] {
        var values = ["id": summary.id, "checkout_id": UUID().uuidString.lowercased()]
        if let username = session.username, var digest = try? SHA256(),
            (try? digest.update(Data("\(library.url)\n\(username)".utf8))) != nil, let hex = try? digest.finish()
        {
            values["patron_id"] = hex
        }
        if let device = try? store.deviceID() {
            values["client_id"] = device
            values["device_id"] = device
        }
        if let until = summary.availableUntil { values["expires"] = OPDSDate.format(until) }
        return values
    }

    private func whyNotDownload(_ summary: EditionSummary) -> String {
        switch summary.entitlement {
        case .hold: return "it is on hold, not on loan"
        case .holdReady: return "your hold is ready: shelf borrow \(summary.shortID) first"
        default:
            return summary.actions.contains(.borrow) ? "it is not on loan to you; borrow it first (shelf borrow \(summary.shortID))"
                : "it is not on loan to you"
        }
    }

    /// The directory a book's files live in; an update goes to a staging directory beside it first.
    private func bookDirectory(rowID: Int64, staging: Bool) -> URL {
        let directory = home.files(library: library.id, edition: rowID)
        return staging ? directory.deletingLastPathComponent().appendingPathComponent("\(rowID).next") : directory
    }

    static func fileName(_ part: AudiobookManifest.Part) -> String {
        let ext = URL(string: part.href).map { $0.pathExtension.lowercased() }.flatMap { AudioTypes.audioExtensions.contains($0) ? $0 : nil }
            ?? AudioTypes.fileExtension(forType: part.type)
        return String(format: "part-%03d.", part.index + 1) + ext
    }

    /// "48 KB", "19.2 MB": a download's size as messages say it.
    public static func megabytes(_ bytes: Int64) -> String {
        bytes < 1_048_576 ? "\(max(1, bytes / 1024)) KB" : String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }

    // MARK: acquisition paths

    private static let bearerType = BearerToken.mediaType
    private static let manifestType = "application/audiobook+json"
    private static let packageTypes = ["application/audiobook+zip", "application/zip"]

    /// What can be fetched, and how.
    struct Route {
        enum Leaf: Equatable {
            case manifest, package
            /// One audio file (mp3, m4b, ogg…) that is the whole book.
            case file(type: String)
        }
        var href: String
        /// The link answers a bearer-token document whose `location` is the leaf.
        var viaBearer: Bool
        var leaf: Leaf

        var isFile: Bool { if case .file = leaf { true } else { false } }
    }

    /// Picks the first acquisition path shelf can follow, or says why there is none.
    private func chooseAcquisition(_ detail: EditionDetail, edition: EditionRef) throws -> Route {
        guard detail.summary.medium == "audiobook" else {
            throw FulfilmentError.notAudiobook(title: detail.summary.title, medium: detail.summary.medium == "ebook" ? "ebook" : "item")
        }
        var acquisitions: [Acquisition] = []
        if detail.summary.entitlement == .loan {
            acquisitions = try store.loanAcquisitions(of: edition)
        }
        if acquisitions.isEmpty {
            acquisitions = detail.acquisitions.map {
                Acquisition(kind: AcquisitionKind(rawValue: $0.kind) ?? .generic, rel: $0.rel, href: $0.href,
                            type: $0.type, indirect: $0.indirect)
            }
        }
        var protection: ProtectionScheme?
        var offered: [String] = []
        // A Readium manifest or package is preferred to a single file when a title offers both, and a plain link to
        // an ODL templated one (`odl:tlink`) leading to the same.
        var single: Route?
        let plainFirst = acquisitions.filter { !URITemplate.isTemplate($0.href) }
            + acquisitions.filter { URITemplate.isTemplate($0.href) }
        for var acquisition in plainFirst where [.generic, .openAccess].contains(acquisition.kind) {
            if URITemplate.isTemplate(acquisition.href) {
                acquisition.href = URITemplate.expand(acquisition.href, templateValues(detail.summary))
            }
            for path in acquisition.paths {
                let types = path.map { $0.lowercased() }
                if let scheme = types.lazy.compactMap(ProtectionScheme.recognise).first {
                    protection = protection ?? scheme
                    continue
                }
                guard let first = types.first, let leaf = types.last else { continue }
                offered.append(path.last ?? "")
                let viaBearer = first.hasPrefix(Self.bearerType)
                // With a bearer token the next type in the path is what its location holds.
                let target = viaBearer ? (types.count > 1 ? types[1] : leaf) : first
                if target.hasPrefix(Self.manifestType) {
                    return Route(href: acquisition.href, viaBearer: viaBearer, leaf: .manifest)
                }
                if Self.packageTypes.contains(where: { target.hasPrefix($0) }) {
                    return Route(href: acquisition.href, viaBearer: viaBearer, leaf: .package)
                }
                if single == nil, AudioTypes.isAudio(target) {
                    single = Route(href: acquisition.href, viaBearer: viaBearer, leaf: .file(type: AudioTypes.bare(target)))
                }
            }
        }
        if let single { return single }
        if let protection {
            throw FulfilmentError.protected(title: detail.summary.title, scheme: protection.rawValue)
        }
        throw FulfilmentError.noSupportedFormat(title: detail.summary.title, offered: offered.isEmpty ? ["nothing"] : offered)
    }

    // MARK: manifests

    /// The manifest: the stored one while its URLs are good, else fetched again through the fulfilment link.
    private func manifest(for route: Route, edition: EditionRef, title: String, refresh: Bool) throws -> AudiobookManifest {
        if !refresh, let stored = try store.fulfilment(of: edition) {
            if stored.expiresAt.map({ $0.timeIntervalSinceNow > 60 }) ?? true,
                let base = stored.manifestURL.flatMap(URL.init(string:)),
                let manifest = try? AudiobookManifest.parse(Data(stored.manifest.utf8), url: base)
            {
                return manifest
            }
        }
        var (location, token): (URL, BearerToken?)
        switch route.leaf {
        case .package:
            throw FulfilmentError.malformedManifest(url: route.href, reason: "a packaged audiobook has no manifest to fetch")
        case .file(let type):
            (location, token) = try resolve(route)
            return try singleFileManifest(location, type: type, edition: edition, expiresAt: token?.expiresAt)
        case .manifest:
            (location, token) = try resolve(route)
        }
        let response: HTTPResponse
        do {
            response = try fetch(location, accept: Self.manifestType, bearer: token)
        } catch FulfilmentError.tokenRefused where token != nil {
            // The token lapsed on the way, or the library restarted and forgot it: one new token from the fulfil link.
            log?("the fulfilment token was refused; asking for a new one")
            (location, token) = try resolve(route)
            response = try fetch(location, accept: Self.manifestType, bearer: token)
        }
        if response.isHTML {
            throw FulfilmentError.malformedManifest(url: response.url, reason: "the server sent an HTML page")
        }
        let manifest = try AudiobookManifest.parse(response.body, url: URL(string: response.url) ?? location)
        let expiresAt = token?.expiresAt
        let source = response.url
        if let scheme = manifest.protection { throw FulfilmentError.protected(title: title, scheme: scheme.rawValue) }
        // The library's own document is kept as it came, so the player reads the same Readium manifest.
        let json = String(decoding: response.body, as: UTF8.self)
        try store.saveFulfilment(
            FulfilmentRecord(editionID: edition.rowID, manifest: json, manifestURL: source, expiresAt: expiresAt))
        return manifest
    }

    /// The document a route leads to, with the bearer token that opens it when there is one.
    func resolve(_ route: Route) throws -> (URL, BearerToken?) {
        guard let url = URL(string: route.href) else {
            throw FulfilmentError.malformedManifest(url: route.href, reason: "bad link")
        }
        guard route.viaBearer else { return (url, nil) }
        let tokenResponse = try fetch(url, accept: Self.bearerType, bearer: nil)
        let token = try BearerToken.parse(tokenResponse.body, url: URL(string: tokenResponse.url) ?? url)
        guard let location = URL(string: token.location) else {
            throw FulfilmentError.malformedToken(url: route.href, reason: "no usable location")
        }
        return (location, token)
    }

    /// GETs a fulfilment document: through the library session on the library's host, with the bearer token
    /// on the token's own location (libcurl drops it on a redirect to another host).
    /// A rate limit, a server error or a dropped connection is tried again as a catalog page is (`RetryPolicy.pages`,
    /// honouring `Retry-After`).
    private func fetch(_ url: URL, accept: String, bearer: BearerToken?) throws -> HTTPResponse {
        let headers = ["Accept": "\(accept), application/api-problem+json;q=0.5"]
        let outcome = try Self.retry.run(retrying: { failure, wait in
            let what = switch failure {
            case .response(let response): "\(Redaction.url(url.absoluteString)) answered \(response.status)"
            case .error(let error): "\(error)"
            }
            log?("\(what); trying again in \(String(format: "%.1f", wait)) s")
        }) {
            // Manifests and tokens are JSON documents: one past their size limit is cut off as it arrives.
            let limit = InputLimit.documentBytes.value
            guard let bearer else { return try session.send(url, headers: headers, limit: limit) }
            guard bearer.isUsable() else {
                throw FulfilmentError.malformedToken(url: url.absoluteString, reason: "the token had already expired")
            }
            return try http.request(
                url, headers: headers.merging(["Authorization": "Bearer \(bearer.accessToken)"]) { $1 }, limit: limit)
        }
        switch outcome {
        case .answered(let response), .spent(_, _, .response(let response)):
            // A status still transient when the policy is spent is read as any other answer.
            return try checked(response, url: url, bearer: bearer)
        case .spent(_, _, .error(let error)):
            throw error
        }
    }

    /// Fulfilment documents are retried as catalog pages are: a download gives up within two minutes.
    private static let retry = RetryPolicy.pages

    /// The response when it is a success, else the failure it means.
    private func checked(_ response: HTTPResponse, url: URL, bearer: BearerToken?) throws -> HTTPResponse {
        guard (200..<300).contains(response.status) else {
            let problem = ProblemDocument.parse(response.body)
            if response.status == 401, bearer != nil {
                throw FulfilmentError.tokenRefused(url: url.absoluteString, reason: problem?.text ?? "401")
            }
            if response.status == 401 {
                if !session.isSignedIn, let needed = SignIn.needed(by: response, library: library.name) { throw needed }
                throw CirculationError.unauthorised(library.name, signedIn: session.isSignedIn)
            }
            if [403, 404, 410].contains(response.status), problem == nil {
                throw FulfilmentError.linkGone(url: url.absoluteString, status: response.status)
            }
            // The library's own word that it has no such document: not a failure to wait out.
            if [404, 410].contains(response.status), let problem { throw CirculationError.serverNotFound(problem.text) }
            throw CirculationError.refused(status: response.status, reason: problem?.text ?? HTTPStatus.reason(response.status))
        }
        return response
    }

    // MARK: parts in the store

    private func recordParts(_ manifest: AudiobookManifest, edition: EditionRef) throws {
        try store.planParts(manifest.parts.map { part in
            PartRecord(editionID: edition.rowID, index: part.index, hrefPath: part.stablePath, file: Self.fileName(part),
                       title: part.title, duration: part.duration, bytes: part.length, status: .pending)
        }, of: edition)
    }

    private func recordResults(_ results: [Int: PartResult], edition: EditionRef) throws {
        for (index, result) in results {
            switch result {
            case .complete(let bytes): try store.updatePart(index, of: edition, status: .downloaded, bytes: bytes, reason: nil)
            case .expired(let status):
                try store.updatePart(index, of: edition, status: .expired, bytes: nil, reason: "link expired (\(status))")
            case .failed(let reason): try store.updatePart(index, of: edition, status: .failed, bytes: nil, reason: reason)
            }
        }
    }

    /// Writes the manifest (as the library sent it) beside the parts and, for an update, swaps the new copy in
    /// for the old one.
    private func finishProcessing(_ manifest: AudiobookManifest, target: URL, edition: EditionRef, isUpdate: Bool) throws {
        let rowID = edition.rowID
        do {
            let raw = try store.fulfilment(of: edition)?.manifest ?? "{}"
            try Data(raw.utf8).write(to: target.appendingPathComponent("manifest.json"), options: .atomic)
            guard isUpdate else { return }
            let final = home.files(library: library.id, edition: rowID)
            let old = final.deletingLastPathComponent().appendingPathComponent("\(rowID).old")
            try? FileManager.default.removeItem(at: old)
            if FileManager.default.fileExists(atPath: final.path) { try FileManager.default.moveItem(at: final, to: old) }
            try FileManager.default.moveItem(at: target, to: final)
            try? FileManager.default.removeItem(at: old)
        } catch {
            throw DownloadError.cannotWrite(path: target.path, reason: error.localizedDescription)
        }
    }

    func report(_ summary: EditionSummary, edition: EditionRef, message: String) throws -> DownloadReport {
        let parts = try store.parts(of: edition)
        let state = try store.lifecycle(of: edition).state
        return DownloadReport(
            id: summary.id, title: summary.title, state: state, parts: parts.count,
            completeParts: parts.filter { $0.status == .downloaded }.count,
            bytes: parts.filter { $0.status == .downloaded }.reduce(0) { $0 + ($1.bytes ?? 0) }, failures: [],
            message: message)
    }

    // MARK: archive

    /// Deletes the local files and keeps the loan: Downloaded/Updated → Clearing → New.
    /// A title a download left half-way (interrupted, or killed while Downloading) has its partial files removed
    /// and goes back to where it rests.
    /// Refuses (`PlayingError.playing`) while `shelf listen` plays the title, unless `force`.
    ///
    /// The title is marked archived `by` the patron or the keep rule: no download policy brings it back until the
    /// patron downloads it by name or the loan ends.
    public func archive(_ edition: EditionRef, force: Bool = false, by who: ArchivedBy = .patron) throws -> String {
        let title = try store.summary(of: edition).title
        return try PlayingLock.whileNotPlaying(
            home: home, library: library.id, edition: edition.rowID, title: title, action: .archive, force: force
        ) { try archiveFiles(edition, by: who) }
    }

    private func archiveFiles(_ edition: EditionRef, by who: ArchivedBy) throws -> String {
        var summary = try store.summary(of: edition)
        if !summary.actions.contains(.archive) {
            let lockFile = home.temporary.appendingPathComponent("download-\(library.id)-\(edition.rowID).lock")
            guard let lock = try FileLock.acquire(lockFile, timeout: 0) else {
                throw FulfilmentError.busy(title: summary.title, pid: FileLock.holder(of: lockFile))
            }
            defer { withExtendedLifetime(lock) {} }
            // A process killed mid-download left the state in progress: nothing is running now (the lock was free).
            if summary.state.isInProgress && summary.state != .clearing {
                try store.applyLifecycle(.failed, to: edition, reason: "interrupted; archived")
                summary = try store.summary(of: edition)
            }
            if !summary.actions.contains(.archive) {
                guard try LocalFiles(store: store, home: home).clearPartial(library: library, rowID: edition.rowID) else {
                    throw FulfilmentError.nothingToArchive(title: summary.title, id: summary.shortID)
                }
                try store.markArchived(edition, by: who)
                return "Removed the half-downloaded files of \(summary.title); it stays on your shelf."
            }
        }
        let reason = who == .patron ? "archived by the patron" : "archived to keep \(library.keepFinished ?? 0) titles"
        try store.applyLifecycle(.archiveRequested, to: edition, reason: reason)
        try LocalFiles(store: store, home: home).finishClearing(library)
        // After the clearing: the title rests in New, on loan, and stays there.
        try store.markArchived(edition, by: who)
        return "Removed the files of \(summary.title); it stays on your shelf."
    }
}
