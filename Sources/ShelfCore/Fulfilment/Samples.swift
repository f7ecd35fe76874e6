import Foundation
import GRDB

/// A title's sample or preview (`http://opds-spec.org/acquisition/sample`, `…/preview`): heard before borrowing or
/// joining a long hold, without a loan, and without keeping anything but the fact it was heard.
public struct SampleLink: Sendable, Equatable {
    public var href: String
    public var type: String?

    public init(href: String, type: String?) {
        self.href = href
        self.type = type
    }

    /// What the link offers: audio to play, a Readium audiobook manifest of parts, something protected, or
    /// something else (a web page, an ebook's sample).
    public enum Content: Equatable {
        case audio, manifest, protected(String), other
    }

    public var content: Content {
        guard let type, !type.isEmpty else {
            return AudioTypes.audioExtensions.contains(AudioTypes.fileExtension(href)) ? .audio : .other
        }
        if let scheme = ProtectionScheme.recognise(type) { return .protected(scheme.rawValue) }
        if AudioTypes.isAudio(type) { return .audio }
        if AudioTypes.bare(type) == "application/audiobook+json" { return .manifest }
        if AudioTypes.bare(type) == "application/octet-stream",
            AudioTypes.audioExtensions.contains(AudioTypes.fileExtension(href)) { return .audio }
        return .other
    }
}

/// Why a sample could not be played.
public enum SampleError: ShelfFailure, Equatable {
    case none(title: String)
    case protected(title: String, scheme: String)
    case notAudio(title: String, type: String)
    case gone(title: String, url: String, status: Int)

    public var exitCode: ShelfExit {
        switch self {
        case .none: .notFound
        case .protected, .notAudio: .protectedContent
        case .gone: .noSuchPage
        }
    }

    public var description: String {
        switch self {
        case .none(let title): "the library's catalog offers no sample of \(title)"
        case .protected(let title, let scheme):
            "the sample of \(title) is protected by \(scheme) DRM; shelf can play open samples only"
        case .notAudio(let title, let type):
            "the sample of \(title) is not audio (\(type)); open it in a web browser instead"
        case .gone(let title, let url, let status):
            "the library no longer serves the sample of \(title) at \(Redaction.url(url)) (\(status)); there is nothing "
                + "to play until it does"
        }
    }
}

extension Store {
    /// The title's sample and preview links as the last sync stored them, audio first, then manifests.
    public func samples(of edition: EditionRef) throws(StoreError) -> [SampleLink] {
        let links = try read { db in
            (try Store.editionDetail(db, rowID: edition.rowID)?.acquisitions ?? [])
                .filter { [.sample, .preview].contains($0.kind) }
                .map { SampleLink(href: $0.href, type: $0.type) }
        }
        func rank(_ link: SampleLink) -> Int {
            switch link.content {
            case .audio: 0
            case .manifest: 1
            case .protected: 2
            case .other: 3
            }
        }
        return links.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    private static func sampleKey(_ edition: EditionRef) -> String { "sample.heard.\(edition.libraryID).\(edition.rowID)" }

    /// Notes that the title's sample was heard (the one thing a sample keeps).
    public func noteSampleHeard(_ edition: EditionRef, at date: Date = Date()) throws(StoreError) {
        try setSetting(Self.sampleKey(edition), to: String(date.timeIntervalSince1970))
    }

    /// When the title's sample was last heard, if ever.
    public func sampleHeard(_ edition: EditionRef) throws(StoreError) -> Date? {
        try setting(Self.sampleKey(edition)).flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
    }
}

/// Fetches a sample to a folder of its own: one audio file, or the parts a sample manifest lists.
public enum SampleFetch {
    /// The most a sample may weigh in all: a sample is minutes long, not a book.
    public static let limit: Int64 = 200 * 1_048_576

    /// The sample's audio files, in order, fetched into `directory` through the library's session (its sign-in,
    /// for a library that wants one). Throws `SampleError` for a link that cannot be played.
    public static func fetch(
        _ link: SampleLink, title: String, session: LibrarySession, into directory: URL
    ) throws -> [(file: URL, title: String?)] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch link.content {
        case .protected(let scheme): throw SampleError.protected(title: title, scheme: scheme)
        case .other: throw SampleError.notAudio(title: title, type: link.type ?? "no type given")
        case .audio:
            let file = directory.appendingPathComponent("sample." + extensionFor(link))
            try download(link.href, title: title, session: session, to: file)
            return [(file, nil)]
        case .manifest:
            guard let url = URL(string: link.href) else { throw SampleError.notAudio(title: title, type: "a malformed link") }
            let response = try session.send(url, limit: 4 * 1_048_576)
            try check(response, url: link.href, title: title)
            let manifest = try AudiobookManifest.parse(response.body, url: URL(string: response.url) ?? url)
            if let scheme = manifest.protection { throw SampleError.protected(title: title, scheme: scheme.rawValue) }
            var files: [(file: URL, title: String?)] = []
            for (index, part) in manifest.parts.enumerated() {
                guard part.type.map(AudioTypes.isAudio) ?? true else {
                    throw SampleError.notAudio(title: title, type: part.type ?? "")
                }
                let file = directory.appendingPathComponent(String(format: "part-%03d.", index + 1)
                                                            + AudioTypes.fileExtension(forType: part.type))
                try download(part.href, title: title, session: session, to: file)
                files.append((file, part.title))
            }
            return files
        }
    }

    private static func extensionFor(_ link: SampleLink) -> String {
        let named = AudioTypes.fileExtension(link.href)
        return AudioTypes.audioExtensions.contains(named) ? named : AudioTypes.fileExtension(forType: link.type)
    }

    private static func download(_ href: String, title: String, session: LibrarySession, to file: URL) throws {
        guard let url = URL(string: href) else { throw SampleError.notAudio(title: title, type: "a malformed link") }
        let spill = file.appendingPathExtension("part")
        defer { try? FileManager.default.removeItem(at: spill) }
        let response = try session.send(url, spillingTo: spill)
        try check(response, url: href, title: title)
        // A page where audio should be (a sign-in form, an error page): said, not played as noise.
        if let type = response.header("content-type"), !AudioTypes.isAudio(type),
            AudioTypes.bare(type).hasPrefix("text/") || AudioTypes.bare(type).contains("json")
        {
            throw SampleError.notAudio(title: title, type: AudioTypes.bare(type))
        }
        if let written = response.bodyFile {
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: written, to: file)
        } else {
            guard Int64(response.body.count) <= limit else { throw SampleError.notAudio(title: title, type: "too large") }
            try response.body.write(to: file, options: .atomic)
        }
    }

    private static func check(_ response: HTTPResponse, url: String, title: String) throws {
        if [403, 404, 410].contains(response.status) { throw SampleError.gone(title: title, url: url, status: response.status) }
        guard (200..<300).contains(response.status) else { throw NetworkError.httpStatus(url: url, status: response.status) }
    }
}
