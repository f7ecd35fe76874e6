import Foundation

/// A downloaded audiobook as `shelf export` needs it: its part files in order, its chapters as the player builds
/// them, the tags an m4b carries, and its cover.
public struct ExportSource: Sendable {
    public var edition: EditionRef
    /// The short id the patron types (`7d3c0002`), for messages.
    public var shortID: String
    public var title: String
    public var authors: String
    public var narrators: String
    /// The year of first publication (`dcterms:issued`), when the catalog gives one.
    public var year: String?
    public var parts: [URL]
    public var chapters: [Audiobook.Chapter]
    /// Where the book's files are.
    public var directory: URL
    /// Where the library serves the cover image, if it names one.
    public var coverURL: URL?

    /// A cover image kept beside the parts (`cover.jpg`, `cover.jpeg` or `cover.png`), if there is one.
    public var coverFile: URL? { Cover.file(in: directory) }

    /// Fetches the cover from the library and keeps it beside the parts, so later exports find it on disk.
    /// Only PNG and JPEG are kept (what an m4b can hold). The corresponding C library is libcurl, via `HTTPClient`.
    public func fetchCover(configuration: HTTPConfiguration) throws -> URL {
        guard let coverURL else { throw ExportError.noCover(title: title) }
        var configuration = configuration
        // A cover is a nicety: never let a slow server hold the export for long.
        configuration.connectTimeout = min(configuration.connectTimeout, 10)
        configuration.totalTimeout = min(configuration.totalTimeout, 60)
        configuration.maxBodyBytes = 20 * 1_048_576
        let response = try HTTPClient(configuration: configuration).request(coverURL)
        guard (200..<300).contains(response.status) else {
            throw NetworkError.httpStatus(url: Redaction.url(coverURL.absoluteString), status: response.status)
        }
        do {
            return try Cover.keep(response.body, in: directory)
        } catch is Cover.Skipped {
            throw ExportError.noCover(title: title)
        } catch {
            throw ExportError.cannotWrite(path: directory.path, reason: error.localizedDescription)
        }
    }
}

/// Why `shelf export` did not write its file.
public enum ExportError: ShelfFailure, Equatable {
    /// Some parts are not on disk (none when the title was never downloaded).
    case notDownloaded(title: String, id: String, have: Int, of: Int)
    /// The file is there already and `--force` was not given.
    case fileExists(path: String)
    /// FFmpeg could not read a part or write the file; carries its message.
    case failed(title: String, reason: String)
    case cannotWrite(path: String, reason: String)
    /// The library names no cover, or sent something that is not a PNG or JPEG image.
    case noCover(title: String)

    public var exitCode: ShelfExit {
        switch self {
        case .notDownloaded: .notAllowed
        case .fileExists: .usage
        case .failed, .cannotWrite: .exportFailed
        case .noCover: .badData
        }
    }

    public var description: String {
        switch self {
        case .notDownloaded(let title, let id, let have, let total):
            total == 0 ? "\(title) is not downloaded; run `shelf download \(id)` first"
                : "\(title) is not fully downloaded (\(have) of \(total) parts); run `shelf download \(id)` first"
        case .fileExists(let path): "\(path) already exists; give --force to replace it, or another file name"
        case .failed(let title, let reason): "cannot export \(title): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .noCover(let title): "the library offers no PNG or JPEG cover for \(title)"
        }
    }
}

extension Store {
    /// What exporting a title takes, once its checks pass: an audiobook, not DRM-protected, every part on disk.
    public func exportSource(_ edition: EditionRef, home: Home) throws -> ExportSource {
        let book = try audiobook(edition, home: home)
        let summary = book.summary
        guard summary.medium == "audiobook" else {
            throw FulfilmentError.notAudiobook(title: summary.title, medium: summary.medium == "ebook" ? "ebook" : "item")
        }
        if let scheme = summary.protection { throw FulfilmentError.protected(title: summary.title, scheme: scheme) }
        let have = book.parts.filter { FileManager.default.fileExists(atPath: $0.file.path) }.count
        guard !book.parts.isEmpty, have == book.parts.count else {
            throw ExportError.notDownloaded(title: summary.title, id: summary.shortID, have: have, of: book.parts.count)
        }
        let detail = try self.edition(edition)
        let issued = detail.issued.map { String($0.prefix(4)) }
        return ExportSource(
            edition: edition, shortID: summary.shortID, title: summary.title, authors: summary.authors,
            narrators: summary.narrators,
            year: issued.flatMap { $0.count == 4 && $0.allSatisfy(\.isNumber) ? $0 : nil },
            parts: book.parts.map(\.file), chapters: book.chapters,
            directory: home.files(library: edition.libraryID, edition: edition.rowID),
            coverURL: detail.coverURL.flatMap(URL.init(string:)).flatMap { ["http", "https"].contains($0.scheme) ? $0 : nil })
    }
}
