import Foundation

/// Deterministic synthetic works for load tests: the same number always makes the same work, so the
/// catalog needs no storage and two runs serve identical bytes.
enum SyntheticTitles {
    private static let idPrefix = "urn:uuid:5eed0000-0000-4000-8000-"

    static func id(number: Int) -> String {
        let hex = String(number, radix: 16)
        return idPrefix + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    static func number(fromID id: String) -> Int? {
        guard id.hasPrefix(idPrefix) else { return nil }
        return Int(id.dropFirst(idPrefix.count), radix: 16)
    }

    /// 2024-01-01T00:00:00Z; synthetic works were updated one minute apart after it.
    static let epoch = Date(timeIntervalSince1970: 1_704_067_200)

    static func title(number: Int) -> DemoTitle {
        var random = SplitMix64(seed: UInt64(number) &* 0x2545_f491_4f6c_dd1d)
        func pick<T>(_ list: [T]) -> T { list[Int(random.next() % UInt64(list.count))] }

        let medium: DemoTitle.Medium = number % 5 == 4 ? .ebook : .audiobook
        let license: DemoTitle.LicensePool
        switch number % 10 {
        case 0, 1, 2:
            license = .openAccess
        case 3, 4, 5, 6:
            let total = 1 + number % 7
            license = .init(copiesTotal: total, copiesAvailable: 1 + number % total, holdsTotal: 0)
        default:
            license = .init(copiesTotal: 1 + number % 3, copiesAvailable: 0, holdsTotal: 1 + number % 9)
        }
        let author = "\(pick(givenNames)) \(pick(familyNames))"
        let summary = "<p>\(pick(sentences))</p><p><i>Catalogue number \(number).</i></p>"
        let title = "The \(pick(adjectives)) \(pick(nouns)) of \(pick(places))"
        let updated = epoch.addingTimeInterval(TimeInterval(number * 60))
        return DemoTitle(
            id: id(number: number),
            title: title,
            subtitle: number % 3 == 0 ? "A \(pick(adjectives)) Tale" : nil,
            authors: [author],
            narrators: medium == .audiobook ? ["\(pick(givenNames)) \(pick(familyNames))"] : [],
            summary: summary,
            publisher: medium == .audiobook ? "LibriVox" : "Standard Ebooks",
            issued: "\(1850 + number % 120)-\(["01", "04", "07", "10"][number % 4])-15",
            language: number % 17 == 0 ? "fr" : "en",
            categories: [
                genres[number % genres.count],
                genres[(number % genres.count + 1 + number / genres.count % (genres.count - 1)) % genres.count],
            ],
            audience: number % 11 == 0 ? "Young Adult" : "Adult",
            distributor: license.openAccess ? (medium == .audiobook ? "LibriVox" : "Standard Ebooks") : "Palace Marketplace",
            medium: medium,
            duration: medium == .audiobook ? Double(3_600 + (number * 7_919) % 60_000) : nil,
            published: updated,
            updated: updated,
            license: license
        )
    }

    private static let adjectives = [
        "Silent", "Crimson", "Forgotten", "Last", "Golden", "Hidden", "Northern", "Winter", "Distant", "Hollow",
        "Secret", "Ancient", "Burning", "Quiet", "Wandering", "Broken", "Lost", "Iron", "Emerald", "Midnight",
    ]
    private static let nouns = [
        "Lighthouse", "Garden", "Voyage", "Letter", "Orchard", "Harbour", "Manor", "River", "Clockmaker", "Bridge",
        "Archive", "Lantern", "Mountain", "Carriage", "Library", "Compass", "Island", "Violin", "Signal", "Meadow",
    ]
    private static let places = [
        "Avonlea", "Barchester", "Cranford", "Dunmore", "Eastwick", "Fernhill", "Glenmoor", "Hartfield",
        "Ironbridge", "Kestrel Bay", "Longbourn", "Marshwood", "Netherby", "Oakhurst", "Pemberton", "Thornfield",
    ]
    private static let givenNames = [
        "Ada", "Charles", "Elizabeth", "George", "Harriet", "Henry", "Jane", "John", "Louisa", "Mark",
        "Mary", "Nathaniel", "Olive", "Robert", "Sarah", "Thomas", "Virginia", "Walter", "Willa", "Edith",
    ]
    private static let familyNames = [
        "Ashworth", "Bellamy", "Carrow", "Dunstan", "Ellery", "Fairfax", "Grantham", "Holloway", "Ingram",
        "Jessop", "Kingsley", "Lowell", "Marlowe", "Norwood", "Oakes", "Prescott", "Quincy", "Radcliffe",
    ]
    private static let genres = [
        "Adventure", "Classics", "Historical Fiction", "Mystery", "Poetry", "Romance", "Science Fiction",
        "Short Stories", "Travel", "Biography & Memoir", "Humor", "Philosophy", "Horror", "Fantasy",
    ]
    private static let sentences = [
        "A young clerk inherits a house whose every room holds a different century.",
        "Across three winters, two sisters keep a lighthouse burning against the advice of the whole village.",
        "When the mail coach fails to arrive, the townsfolk begin to suspect that the road itself has moved.",
        "This recording was made by volunteers and is read in its entirety, with the original chapter titles.",
        "Told in letters, diaries and one very long telegram, the story circles a single misplaced key.",
        "The narrator's gentle pacing suits the book's long evenings and its sudden, startling storms.",
        "An expedition sets out to map a river that appears on no chart & returns with only half its members.",
        "Written in the last years of the century, it was a quiet success and has never been out of print.",
        "A retired magistrate, a botanist and a child with a remarkable memory solve a theft at the county fair.",
        "Readers who enjoy slow-burning mysteries with a generous helping of weather will feel at home here.",
        "Each chapter opens with an extract from an imaginary encyclopedia, which grows stranger as the book goes on.",
        "Originally serialised in a monthly magazine, the novel keeps its cliff-hangers at every chapter's end.",
    ]
}
