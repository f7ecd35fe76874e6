import Testing
@testable import ShelfCore

/// The byte searches that stand in for Foundation's `contains` on the sync's hot path agree with it.
@Suite(.timeLimit(.minutes(5))) struct ByteSearchTests {
    @Test(arguments: [
        "application/audiobook+json", "application/AUDIOBOOK+JSON", "http://www.feedbooks.com/audiobooks/access-restriction",
        "application/vnd.librarysimplified.findaway.license+json", "", "a", "audiobooK", "audiobo", "xaudiobookx",
        "application/epub+zip", "application/EPUB+zip", "Ünïcödé audiobook", "ÄUDIOBOOK", "lcp", "L", "pdfpdf",
    ])
    func agreesWithLowercasedContains(_ text: String) {
        for needle: StaticString in ["audiobook", "lcp", "epub", "feedbooks.com/audiobooks/access-restriction", "pdf", "a"] {
            let word = needle.description
            #expect(text.containsIgnoringASCIICase(needle) == text.lowercased().contains(word), "\(text) / \(word)")
            #expect(text.containsBytes(needle) == text.contains(word), "\(text) / \(word)")
            #expect(text[...].containsBytes(needle) == text.contains(word), "substring \(text) / \(word)")
        }
    }
}
