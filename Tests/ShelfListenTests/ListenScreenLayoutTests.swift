import Foundation
import ShelfPlayback
import Testing
@testable import ShelfCore
@testable import ShelfListen

/// The player's screen at every window size: never more lines than rows, never a line wider than the columns
/// (counted in terminal columns, the ▶ ❚ █ ░ glyphs included), and what must stay in sight does.
@Suite(.timeLimit(.minutes(5))) struct ListenScreenLayoutTests {
    private func lines(_ session: Harness, rows: Int, columns: Int, skip: Double = 30) -> [String] {
        ListenScreen.lines(of: session.machine, skip: skip, rows: rows, columns: columns)
    }

    /// Sessions in each mode, with a message and a prompt typed long.
    private var sessions: [(String, Harness)] {
        var player = Harness()
        _ = player.key("]")
        var prompt = Harness()
        _ = prompt.key("b")
        for character in "A very long name for a bookmark, much wider than any window it is typed in — 長い名前" {
            _ = prompt.key(character)
        }
        var contents = Harness()
        _ = contents.key("t")
        var help = Harness()
        _ = help.key("?")
        var paused = Harness()
        _ = paused.key(" ")
        return [("player", player), ("prompt", prompt), ("contents", contents), ("help", help), ("paused", paused)]
    }

    /// Thousands of layouts take most of a minute in a debug build: they run on a thread of their own, not on one of
    /// the test run's shared threads (two on two cores), which the in-process servers of other suites need.
    @Test func noSizeDrawsMoreThanFits() async {
        let sessions = Unchecked(self.sessions)
        let problems: [String] = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var problems: [String] = []
                for (name, session) in sessions.value {
                    for rows in 1...30 {
                        for columns in Array(1...24) + Array(stride(from: 25, through: 130, by: 7)) {
                            let screen = ListenScreen.lines(of: session.machine, skip: 30, rows: rows, columns: columns)
                            if screen.count > rows { problems.append("\(name) \(columns)×\(rows): \(screen.count) lines") }
                            if let wide = screen.first(where: { TextWidth.of($0) > columns }) {
                                problems.append("\(name) \(columns)×\(rows): \(wide)")
                            }
                        }
                    }
                }
                continuation.resume(returning: problems)
            }
        }
        #expect(problems.isEmpty, "\(problems.count) sizes do not fit, among them \(problems.prefix(5))")
    }

    @Test func at80x24EverythingShowsWithHelpAndQuit() {
        let screen = lines(Harness(), rows: 24, columns: 80)
        let text = screen.joined(separator: "\n")
        for wanted in ["The Test Book", "by A. Writer · read by A. Reader", "Chapter 1 (1 of 4)", "chapter  0:10 / 0:25   −0:15",
                       "book     0:15 / 2:00   −1:45   12%", "█", "▶ playing · 1.0×", "? help", "q quit", "space pause",
                       "←/→ 30 s", "↑/↓ 5 min", "g go to", "b bookmark", "F finished"] {
            #expect(text.contains(wanted), "\(wanted) in\n\(text)")
        }
        // The hints take two lines at most, the last ending with help and quit.
        let hints = screen.suffix(2)
        #expect(hints.last?.hasSuffix("? help · q quit") == true, "\(screen)")
        #expect(screen.count <= 24)
    }

    @Test func at60x15TheEssentialsStay() {
        var session = Harness()
        session.setSleep("15")
        let screen = lines(session, rows: 15, columns: 60)
        let text = screen.joined(separator: "\n")
        #expect(screen.count <= 15)
        for wanted in ["The Test Book", "Chapter 1 (1 of 4)", "book     0:15 / 2:00", "▶ playing", "Sleep timer: 15 minutes",
                       "? help · q quit"] {
            #expect(text.contains(wanted), "\(wanted) in\n\(text)")
        }
    }

    /// Lines go in order of least use as rows shrink: spacers first, then the byline, the chapter's times, the bar;
    /// the title, chapter, book time, play state, message and `? help · q quit` stay down to six rows.
    @Test func linesGoInOrderOfLeastUse() {
        var session = Harness()
        session.setSleep("15")
        var previous = Int.max
        var lost: [String] = []
        let watched = ["read by", "chapter  ", "░", "The Test Book", "Chapter 1 (1 of 4)", "book  ", "▶ playing", "Sleep timer",
                       "? help · q quit"]
        for rows in stride(from: 24, through: 1, by: -1) {
            let text = lines(session, rows: rows, columns: 80).joined(separator: "\n")
            for item in watched where !text.contains(item) && !lost.contains(item) { lost.append(item) }
            if rows >= 6 {
                for item in watched.suffix(6) { #expect(text.contains(item), "\(item) at 80×\(rows)") }
            }
            previous = min(previous, rows)
        }
        #expect(Array(lost.prefix(3)) == ["read by", "chapter  ", "░"], "\(lost)")
    }

    @Test func at20x5ItCutsAndKeepsThePlayState() {
        let screen = lines(Harness(), rows: 5, columns: 20)
        #expect(screen.count == 5, "\(screen)")
        #expect(screen.contains { $0.contains("▶ playing") }, "\(screen)")
        #expect(screen.allSatisfy { TextWidth.of($0) <= 20 })
    }

    /// A cover (24 cells of colour, 12 rows) goes beside the player from 100 columns and as many rows, never over
    /// the window's edges, and the player's essentials stay.
    @Test func aCoverGoesBesideThePlayerOnlyWhereItFits() {
        let cover = Array(repeating: "\u{1B}[38;5;1;48;5;167m" + String(repeating: "▀", count: 24) + "\u{1B}[0m", count: 12)
        let session = Harness()
        for rows in [10, 14, 24, 40] {
            for columns in [60, 99, 100, 130] {
                let screen = ListenScreen.lines(of: session.machine, skip: 30, rows: rows, columns: columns, cover: cover)
                #expect(screen.count <= rows && screen.allSatisfy { TextWidth.of($0) <= columns }, "\(columns)×\(rows)")
                let text = screen.joined(separator: "\n")
                #expect(text.contains("The Test Book") && text.contains("? help · q quit"), "\(columns)×\(rows)")
                #expect(text.contains("▀") == (columns >= 100 && rows >= 14), "\(columns)×\(rows)")
            }
        }
    }

    @Test func theHintsAndHelpSayTheRealSkip() {
        let player = lines(Harness(), rows: 24, columns: 80, skip: 10).joined(separator: "\n")
        #expect(player.contains("←/→ 10 s") && !player.contains("30 s"), "\(player)")
        var session = Harness()
        _ = session.key("?")
        let help = lines(session, rows: 24, columns: 80, skip: 90).joined(separator: "\n")
        #expect(help.contains("back / forward 1:30"), "\(help)")
        #expect(ListenScreen.skipLabel(10) == "10 s" && ListenScreen.skipLabel(45.4) == "45 s")
    }

    /// Every key and every word of what it does is on the help at 80×24, 60×20 and 40×10: wrapped, never cut, in
    /// pages turned with ↓ when it is too long for the window.
    @Test func theHelpShowsEveryKeyWhollyAtEverySize() {
        let entries = ListenScreen.helpEntries(skip: 30)
        for (rows, columns) in [(24, 80), (20, 60), (10, 40)] {
            var session = Harness()
            _ = session.key("?")
            var pages: [String] = []
            for _ in 0..<8 {
                let screen = lines(session, rows: rows, columns: columns)
                #expect(screen.count <= rows && screen.allSatisfy { TextWidth.of($0) <= columns })
                let text = screen.joined(separator: "\n")
                if pages.contains(text) { break }
                pages.append(text)
                _ = session.key(.down)
            }
            // The words of every entry, in order, whatever the lines they were wrapped onto.
            let words = pages.joined(separator: " ").split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
            for entry in entries {
                let what = entry.what.split(separator: " ").joined(separator: " ")
                #expect(words.contains(what), "“\(entry.what)” at \(columns)×\(rows)")
                #expect(words.contains(entry.keys.split(separator: " ").joined(separator: " ")), "\(entry.keys)")
            }
            #expect((pages.count == 1) == (rows == 24), "\(pages.count) pages at \(columns)×\(rows)")
        }
    }

    @Test func thePromptShowsWhatIsTypedAtTheEnd() {
        var session = Harness()
        _ = session.key("g")
        for character in "1:2" { _ = session.key(character) }
        let text = lines(session, rows: 24, columns: 80).joined(separator: "\n")
        #expect(text.contains("Go to (1:23:00, 83:00, 45 or 50%): 1:2▏"), "\(text)")
        let narrow = lines(session, rows: 24, columns: 20).joined(separator: "\n")
        #expect(narrow.contains("1:2▏"), "\(narrow)")
    }

    @Test func displayWidthCountsGlyphsAndWideCharacters() {
        #expect(TextWidth.of("▶ playing") == 9)
        #expect(TextWidth.of("❚❚ █░") == 5)
        #expect(TextWidth.of("長い") == 4)
        #expect(TextWidth.of("\u{1B}[1mbold\u{1B}[0m") == 4)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.fit("長い名前", to: 5) == "長い")
        #expect(TextWidth.tail("abcdef", 3) == "def")
    }

    /// The chapter line names a contents entry by its title and its number as a person counts chapters (the opening
    /// credits are none), as `t` numbers them; the contents give each entry's start and length.
    @Test func chaptersAreNamedAsTheContentsNumberThem() {
        let book = TestBook.book()
        #expect(ListenScreen.chapterLabel(0, of: book) == "Opening Credits")
        #expect(ListenScreen.chapterLabel(1, of: book) == "Chapter 1 (1 of 4)")
        var session = Harness()
        _ = session.key("t")
        let contents = lines(session, rows: 24, columns: 80)
        #expect(contents.contains { $0.contains("  1     0:05     0:25  Chapter 1") }, "\(contents)")
        #expect(contents.contains { $0.contains("  ·     0:00     0:05  Opening Credits") }, "\(contents)")
        #expect(contents.contains { $0.contains("  4     1:30     0:30  Chapter 4") }, "\(contents)")
    }
}

/// A value handed to a thread of the test's own, which alone uses it until it hands its result back.
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Numbering chapters as a person counts them, and picking one by its number.
@Suite(.timeLimit(.minutes(5))) struct ChapterNumberTests {
    @Test func creditsAndOtherMatterAreNotCounted() {
        let numbers = ChapterNumbers(titles: [
            "Opening Credits", "Intro: the harbour", "Chapter 1", "Introduction to Tides", "Chapter 2", "Copyright 2024",
            "End Credits",
        ])
        #expect(numbers.numbers == [nil, nil, 1, 2, 3, nil, nil])
        #expect(numbers.count == 3)
        #expect(numbers.entry(numbered: 2) == 3 && numbers.entry(numbered: 4) == nil)
        // Nothing but matter: every entry counts.
        #expect(ChapterNumbers(titles: ["Credits", "Credits"]).numbers == [1, 2])
    }

    @Test func digitsInTheContentsChooseAChapterAndEnterPlaysItFromAPause() {
        var session = Harness(at: at(0, 15))
        _ = session.key(" ")
        #expect(session.state == .paused)
        _ = session.key("t")
        _ = session.key("3")
        #expect(session.machine.tocSelection == 3 && session.machine.tocTyped == "3")
        // "31" is no chapter: the 1 starts a new number.
        _ = session.key("1")
        #expect(session.machine.tocSelection == 1 && session.machine.tocTyped == "1")
        _ = session.key("9")
        #expect(session.machine.message?.text == "There is no chapter 9 (chapters 1 to 4).")
        _ = session.key("4")
        let effects = session.key(.enter).filter { $0 != .redraw }
        #expect(effects == [.seek(at(3, 0)), session.save(at(3, 0)), .play])
        #expect(session.state == .playing && session.machine.mode == .player)
    }
}

/// A title longer than the window is wrapped onto a second line, and the byline goes before it as rows shrink.
@Suite struct LongTitleLayoutTests {
    @Test func aLongTitleWrapsAndOutlivesTheByline() {
        var book = TestBook.book()
        book.summary.title = "The Adventures of Sherlock Holmes and the Case of the Missing Ending"
        let timeline = TestBook.timeline(book)
        func screen(rows: Int) -> String {
            ListenScreen.player(book: book, timeline: timeline, position: at(0, 15), state: .playing, speed: 1, sleep: nil,
                                downloading: false, message: nil, rows: rows, width: 40).joined(separator: "\n")
        }
        let roomy = screen(rows: 24)
        #expect(roomy.contains("The Adventures of Sherlock Holmes and") && roomy.contains("the Case of the Missing Ending"), "\(roomy)")
        let short = screen(rows: 10)
        #expect(short.contains("the Case of the Missing Ending") && !short.contains("by A. Writer"), "\(short)")
    }
}
