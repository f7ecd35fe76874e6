import ShelfCore

/// Chapters as a person counts them: a contents entry that is front or back matter (opening credits, an intro, a
/// copyright notice, the closing credits) has no number, so "Chapter 1" is chapter 1 of however many there are,
/// and the credits are not counted as one.
struct ChapterNumbers: Equatable {
    /// Each entry's number from 1, or nil for front or back matter.
    let numbers: [Int?]
    /// How many entries are numbered.
    let count: Int

    /// Titles (lowercased, before any punctuation or number) that are not chapters.
    static let matter: [String] = [
        "opening credits", "closing credits", "end credits", "credits", "intro", "outro", "copyright", "dedication",
        "acknowledgments", "acknowledgements", "about the author", "about the authors", "about the narrator",
        "title page", "epigraph", "also by",
    ]

    init(titles: [String]) {
        var numbers: [Int?] = []
        var next = 1
        for title in titles {
            if Self.isMatter(title) {
                numbers.append(nil)
            } else {
                numbers.append(next)
                next += 1
            }
        }
        // A contents of nothing but credits (or that names nothing as chapters) counts every entry.
        if next == 1 {
            numbers = titles.indices.map { $0 + 1 }
            next = titles.count + 1
        }
        self.numbers = numbers
        count = next - 1
    }

    init(book: Audiobook) { self.init(titles: book.chapters.map(\.title)) }

    static func isMatter(_ title: String) -> Bool {
        let words = title.lowercased().trimmingCharacters(in: .whitespaces)
        return matter.contains { name in
            guard words.hasPrefix(name) else { return false }
            // "Credits", "Intro: the harbour", "Copyright 2024"; not "Introduction to …" or "Intros".
            let rest = words.dropFirst(name.count)
            return rest.isEmpty || !(rest.first!.isLetter)
        }
    }

    /// The entry whose number is `number`, if any.
    func entry(numbered number: Int) -> Int? { numbers.firstIndex(of: number) }
}
