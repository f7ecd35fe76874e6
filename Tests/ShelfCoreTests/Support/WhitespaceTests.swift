import Foundation
import Testing
@testable import ShelfCore

/// The trimming that stands in for Foundation's `trimmingCharacters(in:)` on the sync's hot path agrees with it, on
/// every white-space character Unicode has and on the text around them.
@Suite(.timeLimit(.minutes(5))) struct WhitespaceTests {
    /// Every scalar in `.whitespacesAndNewlines` (Unicode's white space and, on Linux, the zero-width space), and some
    /// that look like space but are not (zero-width joiner, BOM, Mongolian vowel separator, NUL).
    static let spaces: [Unicode.Scalar] = (0...0x3000).compactMap(Unicode.Scalar.init).filter {
        CharacterSet.whitespacesAndNewlines.contains($0)
    }
    static let lookalikes: [Unicode.Scalar] = ["\u{200D}", "\u{FEFF}", "\u{180E}", "\u{0}", "\u{1F}", "\u{7F}"]

    @Test func theScalarTestsAreFoundationsSets() {
        #expect(Self.spaces.count == 26)
        let (all, spaces) = (CharacterSet.whitespacesAndNewlines, CharacterSet.whitespaces)
        let differing = (0...0x10FFFF).lazy.compactMap(Unicode.Scalar.init).filter {
            $0.isWhitespaceOrLineEnd != all.contains($0) || $0.isSpaceOrTab != spaces.contains($0)
        }
        #expect(Array(differing.map(\.value)) == [])
    }

    @Test func trimsAsFoundationDoes() {
        var texts = ["", "a", "Ursula K. Le Guin", " Shōgun ", "\t\n", "PT10H2M", "  1  ", "a b", "é\u{301} ", " \u{301}x"]
        for scalar in Self.spaces + Self.lookalikes {
            let space = String(scalar)
            texts += [space, space + "x", "x" + space, space + "x y" + space + space, "x" + space + "y", space + space]
        }
        for text in texts {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
            #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "\(Array(text.unicodeScalars))")
            #expect(text.isBlank == text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
            #expect(text[...].trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test(arguments: [
        "audio/mpeg", "AUDIO/MP4", " audio/ogg; codecs=opus", "\taudio/x-m4b", "audio/", "audio", "audi/o", "",
        "application/audiobook+json", "video/audio/", ";audio/mpeg", " ; audio/mpeg", "\u{00A0}audio/mpeg",
        "\u{2003}Audio/Flac", "\naudio/mpeg", "audİo/mpeg", "ａudio/mpeg", "audio/mpeg\u{0301}",
    ])
    func audioTypesAgreeWithTheBareType(_ type: String) {
        #expect(AudioTypes.isAudio(type) == AudioTypes.bare(type).hasPrefix("audio/"), "\(type)")
        let old = String(type.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
            .lowercased()
        #expect(AudioTypes.bare(type) == old, "\(type)")
    }
}
