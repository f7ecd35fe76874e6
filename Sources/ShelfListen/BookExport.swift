import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// One `shelf export`: the title's checks, its cover, the exporter, and what the exporter's failures mean to the
/// patron.
struct BookExport {
    let source: ExportSource
    let target: URL
    let force: Bool

    /// The export was interrupted by a signal; the file was not written.
    struct Interrupted: Error {
        let signal: Int32
    }

    /// Checks the title (an audiobook, not DRM-protected, every part on disk) and the target (not there, unless
    /// forced) before anything is read or written.
    init(store: Store, library: Library, home: Home, edition: EditionRef, target: URL, force: Bool) throws {
        // A single file or a zip of files takes its chapters from the files, as `shelf listen` does, and keeps them.
        let records = try ListenRecords(store: store, library: library, home: home, edition: edition)
        _ = try records.audiobook()
        source = try store.exportSource(records.edition, home: home)
        self.target = target.standardizedFileURL
        self.force = force
        if !force && FileManager.default.fileExists(atPath: self.target.path) {
            throw ExportError.fileExists(path: self.target.path)
        }
    }

    /// The cover to attach, and a note for the patron when it had to be fetched or could not be: the one beside
    /// the parts, else the library's, fetched once and kept there.
    func cover(configuration: HTTPConfiguration) -> (file: URL?, note: String?) {
        if let file = source.coverFile { return (file, nil) }
        guard source.coverURL != nil else { return (nil, nil) }
        do {
            return (try source.fetchCover(configuration: configuration), "fetched the cover from the library")
        } catch NetworkError.httpStatus(let url, let status) {
            // The library's cover link is not its catalog's URL: nothing for the patron to check there.
            return (nil, "no cover: the library answered \(status) for its cover image (\(url)); "
                + "exported without one")
        } catch let failure as ShelfFailure {
            return (nil, "no cover: \(failure.description)")
        } catch {
            return (nil, "no cover: \(error)")
        }
    }

    /// Writes the file. `stopSignal` is asked often: a signal number ends the export, leaving no file behind.
    func run(cover: URL?, progress: ((Double, Double) -> Void)?, stopSignal: () -> Int32?) throws -> M4BExport {
        let book = M4BBook(
            parts: source.parts,
            chapters: source.chapters.map { M4BBook.Chapter(title: $0.title, part: $0.part, offset: $0.offset) },
            title: source.title, author: source.authors, narrator: source.narrators, year: source.year, cover: cover)
        do {
            return try M4BExporter.export(
                book, to: target, overwrite: force, progress: progress, shouldStop: { stopSignal() != nil })
        } catch M4BExportError.interrupted {
            throw Interrupted(signal: stopSignal() ?? SIGINT)
        } catch let error as M4BExportError {
            switch error {
            case .fileExists(let path): throw ExportError.fileExists(path: path)
            case .cannotWrite(let path, let reason): throw ExportError.cannotWrite(path: path, reason: reason)
            case .noParts, .interrupted:
                throw ExportError.notDownloaded(title: source.title, id: source.shortID, have: 0, of: 0)
            }
        } catch let error as PlaybackError {
            throw ExportError.failed(title: source.title, reason: reason(error))
        }
    }

    /// FFmpeg's message, with what to do when a part file is damaged.
    private func reason(_ error: PlaybackError) -> String {
        let damaged: Bool
        switch error {
        case .cutShort, .noAudioStream: damaged = true
        // Opening or reading names a part file; writing names the m4b, which downloading again would not mend.
        case .ffmpeg(let action, _): damaged = action.hasPrefix("open ") || action.hasPrefix("read ")
        default: damaged = false
        }
        guard damaged else { return error.description }
        return "\(error.description); download it again (`shelf archive \(source.shortID)`, then `shelf download \(source.shortID)`)"
    }

    /// The line printed when the file is written.
    static func summary(_ result: M4BExport, title: String) -> String {
        let size = result.bytes >= 1_048_576
            ? "\((Double(result.bytes) / 1_048_576 * 10).rounded() / 10) MB" : "\(max(1, result.bytes / 1024)) KB"
        let method = result.method == .remuxed ? "audio copied without re-encoding" : "encoded to AAC"
        let chapters = "\(result.chapters.count) chapter\(result.chapters.count == 1 ? "" : "s")"
        return "Exported \(title) to \(result.file): \(Clock.format(result.duration)), \(chapters), "
            + "\(result.cover ? "cover, " : "")\(method), \(size)"
    }
}

/// A line on standard error redrawn in place while the export runs, when standard error is a terminal.
final class ExportProgress {
    private let title: String
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(title: String, enabled: Bool) {
        self.title = title.count > 28 ? String(title.prefix(27)) + "…" : title
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
    }

    func show(done: Double, total: Double) {
        guard enabled, Date().timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = Date()
        drawn = true
        let fraction = total > 0 ? min(1, done / total) : 0
        let width = 24
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let text = "Exporting \(title)  \(bar) \(Int(fraction * 100))%  \(Clock.format(done)) of \(Clock.format(total))"
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
    }

    /// Clears the line so the next message starts clean.
    func finish() {
        guard drawn else { return }
        drawn = false
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
