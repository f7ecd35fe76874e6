import Foundation
import Hummingbird

/// A crawlable page rendered once and kept: its bytes, validators and, once asked for, its gzip form.
struct RenderedPage: Sendable {
    let body: ByteBuffer
    let entityTag: String
    let lastModified: Date
    var gzipped: ByteBuffer?

    /// The entity tag of the gzip-coded representation; a strong tag must differ per coding.
    var gzipEntityTag: String { String(entityTag.dropLast()) + "-gzip\"" }
}

/// How to answer one request for a crawlable page, decided in one step on the actor so that
/// switches flipped concurrently never half-apply.
enum PagePlan: Sendable {
    case notFound(pageCount: Int)
    case status(Int, retryAfter: String?)
    case html
    case notAtom
    case huge(prefix: ByteBuffer, suffix: ByteBuffer, summaryBytes: Int, entityTag: String)
    case truncated(ByteBuffer)
    case dropped(ByteBuffer, afterBytes: Int)
    /// The page under the response faults `FaultedResponse` applies.
    case faulted(PageFaults, ByteBuffer)
    case page(RenderedPage, gzip: Bool)
}

/// What `mutate(fraction:seed:)` changed.
public struct DemoMutation: Codable, Sendable, Equatable {
    /// Ids of the works whose `updated` changed.
    public var changedIDs: [String]
    /// Ids of the works whose acquisition href also changed.
    public var hrefChangedIDs: [String]
    /// Crawlable page numbers whose content (and so ETag) changed.
    public var changedPages: [Int]
}

/// The demo library's mutable state: catalog, patrons, fault switches, request counts and the page cache.
public actor DemoState {
    /// Entries per crawlable page.
    public nonisolated let pageSize: Int
    let configuration: DemoConfiguration
    /// The works on offer, in crawl order; license pools count every loan and hold.
    public internal(set) var catalog: DemoCatalog
    /// The patrons and their shelves, the configured first patron first.
    public internal(set) var patrons: [DemoPatron]
    /// The fault switches in force.
    public internal(set) var switches: DemoSwitches
    /// Requests answered so far.
    public internal(set) var stats = DemoRequestStats()
    /// Requests held at the door while it is closed (`closeGate()`).
    var gate = RequestGate()

    var renderer: FeedRenderer
    var cache: [Int: RenderedPage] = [:]
    /// Pages whose content changed by something other than an entry's `updated` (a removal, an
    /// href change) carry the time of that change, so Last-Modified still moves forward.
    private var pageStamps: [Int: Date] = [:]
    var lastStamp: Date
    /// Who waits for each work, first in line first; patrons whose copy is ready are not in it.
    /// Waiting holds of other, unnamed patrons fill the rest, so the length follows `holdsTotal`.
    var queues: [String: [DemoHolder]]
    /// Bearer tokens issued by `/patrons/me/token/` and the browser and OAuth sign-ins.
    var tokens: [String: DemoToken] = [:]
    /// Browser sign-ins waiting for the identity provider, by RelayState or state.
    var pendingSignIns: [String: DemoPendingSignIn] = [:]
    /// OpenID Connect authorisation codes: the patron and the state they were issued for.
    var codes: [String: (String, String)] = [:]
    /// OAuth password-grant refresh tokens, with their patron.
    var refreshTokens: [String: String] = [:]
    /// Seconds added to the real clock by `advanceClock(by:)`.
    public internal(set) var clockOffset: TimeInterval = 0
    /// Tokens issued by `/works/{id}/fulfill`, each opening one work's manifest.
    var fulfilmentGrants: [String: DemoFulfilmentGrant] = [:]
    /// Part links expiring at or before this epoch second are expired, whatever the clock says.
    var partLinksExpiredThrough = 0
    /// The latest expiry written into a part link so far.
    var latestPartLinkExpiry = 0
    /// Key of the part links' signatures, new for every server.
    let signingKey = UInt64.random(in: 1...UInt64.max)
    /// The chapter audio, made by ffmpeg on first use.
    let audio: DemoAudio
    /// Packaged audiobooks already zipped, by work id.
    var packages: [String: ByteBuffer] = [:]
    /// Titles whose sample the library no longer serves (404), for the client's tests.
    var samplesGone: Set<String> = []
    /// When the audio was first served, the Last-Modified of every part.
    let audioModified = DemoDates.wholeSeconds(Date())
    /// Every patron's annotations, oldest first.
    var annotationStore: [DemoAnnotation] = []
    /// What the Authentication document's `announcements` list (none at first).
    public internal(set) var announcements: [DemoAnnouncement] = []
    /// The number the next new annotation gets.
    var nextAnnotationNumber = 1
    /// Each patron's `simplified:synchronize_annotations` (their profile's setting), by username; a patron not
    /// listed syncs (true), as one who opted in.
    var synchronizeAnnotations: [String: Bool?] = [:]
    /// Every playtime entry taken, in the order they came.
    public internal(set) var playtimeEntries: [DemoPlaytimeEntry] = []
    /// The playtime endpoint answers 503 to every request (a server down for a while).
    var playtimeUnavailable = false
    /// Each patron's progression document per title, by "username\nworkID".
    var progressionStore: [String: DemoProgression] = [:]

    /// Creates state for a catalog; unless the configuration says otherwise, the first patron
    /// starts with two loans and a hold from it.
    public init(configuration: DemoConfiguration = .init(), catalog: DemoCatalog) {
        self.configuration = configuration
        self.pageSize = max(1, configuration.pageSize)
        var catalog = catalog
        let now = Date()
        var patrons = configuration.accounts.map { DemoPatron(username: $0.username, password: $0.password) }
        var queues: [String: [DemoHolder]] = [:]
        if configuration.startingShelf {
            patrons[0].loans = Self.seatStartingShelf(
                DemoPatron.startingLoans(in: catalog, now: now), for: patrons[0].username,
                catalog: &catalog, queues: &queues
            )
        }
        self.catalog = catalog
        self.patrons = patrons
        self.queues = queues
        self.switches = DemoSwitches(delayMilliseconds: configuration.delayMilliseconds)
        self.renderer = FeedRenderer(base: "http://127.0.0.1/", libraryName: configuration.libraryName,
                                     packagedAudiobookID: configuration.packagedAudiobookID)
        self.lastStamp = DemoDates.wholeSeconds(now)
        self.audio = DemoAudio(
            directory: configuration.audioCacheDirectory, ffmpegPath: configuration.ffmpegPath,
            partSeconds: configuration.partSeconds)
    }

    /// Sets the root URL written into every link; pages rendered before are dropped.
    func setBaseURL(_ url: URL) {
        var base = url.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        let (links, plain) = (renderer.fulfilLinks, renderer.plainFiles)
        renderer = FeedRenderer(base: base, libraryName: configuration.libraryName,
                                packagedAudiobookID: configuration.packagedAudiobookID)
        renderer.fulfilLinks = links
        renderer.plainFiles = plain
        cache.removeAll()
    }

    /// Links single files as a plain web server's static catalog does: `application/octet-stream`, with no running
    /// time or narrator, the file name the only sign of audio (and serves them with that type); pages rendered
    /// before are dropped.
    public func setPlainFiles(_ on: Bool) {
        renderer.plainFiles = on
        cache.removeAll()
    }

    /// The registry documents' writer, at this server's root.
    var registryRenderer: RegistryRenderer { RegistryRenderer(base: renderer.base, modified: audioModified) }

    /// Whether single files are linked and served as a plain web server's.
    public var plainFiles: Bool { renderer.plainFiles }

    // MARK: Catalog changes

    /// The work with this id.
    public func title(id: String) -> DemoTitle? {
        catalog.title(id: id)
    }

    /// Number of crawlable pages (at least one, even for an empty catalog).
    public var pageCount: Int {
        max(1, (catalog.count + pageSize - 1) / pageSize)
    }

    /// The crawlable page (1-based) a work is on.
    public func pageNumber(of id: String) -> Int? {
        catalog.position(of: id).map { $0 / pageSize + 1 }
    }

    /// Sets a work's `updated` date (now, by default).
    @discardableResult
    public func touch(id: String, updated: Date? = nil) throws -> DemoTitle {
        let stamp = nextStamp()
        return try apply(id: id, stamp: stamp) { $0.updated = updated ?? stamp }
    }

    /// Points a work's acquisition link somewhere else (a relative path resolves against the server root).
    @discardableResult
    public func setAcquisitionHref(id: String, href: String?) throws -> DemoTitle {
        try edit(id: id) { $0.acquisitionHref = href }
    }

    /// Changes a work in place; the id must stay the same.
    @discardableResult
    public func edit(id: String, _ change: @Sendable (inout DemoTitle) -> Void) throws -> DemoTitle {
        try apply(id: id, stamp: nextStamp(), change)
    }

    func apply(id: String, stamp: Date, _ change: (inout DemoTitle) -> Void) throws -> DemoTitle {
        guard let position = catalog.position(of: id) else { throw DemoLibraryError.unknownTitle(id) }
        var title = catalog[position]
        change(&title)
        guard title.id == id else { throw DemoLibraryError.invalidArgument("a title's id cannot be edited") }
        catalog.replace(at: position, with: title)
        let page = position / pageSize + 1
        cache[page] = nil
        pageStamps[page] = stamp
        return title
    }

    /// Removes a work; later works move up, so every page from its own to the last changes.
    public func remove(id: String) throws {
        guard let position = catalog.position(of: id) else { throw DemoLibraryError.unknownTitle(id) }
        let pagesBefore = pageCount
        catalog.remove(at: position)
        for index in patrons.indices { patrons[index].loans.removeAll { $0.titleID == id } }
        queues[id] = nil
        changed(fromPage: position / pageSize + 1, pagesBefore: pagesBefore)
    }

    /// Adds a work at a crawl position (the end by default).
    public func add(_ title: DemoTitle, at position: Int? = nil) throws {
        guard catalog.position(of: title.id) == nil else { throw DemoLibraryError.duplicateTitle(title.id) }
        let position = min(max(0, position ?? catalog.count), catalog.count)
        let pagesBefore = pageCount
        catalog.insert(title, at: position)
        changed(fromPage: position / pageSize + 1, pagesBefore: pagesBefore)
    }

    /// Changes `updated` of `fraction` of the works, spread evenly over the catalog, and the
    /// acquisition href of about a quarter of those; the same seed picks the same works.
    @discardableResult
    public func mutate(fraction: Double, seed: UInt64) throws -> DemoMutation {
        guard fraction.isFinite, (0...1).contains(fraction) else {
            throw DemoLibraryError.invalidArgument("fraction must be between 0 and 1, got \(fraction)")
        }
        let total = catalog.count
        let wanted = min(total, Int((Double(total) * fraction).rounded()))
        var mutation = DemoMutation(changedIDs: [], hrefChangedIDs: [], changedPages: [])
        guard wanted > 0 else { return mutation }
        var random = SplitMix64(seed: seed)
        let stamp = nextStamp()
        var pages = Set<Int>()
        mutation.changedIDs.reserveCapacity(wanted)
        // One pick from each of `wanted` equal strata spreads the changes over every page.
        for stratum in 0..<wanted {
            let lower = stratum * total / wanted
            let upper = (stratum + 1) * total / wanted
            let position = lower + Int(random.next() % UInt64(max(1, upper - lower)))
            var title = catalog[position]
            title.updated = stamp
            if random.next() % 4 == 0 {
                title.acquisitionHref = title.defaultAcquisitionPath + "?revision=\(Int(stamp.timeIntervalSince1970))"
                mutation.hrefChangedIDs.append(title.id)
            }
            catalog.replace(at: position, with: title)
            mutation.changedIDs.append(title.id)
            pages.insert(position / pageSize + 1)
        }
        for page in pages { cache[page] = nil }
        mutation.changedPages = pages.sorted()
        return mutation
    }

    func nextStamp() -> Date {
        lastStamp = max(DemoDates.wholeSeconds(now), lastStamp.addingTimeInterval(1))
        return lastStamp
    }

    private func changed(fromPage first: Int, pagesBefore: Int) {
        let stamp = nextStamp()
        // The old last page loses or gains its `next` link when the page count changes.
        let from = pagesBefore != pageCount ? min(first, pagesBefore, pageCount) : first
        for page in from...max(pagesBefore, pageCount) {
            cache[page] = nil
            pageStamps[page] = stamp
        }
    }

    // MARK: Rendering

    func titles(onPage page: Int) -> [DemoTitle] {
        let lower = (page - 1) * pageSize
        let upper = min(catalog.count, lower + pageSize)
        guard lower < upper else { return [] }
        return (lower..<upper).map { catalog[$0] }
    }

    func lastModified(page: Int, titles: [DemoTitle]) -> Date {
        let newest = titles.map(\.updated).max() ?? SyntheticTitles.epoch
        return DemoDates.wholeSeconds(max(newest, pageStamps[page] ?? .distantPast))
    }

    /// Renders a page (or returns the kept rendering) without any fault applied.
    func renderedPage(_ page: Int) -> RenderedPage? {
        guard page >= 1, page <= pageCount else { return nil }
        if let kept = cache[page] { return kept }
        let titles = titles(onPage: page)
        let modified = lastModified(page: page, titles: titles)
        let xml = renderer.crawlablePage(titles, page: page, next: page < pageCount ? page + 1 : nil, updated: modified)
        let body = ByteBuffer(string: xml)
        var hasher = FNV1a64()
        body.withUnsafeReadableBytes { hasher.combine($0) }
        let rendered = RenderedPage(body: body, entityTag: hasher.entityTag, lastModified: modified)
        cache[page] = rendered
        return rendered
    }

    /// The page with its gzip form, compressing once and keeping the result.
    func gzippedPage(_ page: Int) throws -> RenderedPage? {
        guard var rendered = renderedPage(page) else { return nil }
        if rendered.gzipped == nil {
            let level = Int32(min(9, max(1, configuration.gzipLevel)))
            let bytes = try rendered.body.withUnsafeReadableBytes { try gzipCompress($0, level: level) }
            rendered.gzipped = ByteBuffer(bytes: bytes)
            cache[page] = rendered
        }
        return rendered
    }

    /// Renders every page (and its gzip form) ahead of the first request, for benchmarks.
    public func prerender(gzip: Bool = true) throws {
        for page in 1...pageCount {
            _ = gzip ? try gzippedPage(page) : renderedPage(page)
        }
    }

    /// Renders these pages (and their gzip form) now rather than on first request.
    public func prerender(pages: [Int], gzip: Bool = true) throws {
        for page in pages where page >= 1 && page <= pageCount {
            _ = gzip ? try gzippedPage(page) : renderedPage(page)
        }
    }

    /// Decides how to answer a request for a crawlable page.
    func plan(page: Int, acceptsGzip: Bool) throws -> PagePlan {
        settle()
        if switches.endlessPages, page >= pageCount {
            var titles = titles(onPage: pageCount)
            if switches.endlessNewTitles, page > pageCount {
                for index in titles.indices { titles[index].id += "-page-\(page)" }
            }
            let modified = lastModified(page: pageCount, titles: titles)
            let body = ByteBuffer(string: renderer.crawlablePage(titles, page: page, next: page + 1, updated: modified))
            var hasher = FNV1a64()
            body.withUnsafeReadableBytes { hasher.combine($0) }
            return .page(RenderedPage(body: body, entityTag: hasher.entityTag, lastModified: modified), gzip: false)
        }
        guard page >= 1, page <= pageCount else { return .notFound(pageCount: pageCount) }
        // A fault that fires a set number of times: the page recovers once they are used up.
        var left = switches.pages[page] ?? PageFaults()
        let faults = left.take()
        switches.pages[page] = left.isEmpty ? nil : left
        if let status = faults.status { return .status(status, retryAfter: faults.retryAfter) }
        if faults.html { return .html }
        if faults.notAtom { return .notAtom }
        if faults.reset || faults.redirectLoop || faults.redirectTo != nil || faults.understateContentLength != nil || faults.bytesPerSecond != nil
            || faults.contentType != nil, let rendered = renderedPage(page) {
            return .faulted(faults, rendered.body)
        }
        if let size = faults.hugeEntryBytes { return hugePlan(page: page, summaryBytes: max(0, size), next: faults.nextPage) }
        if let next = faults.nextPage {
            // A loop is a fault of the page, so its rendering is never kept.
            let titles = titles(onPage: page)
            let modified = lastModified(page: page, titles: titles)
            let body = ByteBuffer(string: renderer.crawlablePage(titles, page: page, next: next, updated: modified))
            var hasher = FNV1a64()
            body.withUnsafeReadableBytes { hasher.combine($0) }
            return .page(RenderedPage(body: body, entityTag: hasher.entityTag, lastModified: modified), gzip: false)
        }
        if faults.truncate, let rendered = renderedPage(page) {
            return .truncated(rendered.body.getSlice(at: rendered.body.readerIndex, length: rendered.body.readableBytes / 2)!)
        }
        if let after = faults.dropConnectionAfterBytes, let rendered = renderedPage(page) {
            return .dropped(rendered.body, afterBytes: min(max(0, after), rendered.body.readableBytes))
        }
        if acceptsGzip, let rendered = try gzippedPage(page) { return .page(rendered, gzip: true) }
        guard let rendered = renderedPage(page) else { return .notFound(pageCount: pageCount) }
        return .page(rendered, gzip: false)
    }

    private static let hugeMarker = "@@shelf-demo-huge-summary@@"

    private func hugePlan(page: Int, summaryBytes: Int, next: Int?) -> PagePlan {
        var titles = titles(onPage: page)
        let huge = DemoTitle(
            id: "urn:uuid:0000dead-beef-4000-8000-\(String(format: "%012d", page))",
            title: "An Exceedingly Long Description",
            authors: ["Anonymous"],
            summary: Self.hugeMarker,
            published: SyntheticTitles.epoch,
            updated: SyntheticTitles.epoch
        )
        titles.insert(huge, at: 0)
        let modified = lastModified(page: page, titles: titles)
        let xml = renderer.crawlablePage(
            titles, page: page, next: next ?? (page < pageCount ? page + 1 : nil), updated: modified
        )
        let parts = xml.components(separatedBy: Self.hugeMarker)
        var hasher = FNV1a64()
        hasher.combine(xml)
        hasher.combine(String(summaryBytes))
        return .huge(
            prefix: ByteBuffer(string: parts[0]),
            suffix: ByteBuffer(string: parts.dropFirst().joined(separator: Self.hugeMarker)),
            summaryBytes: summaryBytes,
            entityTag: hasher.entityTag
        )
    }

    /// The root feed (the groups feed, `DemoState+Browse.swift`) and the time the catalog last changed.
    func rootFeedWithDate(entrypoint: DemoEntryPoint = .all) -> (String, Date) {
        settle()
        return (rootFeed(entrypoint: entrypoint), lastStamp)
    }

    /// The few works the root shows, in either OPDS.
    func featured() -> [DemoTitle] {
        var featured: [DemoTitle] = []
        for position in 0..<min(catalog.count, 50) where featured.count < 4 {
            let title = catalog[position]
            if !title.draft { featured.append(title) }
        }
        return featured
    }

    /// A patron's loans feed (empty while the `emptyLoans` switch is on) and when it last changed.
    func loansFeed(for username: String) -> (String, Date) {
        settle()
        let loans = patrons.first { $0.username == username }?.loans ?? []
        var items: [(DemoTitle, DemoLoan)] = switches.emptyLoans ? [] : loans.compactMap { loan in
            catalog.title(id: loan.titleID).map { ($0, loan) }
        }
        if switches.duplicateLoans { items += items }
        return (renderer.loans(items, updated: lastStamp), lastStamp)
    }

    /// A work's entry document, as it appears to this patron (or to anyone, without one).
    func entryDocument(id: String, for username: String? = nil) -> String? {
        settle()
        guard let title = catalog.title(id: id) else { return nil }
        return renderer.entryDocument(title, context: context(of: id, for: username))
    }

    func context(of id: String, for username: String?) -> FeedRenderer.EntryContext {
        guard let username, let patron = patrons.first(where: { $0.username == username }) else { return .catalog }
        return switch patron.loans.first(where: { $0.titleID == id }) {
        case .some(let loan) where loan.kind == .loan: .loan(loan)
        case .some(let loan): .hold(loan)
        case .none: .catalog
        }
    }

    /// The Authentication for OPDS document.
    func authenticationDocument(branch: DemoBranch? = nil) -> AuthenticationDocument {
        var document = AuthenticationDocument.make(
            base: renderer.base, libraryName: branch?.name ?? configuration.libraryName,
            flows: branch?.flows ?? configuration.authFlows, branch: branch?.slug)
        document.announcements = announcements.isEmpty ? nil : announcements
        return document
    }

    /// Replaces the announcements the Authentication document lists.
    public func setAnnouncements(_ list: [DemoAnnouncement]) {
        announcements = list
    }
}

extension DemoTitle {
    /// The acquisition path a work has when nothing overrides it, relative to the server root.
    var defaultAcquisitionPath: String {
        let work = "works/" + percentEncoded(id)
        if license.openAccess { return work + "/fulfill/open-access" }
        if price != nil { return work + "/buy" }
        return work + "/borrow"
    }
}
