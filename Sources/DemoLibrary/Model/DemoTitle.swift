import Foundation

/// One work in the demo library, with the license pool that decides how it can be acquired.
public struct DemoTitle: Codable, Sendable, Hashable {
    /// Whether the work is read or listened to.
    public enum Medium: String, Codable, Sendable, Hashable {
        case audiobook
        case ebook
    }

    /// The library's copies of a work and the queue waiting for them.
    public struct LicensePool: Codable, Sendable, Hashable {
        /// Copies the library owns; ignored for open-access works.
        public var copiesTotal: Int
        /// Copies not on loan right now.
        public var copiesAvailable: Int
        /// Patrons waiting in the holds queue.
        public var holdsTotal: Int
        /// Anyone may download the work without borrowing it.
        public var openAccess: Bool

        /// Creates a license pool.
        public init(copiesTotal: Int = 1, copiesAvailable: Int = 1, holdsTotal: Int = 0, openAccess: Bool = false) {
            self.copiesTotal = copiesTotal
            self.copiesAvailable = copiesAvailable
            self.holdsTotal = holdsTotal
            self.openAccess = openAccess
        }

        private enum CodingKeys: String, CodingKey { case copiesTotal, copiesAvailable, holdsTotal, openAccess }

        /// Decodes a pool; absent counts are zero and absent `openAccess` is false.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            copiesTotal = try c.decodeIfPresent(Int.self, forKey: .copiesTotal) ?? 0
            copiesAvailable = try c.decodeIfPresent(Int.self, forKey: .copiesAvailable) ?? 0
            holdsTotal = try c.decodeIfPresent(Int.self, forKey: .holdsTotal) ?? 0
            openAccess = try c.decodeIfPresent(Bool.self, forKey: .openAccess) ?? false
        }

        /// A pool for a public-domain work.
        public static let openAccess = LicensePool(copiesTotal: 0, copiesAvailable: 0, holdsTotal: 0, openAccess: true)
    }

    /// A price for a work offered for sale rather than loan.
    public struct Price: Codable, Sendable, Hashable {
        /// Decimal amount as written in the feed, e.g. `"4.99"`.
        public var amount: String
        /// ISO 4217 currency code.
        public var currency: String

        /// Creates a price.
        public init(amount: String, currency: String = "USD") {
            self.amount = amount
            self.currency = currency
        }
    }

    /// A series a work belongs to (`schema:series`, OPDS 2 `belongsTo.series`).
    public struct Series: Codable, Sendable, Hashable {
        /// The series' name.
        public var name: String
        /// The work's place in it, as written (`3`, `2.5`).
        public var position: String?

        /// Creates a series entry.
        public init(name: String, position: String? = nil) {
            self.name = name
            self.position = position
        }
    }

    /// Stable Atom id, `urn:uuid:…` or `urn:isbn:…`; also the path segment of the work's URLs.
    public var id: String
    /// Title as displayed.
    public var title: String
    /// Subtitle (`schema:alternativeHeadline`).
    public var subtitle: String?
    /// Authors, in credit order.
    public var authors: [String]
    /// Narrators of an audiobook (`opf:role="nrt"`).
    public var narrators: [String]
    /// HTML summary, as circulation managers send it (escaped once more in the feed).
    public var summary: String
    /// Publisher (`dcterms:publisher`).
    public var publisher: String
    /// Publication date, `yyyy-mm-dd`.
    public var issued: String
    /// BCP 47 language code.
    public var language: String
    /// Genre labels from the Library Simplified genre list.
    public var categories: [String]
    /// Audience: Adult, Young Adult or Children.
    public var audience: String
    /// The distributor named in `bibframe:distribution`.
    public var distributor: String
    /// Audiobook or ebook.
    public var medium: Medium
    /// Running time in seconds, for audiobooks.
    public var duration: Double?
    /// Cover image path relative to the server root; `covers/<id>.png` when absent.
    public var cover: String?
    /// When the library first offered the work.
    public var published: Date
    /// When the entry last changed; what incremental sync keys on.
    public var updated: Date
    /// Overrides the acquisition link's href; relative paths resolve against the server root.
    public var acquisitionHref: String?
    /// Copies, holds and open access.
    public var license: LicensePool
    /// Unpublished (`app:draft`) entry.
    public var draft: Bool
    /// Set for works offered through `acquisition/buy`.
    public var price: Price?
    /// The series the work belongs to.
    public var series: Series?
    /// Set for works offered as one audio file (or a zip of them) with no circulation markup, as calibre offers them.
    public var singleFile: SingleFile?

    /// Creates a title; only what identifies and describes it is required.
    public init(
        id: String,
        title: String,
        subtitle: String? = nil,
        authors: [String],
        narrators: [String] = [],
        summary: String = "",
        publisher: String = "LibriVox",
        issued: String = "2010-01-01",
        language: String = "en",
        categories: [String] = [],
        audience: String = "Adult",
        distributor: String = "LibriVox",
        medium: Medium = .audiobook,
        duration: Double? = nil,
        cover: String? = nil,
        published: Date = Date(timeIntervalSince1970: 1_700_000_000),
        updated: Date = Date(timeIntervalSince1970: 1_700_000_000),
        acquisitionHref: String? = nil,
        license: LicensePool = .openAccess,
        draft: Bool = false,
        price: Price? = nil,
        series: Series? = nil,
        singleFile: SingleFile? = nil
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.authors = authors
        self.narrators = narrators
        self.summary = summary
        self.publisher = publisher
        self.issued = issued
        self.language = language
        self.categories = categories
        self.audience = audience
        self.distributor = distributor
        self.medium = medium
        self.duration = duration
        self.cover = cover
        self.published = published
        self.updated = updated
        self.acquisitionHref = acquisitionHref
        self.license = license
        self.draft = draft
        self.price = price
        self.series = series
        self.singleFile = singleFile
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, subtitle, authors, narrators, summary, publisher, issued, language, categories
        case audience, distributor, medium, duration, cover, published, updated, acquisitionHref, license
        case draft, price, series, singleFile
    }

    /// Decodes a title; optional fields take the same defaults as the memberwise initializer.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decode(String.self, forKey: .title)
        subtitle = try c.decodeIfPresent(String.self, forKey: .subtitle)
        authors = try c.decode([String].self, forKey: .authors)
        narrators = try c.decodeIfPresent([String].self, forKey: .narrators) ?? []
        summary = try c.decodeIfPresent(String.self, forKey: .summary) ?? ""
        publisher = try c.decodeIfPresent(String.self, forKey: .publisher) ?? "LibriVox"
        issued = try c.decodeIfPresent(String.self, forKey: .issued) ?? "2010-01-01"
        language = try c.decodeIfPresent(String.self, forKey: .language) ?? "en"
        categories = try c.decodeIfPresent([String].self, forKey: .categories) ?? []
        audience = try c.decodeIfPresent(String.self, forKey: .audience) ?? "Adult"
        distributor = try c.decodeIfPresent(String.self, forKey: .distributor) ?? "LibriVox"
        medium = try c.decodeIfPresent(Medium.self, forKey: .medium) ?? .audiobook
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        cover = try c.decodeIfPresent(String.self, forKey: .cover)
        updated = try c.decode(Date.self, forKey: .updated)
        published = try c.decodeIfPresent(Date.self, forKey: .published) ?? updated
        acquisitionHref = try c.decodeIfPresent(String.self, forKey: .acquisitionHref)
        license = try c.decodeIfPresent(LicensePool.self, forKey: .license) ?? .openAccess
        draft = try c.decodeIfPresent(Bool.self, forKey: .draft) ?? false
        price = try c.decodeIfPresent(Price.self, forKey: .price)
        series = try c.decodeIfPresent(Series.self, forKey: .series)
        singleFile = try c.decodeIfPresent(SingleFile.self, forKey: .singleFile)
    }
}

extension DemoTitle {
    /// Where the cover is served, relative to the server root.
    var coverPath: String { cover ?? "covers/\(id).png" }
}

/// A work offered as one file: an m4b, mp3 or ogg with its chapters inside, or a zip of mp3 files with no manifest.
public struct SingleFile: Codable, Sendable, Hashable {
    /// The kind of file.
    public enum Format: String, Codable, Sendable, Hashable, CaseIterable {
        /// AAC in MP4, chapters as chapter atoms.
        case m4b
        /// MP3 with ID3v2 CHAP/CTOC frames.
        case mp3
        /// Vorbis in Ogg with `CHAPTERxx` comments.
        case ogg
        /// A zip of MP3 files (one per chapter, named for natural order) and a text file, with no manifest.
        case zip

        /// The acquisition link's type.
        public var mediaType: String {
            switch self {
            case .m4b: "audio/x-m4b"
            case .mp3: "audio/mpeg"
            case .ogg: "audio/ogg"
            case .zip: "application/zip"
            }
        }
    }

    public var format: Format
    /// Chapter titles, in order.
    public var chapters: [String]
    /// How long each chapter lasts.
    public var chapterSeconds: Int

    /// A file of `chapters`, each `chapterSeconds` long.
    public init(format: Format, chapters: [String], chapterSeconds: Int = 2) {
        self.format = format
        self.chapters = chapters
        self.chapterSeconds = chapterSeconds
    }

    private enum CodingKeys: String, CodingKey { case format, chapters, chapterSeconds }

    /// Decodes a file; absent `chapterSeconds` is 2.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(Format.self, forKey: .format)
        chapters = try c.decode([String].self, forKey: .chapters)
        chapterSeconds = try c.decodeIfPresent(Int.self, forKey: .chapterSeconds) ?? 2
    }

    /// The file's name in its link (`book.m4b`, …).
    public var fileName: String { "book." + format.rawValue }
}
