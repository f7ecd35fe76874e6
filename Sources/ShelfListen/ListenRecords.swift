import Foundation
import ShelfCore
import ShelfPlayback

/// Every call `shelf listen` makes to the store, in one place: the title and its parts, the saved state at the start,
/// and the positions, speed and bookmarks written as the patron listens.
struct ListenRecords {
    let store: Store
    let library: Library
    let home: Home
    /// The title, resolved once at the command's edge (`GlobalOptions.openEdition`, which says when the id also
    /// names another title).
    let edition: EditionRef
    /// This computer's device id, which every saved position carries.
    let device: String
    /// The title's state as this session last knew it: a `shelf mark` made while it plays shows as a difference.
    private let seen = Seen()

    private final class Seen: @unchecked Sendable {
        var consumption: Consumption?
        /// A mark was taken: the rest of the session saves positions only.
        var taken = false
        /// The listening log's row for this session, once it has begun.
        var session: Int64?
        /// Where the loan's minutes heard are reported, when it links a timeTracking endpoint.
        var trackingURL: String?
    }

    init(store: Store, library: Library, home: Home, edition: EditionRef) throws {
        self.store = store
        self.library = library
        self.home = home
        self.edition = edition
        device = try store.deviceID()
        seen.consumption = try store.listeningState(of: edition).consumption
    }

    /// The title's summary and its parts where `home` keeps them (none before the manifest is known). A book whose
    /// manifest has no table of contents (a single file, a zip of files) takes its chapters from the files once they
    /// are all on disk, and keeps them in the store so `shelf show` and later sessions have them without reading.
    func audiobook() throws -> Audiobook {
        var book = try store.audiobook(edition, home: home)
        guard !book.hasTableOfContents, !book.parts.isEmpty, book.isComplete else { return book }
        let chapters = Self.embeddedChapters(of: book.parts)
        guard !chapters.isEmpty else { return book }
        if try store.saveChapters(chapters, of: edition) { return try store.audiobook(edition, home: home) }
        book.useChapters(chapters)
        return book
    }

    /// A book with no table of contents of its own (a single audio file, a zip of them) takes its cover from its
    /// first file's picture when the file carries one (an ID3v2 APIC frame, an m4b's covr atom), over the catalog's
    /// image the download kept. Nothing when the file has none, or in a read-only home.
    func keepEmbeddedCover(of book: Audiobook) {
        guard !book.hasTableOfContents, let first = book.parts.first,
            FileManager.default.fileExists(atPath: first.file.path)
        else { return }
        Cover.keepPicture(inside: first.file, in: first.file.deletingLastPathComponent()) { (try? EmbeddedPicture.read($0)) ?? nil }
    }

    /// The chapters the part files declare, by part and offset; a part that declares none (or cannot be opened) is
    /// one chapter. Empty when no part declares any, so the book keeps one chapter per part.
    static func embeddedChapters(of parts: [Audiobook.Part]) -> [(title: String, part: Int, offset: Double)] {
        var found = false
        var chapters: [(title: String, part: Int, offset: Double)] = []
        for part in parts {
            let inPart = (try? EmbeddedChapters.read(part.file)) ?? []
            if inPart.isEmpty {
                chapters.append((part.title ?? "Part \(part.index + 1)", part.index, 0))
            } else {
                found = true
                chapters += inPart.map { ($0.title, part.index, $0.start) }
            }
        }
        return found ? chapters : []
    }

    func listeningState() throws -> ListeningState { try store.listeningState(of: edition) }

    func saveSpeed(_ speed: Double) throws { try store.saveSpeed(speed, of: edition) }

    /// Begins this session in the listening log.
    func startSession(at place: ListenMachine.Place, speed: Double) throws {
        seen.trackingURL = try store.timeTrackingURL(of: edition)
        seen.session = try store.startListeningSession(of: edition, at: listeningPosition(place), speed: speed)
        // The log stays bounded: sessions older than a year become one per title and day.
        try? store.compactListeningLog(before: Date().addingTimeInterval(-Store.sessionsKeptWhole))
    }

    /// Adds what was heard (seconds per UTC minute) to the session, and to the minutes the library's timeTracking
    /// link waits for when the loan has one.
    func recordHeard(_ minutes: [Int: Double], at place: ListenMachine.Place, speed: Double) throws {
        guard let session = seen.session else { return }
        try store.recordHeard(session: session, of: edition, minutes: minutes, at: listeningPosition(place), speed: speed,
                              trackingURL: seen.trackingURL)
    }

    /// Reports the minutes heard to the library (its timeTracking links), when it has any waiting.
    func playtimeReporter(configuration: HTTPConfiguration) -> PlaytimeReporter? {
        try? PlaytimeReporter(store: store, home: home, library: library, configuration: configuration)
    }

    /// The patron answered other devices' positions saved up to `at`.
    func settleOffer(upTo at: Date) throws { try store.settleOffer(of: edition, upTo: at) }

    /// Another device's newer place waiting for the patron's answer, as last read from the library.
    func openOffer() throws -> ListeningPosition? { try store.openOffer(of: edition) }

    func savePosition(_ place: ListenMachine.Place, percent: Double?, finished: Bool) throws {
        // A `shelf mark` made while this plays wins over the saves that follow it: the session takes the mark.
        let after = try store.savePosition(
            listeningPosition(place), of: edition, percent: percent, finished: finished, seen: seen.consumption,
            keepState: seen.taken && !finished)
        if !finished && after != .inProgress { seen.taken = true }
        seen.consumption = after
    }

    func addBookmark(_ place: ListenMachine.Place, name: String? = nil) throws {
        try store.addBookmark(listeningPosition(place), name: name, of: edition)
    }

    /// The title's live bookmarks, in book order.
    func bookmarks() throws -> [Bookmark] { try store.bookmarks(of: edition) }

    /// Deletes a bookmark here; the library's copy is deleted with the next push.
    func deleteBookmark(_ id: Int64) throws { try store.deleteBookmark(id) }

    private func listeningPosition(_ place: ListenMachine.Place) -> ListeningPosition {
        ListeningPosition(
            part: place.position.part, seconds: place.position.seconds, readingOrderItem: place.readingOrderItem,
            device: device, deviceName: nil, at: place.at)
    }

    /// The title's sample as a book of its own: fetched into `directory` (no loan needed, nothing kept there after),
    /// its chapters from the files. Throws `SampleError` when the catalog offers none that plays.
    func sampleBook(configuration: HTTPConfiguration, into directory: URL) throws -> Audiobook {
        let summary = try store.summary(of: edition)
        guard let link = try store.samples(of: edition).first else { throw SampleError.none(title: summary.title) }
        let session = try LibrarySession(library: library, credentialStore: CredentialStore(home: home), configuration: configuration)
        let files = try SampleFetch.fetch(link, title: summary.title, session: session, into: directory)
        let parts = files.enumerated().map { index, file in
            Audiobook.Part(index: index, file: file.file, readingOrderItem: file.file.lastPathComponent,
                           title: file.title ?? (files.count == 1 ? "Sample" : "Sample, part \(index + 1)"), duration: nil,
                           status: .downloaded, progress: nil)
        }
        var book = Audiobook(edition: edition, summary: summary, parts: parts, chapters: [])
        book.chapters = parts.map { Audiobook.Chapter(title: $0.title ?? "Sample", part: $0.index, offset: 0) }
        let chapters = Self.embeddedChapters(of: parts)
        if !chapters.isEmpty { book.useChapters(chapters) }
        return book
    }

    /// The library's annotation client, or nil when there is none to reach (no library session can be made).
    func positionSync(configuration: HTTPConfiguration) -> PositionSync? {
        // Positions not synced with this library: the player neither asks it nor sends to it.
        guard library.positionsSynced else { return nil }
        return try? PositionSync(store: store, home: home, library: library, configuration: configuration)
    }

    /// Downloads the title's missing parts on a thread of its own, with a store of its own; the result is why the
    /// download stopped short, or nil when every part arrived.
    /// `shared` orders the parts and hears of each that fails.
    /// While another shelf (`shelf download`, a sync) downloads the title, its parts arrive all the same: this one
    /// asks again every `busyRetry` seconds and takes over the rest when that one stops, finished or killed.
    func download(configuration: HTTPConfiguration, shared: ListenDownload, busyRetry: Double = 1) -> Background<String?> {
        let (home, library, edition) = (home, library, edition)
        let settings = shared.settings
        return Background {
            while true {
                do {
                    let store = try Store(home: home)
                    let service = try FulfilmentService(
                        store: store, home: home, library: library, configuration: configuration, settings: settings)
                    let report = try service.download(edition)
                    return report.state != .downloaded ? report.failures.first ?? report.message : nil
                } catch FulfilmentError.busy(_, _) {
                    usleep(UInt32(busyRetry * 1_000_000))
                } catch let error as ShelfFailure {
                    return error.description
                } catch {
                    return "\(error)"
                }
            }
        }
    }
}
