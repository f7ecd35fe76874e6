import Foundation
import ShelfCLI
import ShelfPlayback
import Testing
@testable import ShelfListen

/// Every key in every mode, by table: what the machine asks for, the mode it is left in, and what the screen says.
/// The session starts 15 s into the test book (chapter 2 of 5, "Chapter 1", which starts at 0:05), playing at 1×.
@Suite(.timeLimit(.minutes(5))) struct ListenMachineKeyTests {
    /// Where the session is when the key comes, from where it started.
    enum Given {
        case playing, paused, finished
        /// The audio device went away.
        case deviceGone
        case at(PlaybackPosition)

        func apply(to session: inout Harness) {
            switch self {
            case .playing: break
            case .paused: session.state = .paused
            case .finished: session.state = .finished
            case .deviceGone: session.send(.deviceLost(session.snapshot))
            case .at(let position): session.position = position
            }
        }
    }

    struct Row {
        var key: Key
        var given: Given
        var speed: Double
        var effects: @Sendable (Harness) -> [Effect]
        var mode: ListenMachine.Mode
        var message: String?
        /// Where the player is afterwards, when it moved.
        var position: PlaybackPosition?

        init(_ key: Key, _ given: Given = .playing, speed: Double = 1, mode: ListenMachine.Mode = .player,
             message: String? = nil, position: PlaybackPosition? = nil,
             _ effects: @escaping @Sendable (Harness) -> [Effect] = { _ in [] }) {
            self.key = key
            self.given = given
            self.speed = speed
            self.mode = mode
            self.message = message
            self.position = position
            self.effects = effects
        }

        init(_ character: Character, _ given: Given = .playing, speed: Double = 1, mode: ListenMachine.Mode = .player,
             message: String? = nil, position: PlaybackPosition? = nil,
             _ effects: @escaping @Sendable (Harness) -> [Effect] = { _ in [] }) {
            self.init(.character(character), given, speed: speed, mode: mode, message: message, position: position, effects)
        }
    }

    static let stopped = "Stopped at 0:15 of 2:00 (12%), in Chapter 1 (1 of 4). Position saved."

    static var player: [Row] { [
        Row(" ") { [.pause, $0.save(at(0, 15)), .push] },
        Row(.left, position: at(0, 0)) { [.seek(at(0, 0)), $0.save(at(0, 0))] },
        Row(.right, position: at(1, 15)) { [.seek(at(1, 15)), $0.save(at(1, 15))] },
        Row(",", position: at(0, 10)) { [.seek(at(0, 10)), $0.save(at(0, 10))] },
        Row(".", position: at(0, 20)) { [.seek(at(0, 20)), $0.save(at(0, 20))] },
        Row("n", position: at(1, 0)) { [.seek(at(1, 0)), $0.save(at(1, 0))] },
        // More than 3 s into the chapter: back to its start.
        Row("p", position: at(0, 5)) { [.seek(at(0, 5)), $0.save(at(0, 5))] },
        Row("[", message: "Speed 0.75×.") { _ in [.setSpeed(0.75), .saveSpeed(0.75)] },
        Row("]", message: "Speed 1.25×.") { _ in [.setSpeed(1.25), .saveSpeed(1.25)] },
        Row("{", message: "Speed 0.95×.") { _ in [.setSpeed(0.95), .saveSpeed(0.95)] },
        Row("}", message: "Speed 1.05×.") { _ in [.setSpeed(1.05), .saveSpeed(1.05)] },
        Row("S", message: "Skipping silence: pauses over 0.6 s are cut short.") { _ in [.setSkipSilence(true)] },
        Row("t", mode: .contents),
        Row("s", mode: .prompt(.init(purpose: .sleep, question:
            "Sleep after (minutes, 1h, c = this chapter, 2c = two chapters, off; enter = chapter end):"))),
        Row("b", mode: .prompt(.init(purpose: .bookmark(Harness().place(at(0, 15))),
                                     question: "Bookmark at 0:15, name (enter to skip):"))),
        Row("?", mode: .help),
        Row("h", mode: .help),
        Row("q") { [.pause] + $0.ending(.quit, at: at(0, 15), line: stopped) },
        Row("Q") { [.pause] + $0.ending(.quit, at: at(0, 15), line: stopped) },
        Row(.interrupt) { [.pause] + $0.ending(.quit, at: at(0, 15), line: stopped) },
        // ↑/↓ jump 5 minutes, clamped within the book (tested in ListenMachinePromptTests).
        Row(.up, position: at(0, 0)) { [.seek(at(0, 0)), $0.save(at(0, 0))] },
        Row(.down, position: at(3, 29.75)) { [.seek(at(3, 29.75)), $0.save(at(3, 29.75))] },
        Row(.enter), Row(.escape), Row("k"),
        // With no other device ahead there is nothing to jump to (ListenMachineBookmarksTests has the offer).
        Row("j", message: "No other device's place is waiting for an answer."),
        Row("x", message: "No other device's place is waiting for an answer."),
    ] }

    /// Entered with `t` at 0:15: the selection is the chapter playing (the second).
    static var contents: [Row] { [
        Row(" ", mode: .contents),
        Row(.left, mode: .contents), Row(.right, mode: .contents), Row(",", mode: .contents), Row(".", mode: .contents),
        Row("n", mode: .contents), Row("p", mode: .contents), Row("[", mode: .contents), Row("]", mode: .contents),
        Row("{", mode: .contents), Row("}", mode: .contents), Row("S", mode: .contents),
        Row("t"),
        Row("s", mode: .contents), Row("b", mode: .contents), Row("?", mode: .contents), Row("h", mode: .contents),
        Row("q"),
        // Only esc, t and q leave the contents; Ctrl-C there does nothing.
        Row("Q", mode: .contents), Row(.interrupt, mode: .contents),
        Row(.up, mode: .contents), Row(.down, mode: .contents),
        Row(.enter, position: at(0, 5)) { [.seek(at(0, 5)), $0.save(at(0, 5))] },
        Row(.escape),
        Row("k", mode: .contents), Row("j", mode: .contents), Row("x", mode: .contents),
    ] }

    static let allKeys: [Key] = [
        .character(" "), .left, .right, .character(","), .character("."), .character("n"), .character("p"),
        .character("["), .character("]"), .character("{"), .character("}"), .character("S"), .character("t"), .character("s"), .character("b"), .character("?"),
        .character("h"), .character("q"), .character("Q"), .interrupt, .up, .down, .enter, .escape,
        .character("k"), .character("j"), .character("x"),
    ]

    /// Runs a row from a session in `mode`; the effects before the screen's redraw.
    private func run(_ row: Row, in mode: ListenMachine.Mode) -> (Harness, [Effect], [Effect]) {
        var session = Harness(speed: row.speed)
        switch mode {
        case .player: break
        case .contents: _ = session.key("t")
        case .help: _ = session.key("?")
        case .bookmarks: _ = session.key("B")
        case .prompt: _ = session.key("g")
        }
        row.given.apply(to: &session)
        let expected = row.effects(session)
        var effects = session.key(row.key)
        // Every key redraws the screen, unless it ended the session.
        if session.machine.outcome == nil {
            #expect(effects.last == .redraw, "\(row.key) in \(mode)")
            effects.removeLast()
        }
        return (session, effects, expected)
    }

    private func check(_ rows: [Row], in mode: ListenMachine.Mode) {
        #expect(rows.map(\.key) == Self.allKeys, "every key, once, in the order of allKeys")
        for row in rows {
            let (session, effects, expected) = run(row, in: mode)
            let name = "\(row.key) in \(mode)"
            #expect(effects == expected, "\(name)")
            #expect(session.machine.mode == row.mode, "\(name)")
            #expect(session.machine.message?.text == row.message, "\(name)")
            if let position = row.position { #expect(session.position == position, "\(name)") }
        }
    }

    @Test func everyKeyInThePlayer() { check(Self.player, in: .player) }

    @Test func everyKeyInTheContents() { check(Self.contents, in: .contents) }

    @Test func upAndDownTurnTheHelpsPages() {
        var session = Harness()
        _ = session.key("?")
        _ = session.key(.down)
        _ = session.key("j")
        #expect(session.machine.helpPage == 2 && session.machine.mode == .help)
        _ = session.key(.up)
        #expect(session.machine.helpPage == 1)
        _ = session.key("q")
        #expect(session.machine.mode == .player && session.machine.outcome == nil)
        _ = session.key("?")
        #expect(session.machine.helpPage == 0)
    }

    @Test func everyKeyInTheHelpGoesBackToThePlayer() {
        // ↑ ↓ j k turn the help's pages (ListenScreenLayoutTests).
        for key in Self.allKeys where ![Key.up, .down, .character("j"), .character("k")].contains(key) {
            var session = Harness()
            _ = session.key("?")
            #expect(session.key(key) == [.redraw], "\(key)")
            #expect(session.machine.mode == .player, "\(key)")
            #expect(session.machine.outcome == nil, "\(key)")
        }
    }

    /// The same keys from other places and states.
    static var special: [(name: String, row: Row)] { [
        ("space while paused plays", Row(" ", .paused) { _ in [.play, .pullRemote] }),
        ("space at the end plays again from the start",
         Row(" ", .finished, position: at(0, 0)) { _ in [.seek(at(0, 0)), .play] }),
        ("space after the device went away opens it again",
         Row(" ", .deviceGone, message: "The audio device went away: paused at 0:15. Press space to play again.") {
             _ in [.reopenDevice(at: at(0, 15), speed: 1)]
         }),
        ("← near the start stops at the start", Row(.left, .at(at(0, 2))) { [.seek(at(0, 0)), $0.save(at(0, 0))] }),
        ("→ near the end stops a quarter second short",
         Row(.right, .at(at(3, 20))) { [.seek(at(3, 29.75)), $0.save(at(3, 29.75))] }),
        (". crosses into the next part", Row(".", .at(at(0, 27))) { [.seek(at(1, 2)), $0.save(at(1, 2))] }),
        (", crosses back", Row(",", .at(at(1, 2))) { [.seek(at(0, 27)), $0.save(at(0, 27))] }),
        ("n in the last chapter", Row("n", .at(at(3, 10)), message: "This is the last chapter.")),
        ("p just into a chapter goes to the one before",
         Row("p", .at(at(0, 7))) { [.seek(at(0, 0)), $0.save(at(0, 0))] }),
        ("p at exactly 3 s in goes to the one before",
         Row("p", .at(at(0, 8))) { [.seek(at(0, 0)), $0.save(at(0, 0))] }),
        ("p in the first chapter's first seconds", Row("p", .at(at(0, 2)), message: "This is the first chapter.")),
        ("p in a later part", Row("p", .at(at(2, 10))) { [.seek(at(2, 0)), $0.save(at(2, 0))] }),
        ("[ at the slowest", Row("[", speed: 0.5)),
        ("] at the fastest", Row("]", speed: 4)),
        ("} at the fastest", Row("}", speed: 4)),
        ("] from 3.9 stops at 4", Row("]", speed: 3.9, message: "Speed 4.0×.") { _ in [.setSpeed(4), .saveSpeed(4)] }),
        ("} from 1.2 is 1.25", Row("}", speed: 1.2, message: "Speed 1.25×.") { _ in [.setSpeed(1.25), .saveSpeed(1.25)] }),
        ("{ at the slowest", Row("{", speed: 0.5)),
        ("[ from 1.25", Row("[", speed: 1.25, message: "Speed 1.0×.") { _ in [.setSpeed(1), .saveSpeed(1)] }),
        ("b in another part asks a name for a bookmark there",
         Row("b", .at(at(2, 4)), mode: .prompt(.init(purpose: .bookmark(Harness().place(at(2, 4))),
                                                     question: "Bookmark at 1:04, name (enter to skip):")))),
        ("t selects the chapter playing", Row("t", .at(at(3, 1)), mode: .contents)),
        ("q while paused does not pause again",
         Row("q", .paused) { $0.ending(.quit, at: at(0, 15), line: stopped) }),
    ] }

    @Test func keysFromOtherPlacesAndStates() {
        for (name, row) in Self.special {
            let (session, effects, expected) = run(row, in: .player)
            #expect(effects == expected, "\(name)")
            #expect(session.machine.mode == row.mode, "\(name)")
            #expect(session.machine.message?.text == row.message, "\(name)")
            if let position = row.position { #expect(session.position == position, "\(name)") }
        }
    }

    @Test func theContentsMoveTheSelectionWithinTheBook() {
        var session = Harness()
        _ = session.key("t")
        #expect(session.machine.tocSelection == 1)
        for (key, selection) in [(Key.up, 0), (.up, 0), (.character("k"), 0), (.down, 1), (.character("j"), 2),
                                 (.down, 3), (.down, 4), (.character("j"), 4)] {
            _ = session.key(key)
            #expect(session.machine.tocSelection == selection, "\(key)")
        }
        // The last chapter is in the last part: enter plays it.
        #expect(Array(session.key(.enter).dropLast()) == [.seek(at(3, 0)), session.save(at(3, 0))])
        #expect(session.machine.mode == .player)
    }

    @Test func aChapterNotDownloadedCannotBePicked() {
        var session = Harness(book: TestBook.book(progress: [2: "40%"]))
        session.onDisk = [0, 1]
        _ = session.key("t")
        _ = session.key(.down)
        _ = session.key(.down)
        // Chapter 4 is in the third part, which is downloading; chapter 5's part has no progress to say.
        #expect(session.key(.enter) == [.redraw])
        #expect(session.machine.message?.text == "Chapter 3 is not downloaded yet (part 3: 40% downloaded).")
        #expect(session.machine.mode == .contents)
        _ = session.key(.down)
        #expect(session.key(.enter) == [.redraw])
        #expect(session.machine.message?.text == "Chapter 4 is not downloaded yet (part 4).")
        #expect(session.position == at(0, 15))
        // One on disk plays.
        _ = session.key(.up)
        _ = session.key(.up)
        #expect(Array(session.key(.enter).dropLast()) == [.seek(at(1, 0)), session.save(at(1, 0))])
    }

    /// `s` asks; minutes, lengths, chapters and off are answers; `+` adds five minutes.
    @Test func theSleepTimerTakesMinutesChaptersAndOff() {
        var session = Harness()
        let answers: [(String, String, SleepTimer?)] = [
            ("20", "Sleep timer: 20 minutes of listening (+ adds 5 minutes).", .seconds(1_200)),
            ("1h", "Sleep timer: 60 minutes of listening (+ adds 5 minutes).", .seconds(3_600)),
            ("7.5", "Sleep timer: 7:30 of listening (+ adds 5 minutes).", .seconds(450)),
            ("", "Sleep timer: end of this chapter.", .endOfChapter(1)),
            ("c", "Sleep timer: end of this chapter.", .endOfChapter(1)),
            ("2c", "Sleep timer: end of Chapter 2 (2 of 4), 2 chapters.", .endOfChapter(2)),
            ("3 chapters", "Sleep timer: end of Chapter 3 (3 of 4), 3 chapters.", .endOfChapter(3)),
            // Past the last chapter: the end of the book.
            ("40c", "Sleep timer: end of Chapter 4 (4 of 4), 4 chapters.", .endOfChapter(4)),
            ("off", "Sleep timer off.", nil),
            ("soon", "Type minutes (20), a length (1h), c for this chapter's end, 3c for three chapters, or off.", nil),
        ]
        for (answer, message, timer) in answers {
            session.setSleep(answer)
            #expect(session.machine.message?.text == message, "\(answer)")
            #expect(session.machine.sleep == timer, "\(answer)")
            #expect(session.machine.mode == .player)
        }
        _ = session.key("+")
        #expect(session.machine.sleep == .seconds(300))
        #expect(session.machine.message?.text == "Sleep timer: 5:00 left.")
        session.setSleep("10")
        _ = session.key("+")
        #expect(session.machine.sleep == .seconds(900))
        // A chapter timer becomes the time to that chapter's end, plus five minutes (at the speed playing).
        session.setSleep("c")
        _ = session.key("+")
        #expect(session.machine.sleep == .seconds(15 + 300))
    }

    @Test func withoutAScreenKeysDoNotRedraw() {
        var session = Harness(screen: false)
        #expect(session.key(" ") == [.pause, session.save(at(0, 15)), .push])
        #expect(session.key("]") == [.setSpeed(1.25), .saveSpeed(1.25)])
    }

    @Test func aKeyAfterTheEndDoesNothing() {
        var session = Harness()
        _ = session.key("q")
        #expect(session.key(" ") == [])
        #expect(session.tick() == [])
    }
}
