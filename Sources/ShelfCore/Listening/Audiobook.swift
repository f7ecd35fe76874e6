import Foundation

/// A borrowed or free audiobook as the player sees it: its part files in reading order, how long each lasts,
/// and its chapters.
public struct Audiobook: Sendable {
    /// One audio file of the reading order.
    public struct Part: Sendable, Equatable {
        public var index: Int
        /// Where the file is, or will be once downloaded.
        public var file: URL
        /// The part's href without its query: what annotations name it by.
        public var readingOrderItem: String
        public var title: String?
        /// Seconds, as the manifest states it (the player prefers the file's own length once it has it).
        public var duration: Double?
        /// Where the part's file stands: downloaded, pending, downloading, failed…
        public var status: PartState
        /// Percent downloaded, when the part is under way.
        public var progress: String?

        public init(index: Int, file: URL, readingOrderItem: String, title: String?, duration: Double?, status: PartState,
                    progress: String?) {
            self.index = index
            self.file = file
            self.readingOrderItem = readingOrderItem
            self.title = title
            self.duration = duration
            self.status = status
            self.progress = progress
        }
    }

    /// A table-of-contents entry: where a chapter starts.
    public struct Chapter: Sendable, Equatable {
        public var title: String
        public var part: Int
        public var offset: Double

        public init(title: String, part: Int, offset: Double) {
            self.title = title
            self.part = part
            self.offset = offset
        }
    }

    public var edition: EditionRef
    public var summary: EditionSummary
    public var parts: [Part]
    /// The manifest's table of contents (flattened), or one chapter per part when it has none.
    public var chapters: [Chapter]
    /// Whether the manifest has a table of contents; without one, chapters may come from the files themselves.
    public var hasTableOfContents = false

    public init(edition: EditionRef, summary: EditionSummary, parts: [Part], chapters: [Chapter], hasTableOfContents: Bool = false) {
        self.edition = edition
        self.summary = summary
        self.parts = parts
        self.chapters = chapters
        self.hasTableOfContents = hasTableOfContents
    }

    /// Whether every part's file is in place.
    public var isComplete: Bool { parts.allSatisfy { FileManager.default.fileExists(atPath: $0.file.path) } }

    /// Takes chapters found in the part files (by part index and seconds into it) as the book's chapters, laid out
    /// as a table of contents would be.
    public mutating func useChapters(_ entries: [(title: String, part: Int, offset: Double)]) {
        let toc = entries.map { AudiobookManifest.Chapter(title: $0.title, partIndex: $0.part, offset: $0.offset, children: []) }
        chapters = Self.chapters(toc: toc, parts: parts)
    }

    /// Builds the chapter list: the toc flattened depth-first and sorted by place, else one per part.
    static func chapters(toc: [AudiobookManifest.Chapter], parts: [Part]) -> [Chapter] {
        func flatten(_ entries: [AudiobookManifest.Chapter]) -> [Chapter] {
            entries.flatMap { [Chapter(title: $0.title, part: $0.partIndex, offset: $0.offset)] + flatten($0.children) }
        }
        var chapters = flatten(toc).filter { parts.indices.contains($0.part) }
        chapters.sort { ($0.part, $0.offset) < ($1.part, $1.offset) }
        // Two entries at one place (a part title and its first chapter) are one chapter to a listener.
        var unique: [Chapter] = []
        for chapter in chapters where unique.last.map({ $0.part != chapter.part || abs($0.offset - chapter.offset) > 0.5 }) ?? true {
            unique.append(chapter)
        }
        if unique.isEmpty {
            return parts.map { Chapter(title: $0.title ?? "Part \($0.index + 1)", part: $0.index, offset: 0) }
        }
        // Audio before the first toc entry still belongs somewhere.
        if unique[0].part != 0 || unique[0].offset > 0.5 {
            unique.insert(Chapter(title: parts[0].title ?? "Opening", part: 0, offset: 0), at: 0)
        }
        return unique
    }
}

extension Store {
    /// The audiobook behind a title, with its parts where `home` keeps them; throws when it has never been
    /// downloaded (there is no manifest or part list yet).
    public func audiobook(_ edition: EditionRef, home: Home) throws -> Audiobook {
        let summary = try self.summary(of: edition)
        let rowID = edition.rowID
        let directory = home.files(library: edition.libraryID, edition: rowID)
        let rows = try partRecords(of: edition)
        let fulfilment = try self.fulfilment(of: edition)
        let (manifestText, manifestURL) = (fulfilment?.manifest, fulfilment?.manifestURL)
        var manifest: AudiobookManifest?
        if let manifestText, let base = manifestURL.flatMap(URL.init(string:)) {
            manifest = try? AudiobookManifest.parse(Data(manifestText.utf8), url: base)
        } else if let data = try? Data(contentsOf: directory.appendingPathComponent("manifest.json")) {
            // A packaged audiobook keeps its manifest beside its parts.
            manifest = try? AudiobookManifest.parse(data, url: directory.appendingPathComponent("manifest.json"))
        }
        let parts = rows.map { row -> Audiobook.Part in
            let href = manifest?.parts.first { $0.index == row.index }?.href
            // What annotations name the part by, as PositionSync matches it; a packaged book's file URLs are local.
            let item = href.flatMap { $0.hasPrefix("file:") ? nil : PositionSync.withoutQuery($0) } ?? row.hrefPath
            return Audiobook.Part(
                index: row.index, file: directory.appendingPathComponent(row.file), readingOrderItem: item,
                title: row.title, duration: row.duration, status: row.status,
                progress: row.status == .downloading ? row.reason : nil)
        }
        return Audiobook(
            edition: edition, summary: summary, parts: parts,
            chapters: Audiobook.chapters(toc: manifest?.toc ?? [], parts: parts),
            hasTableOfContents: !(manifest?.toc.isEmpty ?? true))
    }
}
