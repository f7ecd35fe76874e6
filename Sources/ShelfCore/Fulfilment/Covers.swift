import Foundation
import Synchronization

/// A title's cover image, kept beside its files (`cover.jpg` or `cover.png`): fetched with every download from the
/// entry's image link, through the library's sign-in, for MPRIS's `mpris:artUrl`, the player's screen, `shelf show`
/// and `shelf export`. Only PNG and JPEG are kept (what an m4b and every image viewer takes), by their first bytes,
/// whatever type the server claims, and none over 20 MB.
public enum Cover {
    public static let names = ["cover.jpg", "cover.jpeg", "cover.png"]
    /// The largest cover kept.
    public static let limit = 20 * 1_048_576

    /// Reads the picture inside an audio file (FFmpeg, which ShelfCore does not link): set by the programs that
    /// have the player (`shelf`), nil elsewhere, where only the catalog's image is kept.
    public static let embeddedPicture = Mutex<(@Sendable (URL) -> Data?)?>(nil)

    /// The cover kept in `directory`, if any.
    public static func file(in directory: URL) -> URL? {
        names.lazy.map { directory.appendingPathComponent($0) }.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// `cover.png` or `cover.jpg` for an image's bytes; nil for anything else.
    public static func name(for body: Data) -> String? {
        if body.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "cover.png" }
        if body.starts(with: [0xFF, 0xD8, 0xFF]) { return "cover.jpg" }
        return nil
    }

    /// Why a cover was not kept: one line, for the log (a cover never fails a download).
    public struct Skipped: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `body` as the cover in `directory` (atomically, replacing another kept there); throws `Skipped` when it
    /// is not a PNG or JPEG image or is over the limit.
    @discardableResult
    public static func keep(_ body: Data, in directory: URL) throws -> URL {
        guard body.count <= limit else { throw Skipped(description: "the cover is over 20 MB (\(body.count) bytes)") }
        guard let name = name(for: body) else { throw Skipped(description: "the cover is not a PNG or JPEG image") }
        let file = directory.appendingPathComponent(name)
        try body.write(to: file, options: .atomic)
        for other in names where other != name { try? FileManager.default.removeItem(at: directory.appendingPathComponent(other)) }
        return file
    }

    /// Keeps the picture inside the audio `file` (as `read` finds it) as the cover in `directory`, unless that same
    /// picture is kept there already; false when the file carries no PNG or JPEG picture.
    @discardableResult
    public static func keepPicture(inside file: URL, in directory: URL, read: (URL) -> Data?) -> Bool {
        guard let picture = read(file), name(for: picture) != nil else { return false }
        if let kept = self.file(in: directory), (try? Data(contentsOf: kept)) == picture { return true }
        return (try? keep(picture, in: directory)) != nil
    }

    /// Fetches the cover at `url` through `session` (the patron's sign-in on the library's own host) into
    /// `directory`; throws `Skipped` or the network's error.
    @discardableResult
    public static func fetch(_ url: URL, session: LibrarySession, into directory: URL) throws -> URL {
        let response = try session.send(url, limit: limit + 1)
        guard (200..<300).contains(response.status) else {
            throw Skipped(description: "the library answered \(response.status) for the cover (\(Redaction.url(url.absoluteString)))")
        }
        return try keep(response.body, in: directory)
    }
}

extension FulfilmentService {
    /// Keeps the title's cover beside its files once they are all there, unless one is kept already; a cover that
    /// cannot be had is a line in the log, never a failed download.
    func keepCover(_ edition: EditionRef) {
        let directory = home.files(library: edition.libraryID, edition: edition.rowID)
        // A book that came as audio files (one m4b or mp3, a zip of them) usually carries its cover: that one first.
        if let read = Cover.embeddedPicture.withLock({ $0 }), let record = try? store.fulfilment(of: edition),
            let manifest = try? AudiobookManifest.parse(Data(record.manifest.utf8),
                                                        url: URL(string: record.manifestURL ?? "") ?? directory),
            manifest.toc.isEmpty, let first = manifest.parts.first,
            Cover.keepPicture(inside: directory.appendingPathComponent(Self.fileName(first)), in: directory, read: read)
        {
            return
        }
        guard Cover.file(in: directory) == nil,
            let link = (try? store.edition(edition))?.coverURL, let url = URL(string: link)
        else { return }
        do {
            try Cover.fetch(url, session: session, into: directory)
        } catch {
            logLine("no cover kept: \(error)")
        }
    }
}
