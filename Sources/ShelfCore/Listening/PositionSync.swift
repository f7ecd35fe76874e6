import Foundation
import GRDB
import Synchronization

/// What a push of queued positions and bookmarks did.
public struct PushReport: Codable, Sendable, Equatable {
    public var pushed: Int
    /// Still queued (offline, not signed in, no annotation service).
    public var pending: Int
    /// Why some stayed queued, when they did.
    public var failure: String?
    /// Items the library refused and that were dropped, one line each (also told to `warn`).
    public var warnings: [String] = []

    public init(pushed: Int = 0, pending: Int = 0, failure: String? = nil) {
        self.pushed = pushed
        self.pending = pending
        self.failure = failure
    }
}

/// What `shelf position` prints: where the patron is in a title, per device.
public struct PositionReport: Codable, Sendable, Equatable {
    /// One device's position.
    public struct Device: Codable, Sendable, Equatable {
        public var device: String
        /// "this computer (hostname)", the device's own name, or "another device".
        public var name: String
        public var thisDevice: Bool
        /// Index into the reading order, from 0.
        public var part: Int
        public var partTitle: String?
        /// Seconds into the part.
        public var seconds: Double
        /// Seconds into the book, when the parts' durations are known.
        public var bookSeconds: Double?
        public var percent: Double?
        public var at: Date
    }

    public var id: String
    /// The title's id as `shelf list` shows it.
    public var shortID: String
    public var title: String
    public var consumption: Consumption
    public var percent: Double?
    public var speed: Double
    /// A position or bookmark waits to be pushed to the library.
    public var pendingPush: Bool
    /// Why it has not been pushed yet, when known.
    public var pendingReason: String?
    /// The book's length in seconds, when the parts' durations are known.
    public var duration: Double?
    /// Why only the positions stored here are shown (offline, not signed in, no annotation service); nil when the
    /// library was asked.
    public var localOnly: String?
    /// Newest first.
    public var devices: [Device]
    /// Another device's newer place waiting for the patron's answer: this computer's position is not pushed over it
    /// until then.
    public var offer: Device?
    /// The last sessions of listening on this computer, newest first (at most 5).
    public var sessions: [ListeningSession] = []
}

/// Position sync with a library's annotation service: pulls the newest position of other devices, pushes this
/// device's positions and bookmarks.
///
/// Sendable, but one instance sends one request at a time from each thread that uses it; the player takes turns
/// through its own lock (`PositionChannel`), so pulls and pushes never overlap.
public final class PositionSync: Sendable {
    let store: Store
    let library: Library
    let session: LibrarySession
    private let warnSink = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Called with one-line warnings (a malformed annotation that was ignored, a refused push that was dropped).
    public var warn: (@Sendable (String) -> Void)? {
        get { warnSink.withLock { $0 } }
        set { warnSink.withLock { $0 = newValue } }
    }

    /// The largest annotation list read: 8 MB.
    public static let maxListBytes: Int64 = 8 * 1_048_576

    public init(store: Store, home: Home, library: Library, configuration: HTTPConfiguration) throws(CirculationError) {
        self.store = store
        self.library = library
        // Annotation lists are small (a real one of 209 annotations is 200 KB): a larger body is refused while it
        // arrives, not read into memory and parsed.
        var configuration = configuration
        configuration.maxBodyBytes = min(configuration.maxBodyBytes, Self.maxListBytes)
        session = try LibrarySession(library: library, credentialStore: CredentialStore(home: home), configuration: configuration)
    }

    /// What the store knows of an edition's annotation links and parts.
    struct Book {
        var entryID: String
        var shortID: String
        var title: String
        var annotationsURL: String?
        var serviceURL: String?
        /// The title's progression document (OPDS Progression draft, Readium's, Cantook's), when it links one.
        var progressionURL: String?
        /// The reading order's hrefs, titles and durations (from the manifest, else the downloaded parts).
        var hrefs: [String]
        var titles: [String?]
        var durations: [Double?]

        var duration: Double? {
            durations.isEmpty || durations.contains(nil) ? nil : durations.reduce(0) { $0 + ($1 ?? 0) }
        }

        func bookSeconds(part: Int, seconds: Double) -> Double? {
            guard durations.indices.contains(part), duration != nil else { return nil }
            return durations[..<part].reduce(0) { $0 + ($1 ?? 0) } + seconds
        }
    }

    func book(_ edition: EditionRef) throws -> Book {
        let detail = try store.edition(edition)
        var book = Book(entryID: edition.entryID, shortID: detail.summary.shortID, title: detail.summary.title, annotationsURL: detail.annotationsURL,
                        serviceURL: try store.library(named: library.name).annotationsURL, hrefs: [], titles: [], durations: [])
        book.progressionURL = detail.links.first { RemoteProgression.isProgression(rel: $0.rel, type: $0.type) }?.href
        let fulfilment = try store.fulfilment(of: edition)
        let manifestURL = fulfilment?.manifestURL.flatMap(URL.init(string:)) ?? URL(fileURLWithPath: "/manifest.json")
        if let fulfilment, let manifest = try? AudiobookManifest.parse(Data(fulfilment.manifest.utf8), url: manifestURL),
            !manifest.parts.isEmpty
        {
            book.hrefs = manifest.parts.map(\.href)
            book.titles = manifest.parts.map(\.title)
            book.durations = manifest.parts.map(\.duration)
        } else {
            for part in try store.partRecords(of: edition) {
                book.hrefs.append(part.hrefPath)
                book.titles.append(part.title)
                book.durations.append(part.duration)
            }
        }
        return book
    }

    // MARK: pull

    /// The newest idling position on the server for the edition from another device, resolved to a part of this
    /// book and recorded among the device positions; nil when there is none, the edition has no annotation link,
    /// or its locator names no part of this book. Throws when the server cannot be reached or refuses.
    public func remotePosition(of edition: EditionRef) throws -> ListeningPosition? {
        guard library.positionsSynced else { return nil }
        return try remotePosition(of: edition, book: try book(edition))
    }

    /// `remotePosition(of:)` for a book already read from the store.
    func remotePosition(of edition: EditionRef, book: Book) throws -> ListeningPosition? {
        guard library.positionsSynced else { return nil }
        let candidates = [try annotationPosition(book, of: edition), try progressionPosition(book, of: edition)]
        guard let position = candidates.compactMap({ $0 }).max(by: { $0.at < $1.at }) else { return nil }
        try store.recordRemotePosition(position, of: edition)
        _ = try store.considerOffer(position, of: edition) { local in
            guard let local else { return false }
            return Self.samePlace(local, position, in: book)
        }
        return position
    }

    /// The newest idling position of another device in the title's (or the library's) annotations, with the
    /// bookmarks pulled on the way; nil when there is none or no annotation link.
    private func annotationPosition(_ book: Book, of edition: EditionRef) throws -> ListeningPosition? {
        guard let link = book.annotationsURL ?? book.serviceURL, let url = URL(string: link) else { return nil }
        guard session.isSignedIn else { throw CirculationError.notSignedIn(library: library.name) }
        let response = try session.send(url, headers: ["Accept": "\(RemoteAnnotation.mediaType), application/json"])
        if response.status == 404 { return nil }
        if response.status == 401 { throw CirculationError.unauthorised(library.name, signedIn: session.isSignedIn) }
        guard (200..<300).contains(response.status) else {
            throw NetworkError.httpStatus(url: Redaction.url(url.absoluteString), status: response.status)
        }
        let items: [Any]
        switch RemoteAnnotation.items(in: response.body) {
        case .success(let list): items = list
        case .failure(let rejection):
            warn?("ignored the annotations of \(book.title): \(rejection); kept the local position")
            return nil
        }
        let ours = try store.deviceID()
        var newest: (annotation: RemoteAnnotation, part: Int)?
        var bookmarks: [PulledBookmark] = []
        // Every id the list holds, usable or not: a bookmark is gone from the server only when its id is absent.
        var present = Set<String>()
        for item in items {
            // Annotations of other works (a library-wide list) and anything but positions are not this book's concern.
            let object = item as? [String: Any]
            if let source = (object?["target"] as? [String: Any])?["source"] as? String, source != book.entryID {
                // The title's own list holds only its annotations: another title's there is the server's mistake.
                if book.annotationsURL != nil {
                    warn?("ignored annotation \(RemoteAnnotation.name(of: item)) of \(book.title): it belongs to another "
                          + "title (\(source)); kept the local position")
                }
                continue
            }
            if let id = object?["id"] as? String { present.insert(id) }
            let motivation = object?["motivation"] as? String
            let bookmarking = motivation == Motivation.bookmarking
            if let motivation, motivation != Motivation.idling, !bookmarking { continue }
            let kept = bookmarking ? "the bookmarks stored here" : "the local position"
            let what = bookmarking ? "bookmark" : "annotation"
            let annotation: RemoteAnnotation
            switch RemoteAnnotation.parse(item) {
            case .success(let parsed): annotation = parsed
            case .failure(let rejection):
                warn?("ignored \(what) \(RemoteAnnotation.name(of: item)) of \(book.title): \(rejection); kept \(kept)")
                continue
            }
            // This device's own: a position is not taken back, a bookmark is known here by its id already.
            guard annotation.device != ours else { continue }
            // A part of an older manifest (the title borrowed again) is found by its chapter's name, when one part
            // of this book bears it.
            guard let part = RemoteAnnotation.partIndex(of: annotation.locator, in: book.hrefs)
                ?? Self.partNamed(annotation.chapter, in: book)
            else {
                let place = annotation.locator.readingOrderItem ?? "chapter \(annotation.locator.chapter ?? 0)"
                warn?("ignored \(what) \(annotation.id ?? "(without id)") of \(book.title): its locator names no part "
                      + "of this book (\(place)); kept \(kept)")
                continue
            }
            // Durations in manifests are rounded, and players write a few hundred ms past them: 5 s of slack.
            if book.durations.indices.contains(part), let duration = book.durations[part],
                annotation.locator.offsetMilliseconds / 1000 > duration + 5
            {
                warn?("ignored \(what) \(annotation.id ?? "(without id)") of \(book.title): its offset "
                      + "\(Clock.format(annotation.locator.offsetMilliseconds / 1000)) is past the end of part \(part + 1) "
                      + "(\(Clock.format(duration)) long); kept \(kept)")
                continue
            }
            if bookmarking {
                // Without an id a bookmark could neither be told from the next pull's nor deleted.
                guard let id = annotation.id, !id.isEmpty else {
                    warn?("ignored bookmark (without id) of \(book.title): it has no id; kept \(kept)")
                    continue
                }
                bookmarks.append(PulledBookmark(
                    serverID: id, part: part, seconds: annotation.locator.offsetMilliseconds / 1000,
                    readingOrderItem: annotation.locator.readingOrderItem ?? Self.withoutQuery(book.hrefs[part]),
                    name: annotation.name, device: annotation.device ?? "unknown", deviceName: annotation.deviceName,
                    at: annotation.time ?? Date(timeIntervalSince1970: 0)))
                continue
            }
            if let current = newest, (current.annotation.time ?? .distantPast) >= (annotation.time ?? .distantPast) { continue }
            newest = (annotation, part)
        }
        // A list with a next page is not complete: nothing is removed for being absent from it.
        try store.applyPulledBookmarks(
            bookmarks, of: edition, present: Self.hasNextPage(response.body) ? nil : present)
        guard let (annotation, part) = newest else { return nil }
        let position = ListeningPosition(
            part: part, seconds: annotation.locator.offsetMilliseconds / 1000,
            readingOrderItem: annotation.locator.readingOrderItem ?? Self.withoutQuery(book.hrefs[part]),
            device: annotation.device ?? "unknown", deviceName: annotation.deviceName,
            at: annotation.time ?? Date(timeIntervalSince1970: 0))
        return position
    }

    /// Reads the other devices' positions of a title (`remotePosition`) and answers the title's open offer: another
    /// device's newer place, which this device's position is not pushed over until the patron chooses; nil when
    /// there is none.
    public func pull(_ edition: EditionRef) throws -> ListeningPosition? {
        _ = try remotePosition(of: edition)
        return try store.openOffer(of: edition)
    }

    /// The one part of the book whose title is `chapter`; nil when none or several are.
    static func partNamed(_ chapter: String?, in book: Book) -> Int? {
        guard let chapter, !chapter.isEmpty else { return nil }
        let matches = book.titles.indices.filter { book.titles[$0] == chapter }
        return matches.count == 1 ? matches[0] : nil
    }

    /// Whether two positions are within `Store.samePlace` seconds of each other in the book (in the same part when
    /// the parts' durations are not known).
    static func samePlace(_ one: ListeningPosition, _ other: ListeningPosition, in book: Book) -> Bool {
        if let a = book.bookSeconds(part: one.part, seconds: one.seconds),
            let b = book.bookSeconds(part: other.part, seconds: other.seconds)
        {
            return abs(a - b) <= Store.samePlace
        }
        return one.part == other.part && abs(one.seconds - other.seconds) <= Store.samePlace
    }

    // MARK: push

    /// Pushes every queued position and bookmark of this library, oldest first; each one pushed leaves the queue,
    /// one the library refuses (4xx) is dropped with a warning, and on a network failure the rest stay queued.
    ///
    /// A position is pushed only after the other devices' positions of its title are read (`pulled` names titles
    /// already read): where another device's newer place waits for the patron's answer (an open offer), this
    /// device's position stays queued, so the library keeps the other device's.
    @discardableResult
    public func pushPending(pulled: Set<EditionRef> = []) -> PushReport {
        var report = PushReport()
        let rows: [QueuedAnnotation]
        do {
            rows = try store.queuedAnnotations(of: library)
        } catch {
            return PushReport(failure: error.description)
        }
        guard library.positionsSynced else {
            // Kept here, the newest position per title and every bookmark, for when the switch is turned on.
            return PushReport(pending: rows.count, failure: rows.isEmpty ? nil : Self.notSynced(library))
        }
        if pushQueue(rows, pulled: pulled, &report) { pushTombstones(&report) }
        return report
    }

    /// Why nothing is read from or sent to a library whose positions are not synced, and how to sync them.
    public static func notSynced(_ library: Library) -> String {
        let why = library.syncPositions == false ? "" : " (your library account is set not to keep them)"
        return "positions are not synced with \(library.name)\(why); shelf keeps them on this computer, and "
            + "`shelf library set \(library.name) --sync-positions on` syncs them"
    }

    /// Why a title's position is held back: another device's newer place waits for the patron's answer.
    public static func heldBack(by offer: ListeningPosition, id: String) -> String {
        "held back: \(offer.deviceName ?? "another device") saved a newer place; `shelf position \(id) --take-other` goes "
            + "there, `--keep-here` pushes this computer's"
    }

    /// Posts the queued items; false when it stopped (offline, not signed in, the server failing).
    private func pushQueue(_ rows: [QueuedAnnotation], pulled: Set<EditionRef>, _ report: inout PushReport) -> Bool {
        var pulled = pulled
        for (index, row) in rows.enumerated() {
            let title = row.title
            let link = (row.serviceURL ?? row.annotationsURL).flatMap(URL.init(string:))
            let edition = EditionRef(libraryID: row.item.libraryID, rowID: row.item.editionID, entryID: row.entryID)
            // A position's title is read once: for the pull before it, and for its progression document.
            let book = row.item.motivation == .idling ? try? book(edition) : nil
            // A position also goes to the title's progression document, when it links one.
            var progression: (book: Book, url: URL)?
            if let book, let url = book.progressionURL.flatMap(URL.init(string:)) { progression = (book, url) }
            guard link != nil || progression != nil else {
                let reason = "\(library.name) gives no annotation service for \(title)"
                setError(row.item.id, reason)
                report.pending += 1
                report.failure = report.failure ?? reason
                continue
            }
            guard session.isSignedIn else {
                report.pending += rows.count - index
                report.failure = CirculationError.notSignedIn(library: library.name).description
                setError(nil, report.failure!)
                return false
            }
            if row.item.motivation == .idling {
                let offer: ListeningPosition?
                do {
                    if pulled.insert(edition).inserted {
                        _ = try book.map { try remotePosition(of: edition, book: $0) } ?? remotePosition(of: edition)
                    }
                    offer = try store.openOffer(of: edition)
                } catch let error as StoreError {
                    report.pending += rows.count - index
                    report.failure = error.description
                    return false
                } catch {
                    report.pending += rows.count - index
                    report.failure = (error as? ShelfFailure)?.description ?? "\(error)"
                    setError(nil, report.failure!)
                    return false
                }
                if let offer {
                    let reason = Self.heldBack(by: offer, id: row.shortID)
                    setError(row.item.id, reason)
                    report.pending += 1
                    report.failure = report.failure ?? reason
                    continue
                }
            }
            if let progression {
                switch putProgression(row, edition: edition, book: progression.book, url: progression.url) {
                case .done:
                    if link == nil {
                        remove(row)
                        try? store.recordPushed(row.item.at, of: row.item.editionID, libraryID: row.item.libraryID)
                        report.pushed += 1
                        continue
                    }
                case .held(let reason):
                    setError(row.item.id, reason)
                    report.pending += 1
                    report.failure = report.failure ?? reason
                    continue
                case .stopped(let reason):
                    report.pending += rows.count - index
                    report.failure = reason
                    setError(nil, reason)
                    return false
                case .refused(let reason):
                    if link == nil {
                        let warning = "dropped the listening position of \(title): \(library.name) refused it (\(reason))"
                        report.warnings.append(warning)
                        warn?(warning)
                        remove(row)
                        continue
                    }
                }
            }
            guard let url = link else { continue }
            let document = RemoteAnnotation.document(
                motivation: row.item.motivation.uri, source: row.entryID,
                locator: AudiobookLocator(readingOrderItem: row.item.readingOrderItem, offsetMilliseconds: row.item.seconds * 1000),
                device: row.item.device, chapter: row.partTitle ?? "", time: row.item.at,
                name: row.item.motivation == .bookmarking ? (try? store.bookmarkName(row.item.bookmarkID)) ?? nil : nil)
            let status: Int
            let body: Data
            do {
                let response = try session.send(
                    url, method: "POST", headers: ["Content-Type": RemoteAnnotation.mediaType, "Accept": "application/json"],
                    body: document)
                (status, body) = (response.status, response.body)
            } catch {
                report.pending += rows.count - index
                report.failure = (error as? ShelfFailure)?.description ?? "\(error)"
                setError(nil, report.failure!)
                return false
            }
            if (200..<300).contains(status) {
                if let bookmark = row.item.bookmarkID, let id = Self.annotationID(in: body, from: url) {
                    _ = try? store.recordServerID(id, bookmark: bookmark, of: row.item.editionID, libraryID: row.item.libraryID)
                }
                remove(row)
                if row.item.motivation == .idling {
                    try? store.recordPushed(row.item.at, of: row.item.editionID, libraryID: row.item.libraryID)
                }
                report.pushed += 1
            } else if status == 401 || status == 403 || status >= 500 || status == 408 || status == 429 {
                report.pending += rows.count - index
                report.failure = switch status {
                case 401: CirculationError.unauthorised(library.name, signedIn: session.isSignedIn).description
                // Palace refuses a patron who has not opted in to annotation sync: the patron can fix that.
                case 403: "\(library.name) refused the position (\(ProblemDocument.parse(body)?.text ?? "403 Forbidden")); "
                    + "if your library account is set not to keep positions, `shelf library set \(library.name) "
                    + "--sync-positions on` tells it to"
                default: NetworkError.httpStatus(url: Redaction.url(url.absoluteString), status: status).description
                }
                setError(nil, report.failure!)
                return false
            } else {
                // The library will never take this one (the loan ended, the title is unknown): it must not block the rest.
                let what = row.item.motivation == .bookmarking ? "a bookmark" : "the listening position"
                let reason = ProblemDocument.parse(body)?.text ?? "\(status) \(HTTPStatus.reason(status))"
                let warning = "dropped \(what) of \(title): \(library.name) refused it (\(reason))"
                report.warnings.append(warning)
                warn?(warning)
                remove(row)
            }
        }
        return true
    }

    /// Takes a pushed item off the queue, unless a newer position replaced it in the meantime.
    private func remove(_ row: QueuedAnnotation) {
        try? store.dequeue(row.item)
    }

    /// Records why an item (or, with nil, every item of the library) is still queued.
    private func setError(_ id: Int64?, _ reason: String) {
        try? store.setPushError(reason, item: id, library: library.id)
    }

    /// A part's href as annotations name it: without its query (signatures that expire) or fragment.
    static func withoutQuery(_ href: String) -> String { String(href.prefix { $0 != "?" && $0 != "#" }) }

    // MARK: report

    /// Asks the library for the other devices' annotations of a title, for a report; nil when it answered, else why
    /// the report shows only what is stored here (a store failure is thrown).
    func pullForReport(_ edition: EditionRef, pull: Bool) throws -> String? {
        guard pull else { return "the library was not asked" }
        guard library.positionsSynced else { return Self.notSynced(library) }
        // What the library says would be stored here first, which a read-only home cannot take.
        if store.isReadOnly { return "the home is read-only, so the library's positions are not fetched into it" }
        do {
            _ = try remotePosition(of: edition)
            let book = try book(edition)
            if book.annotationsURL == nil && book.serviceURL == nil && book.progressionURL == nil {
                return "\(library.name) gives no annotation service for \(book.title)"
            }
            return nil
        } catch let error as StoreError {
            throw error
        } catch {
            return (error as? ShelfFailure)?.description ?? "\(error)"
        }
    }

    /// Where the patron is in a title, per device, after asking the library when `pull` (a failure to reach it
    /// becomes `localOnly`, with the reason).
    public func report(of edition: EditionRef, pull: Bool = true) throws -> PositionReport {
        let localOnly = try pullForReport(edition, pull: pull)
        let book = try book(edition)
        let state = try store.listeningState(of: edition)
        let ours = try store.deviceID()
        let pendingReason = try store.pendingPushError(of: edition)
        func device(_ position: ListeningPosition) -> PositionReport.Device {
            let bookSeconds = book.bookSeconds(part: position.part, seconds: position.seconds)
            let percent = both(bookSeconds, book.duration).flatMap { $1 > 0 ? min(100, $0 / $1 * 100) : nil }
            return PositionReport.Device(
                device: position.device,
                name: position.deviceName ?? (position.device == ours ? Store.thisComputer : "another device"),
                thisDevice: position.device == ours, part: position.part,
                partTitle: book.titles.indices.contains(position.part) ? book.titles[position.part] : nil,
                seconds: position.seconds, bookSeconds: bookSeconds, percent: percent, at: position.at)
        }
        return PositionReport(
            id: book.entryID, shortID: book.shortID, title: book.title, consumption: state.consumption, percent: state.percent, speed: state.speed,
            pendingPush: state.pendingPush, pendingReason: state.pendingPush ? pendingReason : nil, duration: book.duration,
            localOnly: localOnly, devices: try store.devicePositions(of: edition).map(device),
            offer: try store.openOffer(of: edition).map(device), sessions: try store.listeningSessions(of: edition, limit: 5))
    }

    // MARK: answering an offer

    /// Records an event for each title of the library with an open offer, once per offer: what a sync (and cron)
    /// tells the patron, who may not open the player for days.
    func noteOffers() throws {
        for rowID in try store.editionsWithOffers(in: library.id) {
            guard let entryID = try store.read({ db in
                try String.fetchOne(db, sql: "SELECT entry_id FROM edition WHERE id = ?", arguments: [rowID])
            }) else { continue }
            let edition = EditionRef(libraryID: library.id, rowID: rowID, entryID: entryID)
            guard let offer = try store.openOffer(of: edition) else { continue }
            let book = try book(edition)
            let place = book.bookSeconds(part: offer.part, seconds: offer.seconds).map(Clock.format)
                ?? "\(Clock.format(offer.seconds)) into part \(offer.part + 1)"
            try store.recordNotice(
                kind: .positionOffer, libraryID: library.id, editionID: rowID,
                key: "offer:\(rowID):\(Int(offer.at.timeIntervalSince1970))",
                text: "\(library.name): \(offer.deviceName ?? "another device") saved a newer place in \(book.title) "
                    + "(\(place)); this computer's is not pushed over it until you choose: `shelf position \(book.shortID) "
                    + "--take-other` goes there, `--keep-here` keeps this computer's")
        }
    }

    /// Answers the title's open offer (another device's newer place): `take` makes it this computer's position, else
    /// this computer's stays; either way this computer's position is then pushed (what cannot be sent stays
    /// queued). Returns the offer answered, nil when none was open.
    public func answerOffer(of edition: EditionRef, take: Bool) throws -> ListeningPosition? {
        guard let offer = try store.openOffer(of: edition) else { return nil }
        if take {
            let book = try book(edition)
            let here = ListeningPosition(
                part: offer.part, seconds: offer.seconds, readingOrderItem: offer.readingOrderItem,
                device: try store.deviceID(), deviceName: nil, at: Date())
            let percent = both(book.bookSeconds(part: offer.part, seconds: offer.seconds), book.duration)
                .flatMap { $1 > 0 ? $0 / $1 * 100 : nil }
            try store.savePosition(here, of: edition, percent: percent, finished: false)
        } else if let position = try store.listeningState(of: edition).position {
            // Queued again, saved now (it may have been pushed before the offer came), so the library gets it.
            var kept = position
            kept.at = Date()
            try store.savePosition(kept, of: edition, percent: nil, finished: false, keepState: true)
        }
        try store.settleOffer(of: edition, upTo: offer.at)
        return offer
    }
}

private func both<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
