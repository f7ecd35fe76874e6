import Foundation
import ShelfPlayback
import Testing
@testable import ShelfCore
@testable import ShelfListen

/// The one-line prompt and the keys that use it (`g`, `b`, `F`), ↑/↓ and Ctrl-Z. The test book lasts 2:00; the
/// session starts at 0:15, playing.
@Suite(.timeLimit(.minutes(5))) struct ListenMachinePromptTests {
    /// Types `text` into an open prompt, then the keys in `then`; the effects of the last key, redraw dropped.
    private func type(_ text: String, then keys: [Key] = [.enter], into session: inout Harness) -> [Effect] {
        for character in text { _ = session.key(character) }
        var last: [Effect] = []
        for key in keys { last = session.key(key) }
        return last.filter { $0 != .redraw }
    }

    private func prompt(_ session: Harness) -> ListenMachine.Prompt? {
        if case .prompt(let prompt) = session.machine.mode { return prompt }
        return nil
    }

    // MARK: - The prompt

    @Test func typingBackspaceAndEscapeEditAndCancel() {
        var session = Harness()
        #expect(session.key("g") == [.redraw])
        #expect(prompt(session)?.question == "Go to (1:23:00, 83:00, 45 or 50%):")
        _ = type("1:0x", then: [.backspace, .backspace], into: &session)
        #expect(prompt(session)?.text == "1:")
        // Backspace on nothing stays at nothing; control characters are not typed.
        _ = type("", then: [.backspace, .backspace, .backspace, .character("\t"), .left, .up], into: &session)
        #expect(prompt(session)?.text == "")
        // Keys that mean something in the player are text here.
        _ = type("q ]", then: [], into: &session)
        #expect(prompt(session)?.text == "q ]")
        #expect(session.machine.outcome == nil && session.speed == 1)
        #expect(session.key(.escape) == [.redraw])
        #expect(session.machine.mode == .player)
        #expect(session.position == at(0, 15))
        // Ctrl-C cancels a prompt rather than quitting.
        _ = session.key("g")
        #expect(session.key(.interrupt) == [.redraw])
        #expect(session.machine.mode == .player && session.machine.outcome == nil)
    }

    @Test func anAnswerHasALimit() {
        var session = Harness()
        _ = session.key("b")
        _ = type(String(repeating: "x", count: ListenMachine.promptLimit + 20), then: [], into: &session)
        #expect(prompt(session)?.text.count == ListenMachine.promptLimit)
    }

    // MARK: - g: go to a time

    static let goTo: [(text: String, position: PlaybackPosition?, message: String)] = [
        ("1:23", at(2, 23), "Went to 1:23."),
        ("83", at(2, 23), "Went to 1:23."),
        ("45", at(1, 15), "Went to 0:45."),
        ("0:00:45", at(1, 15), "Went to 0:45."),
        ("90s", at(3, 0), "Went to 1:30."),
        ("50%", at(2, 0), "Went to 1:00."),
        ("12.5 %", at(0, 15), "Went to 0:15."),
        ("0", at(0, 0), "Went to 0:00."),
        ("1:59.9", at(3, 29.75), "Went to 1:59."),
        // Never past the end, never finished: said, and nothing moves.
        ("2:00", nil, "2:00 is past the end of the book (2:00); not moved."),
        ("83:00", nil, "83:00 is past the end of the book (2:00); not moved."),
        ("100%", nil, "100% is past the end of the book (2:00); not moved."),
        ("1:23:00", nil, "1:23:00 is past the end of the book (2:00); not moved."),
        ("soon", nil, "“soon” is not a time: type one like 1:23:00, 83:00, 45 or 50%."),
        ("-5", nil, "“-5” is not a time: type one like 1:23:00, 83:00, 45 or 50%."),
        ("1:75", nil, "“1:75” is not a time: type one like 1:23:00, 83:00, 45 or 50%."),
        ("%", nil, "“%” is not a time: type one like 1:23:00, 83:00, 45 or 50%."),
        ("nan%", nil, "“nan%” is not a time: type one like 1:23:00, 83:00, 45 or 50%."),
    ]

    @Test func goToTakesEveryFormAndStaysWithinTheBook() {
        for (text, position, message) in Self.goTo {
            var session = Harness()
            _ = session.key("g")
            let effects = type(text, into: &session)
            if let position {
                #expect(effects == [.seek(position), session.save(position)], "\(text)")
                #expect(session.position == position, "\(text)")
            } else {
                #expect(effects == [], "\(text)")
                #expect(session.position == at(0, 15), "\(text)")
            }
            #expect(session.machine.message?.text == message, "\(text)")
            #expect(session.machine.mode == .player, "\(text)")
            #expect(!session.log.contains { if case .savePosition(_, _, true) = $0 { true } else { false } }, "\(text)")
        }
    }

    @Test func goToWithNothingTypedDoesNothing() {
        var session = Harness()
        _ = session.key("g")
        #expect(type("  ", into: &session) == [])
        #expect(session.machine.message == nil && session.position == at(0, 15))
    }

    @Test func goToAfterTheEndPlaysFromThereNotFinished() {
        var session = Harness(at: at(3, 29))
        session.tick(after: 1)
        session.state = .finished
        session.quietTick()
        #expect(session.machine.finished)
        _ = session.key("g")
        #expect(type("30", into: &session) == [.seek(at(1, 0)), session.save(at(1, 0))])
        #expect(!session.machine.finished)
    }

    // MARK: - b: a bookmark, named or not

    @Test func aBookmarkWithANameAndWithout() {
        var session = Harness()
        _ = session.key("b")
        #expect(prompt(session)?.question == "Bookmark at 0:15, name (enter to skip):")
        let place = session.place(at(0, 15))
        // The place is where b was pressed, though the book plays on while the name is typed.
        session.tick(after: 3)
        #expect(type("Moriarty’s letter ", into: &session) == [.addBookmark(place, name: "Moriarty’s letter"), .push])
        #expect(session.machine.message?.text == "Bookmark “Moriarty’s letter” added at 0:15.")

        _ = session.key("b")
        let second = session.place(session.position)
        #expect(type("", into: &session) == [.addBookmark(second, name: nil), .push])
        #expect(session.machine.message?.text == "Bookmark added at 0:18.")

        _ = session.key("b")
        #expect(type("   ", into: &session) == [.addBookmark(second, name: nil), .push])
        _ = session.key("b")
        #expect(type("never", then: [.escape], into: &session) == [])
        #expect(session.log.filter { if case .addBookmark = $0 { true } else { false } }.count == 3)
    }

    // MARK: - ↑/↓

    @Test func upAndDownJumpFiveMinutesWithinTheBook() {
        // A book of four 5-minute parts (20:00).
        let book = TestBook.book(durations: [300, 300, 300, 300])
        var session = Harness(at: at(1, 100), book: book)
        #expect(Array(session.key(.down).dropLast()) == [.seek(at(2, 100)), session.save(at(2, 100))])
        #expect(Array(session.key(.up).dropLast()) == [.seek(at(1, 100)), session.save(at(1, 100))])
        #expect(Array(session.key(.up).dropLast()) == [.seek(at(0, 100)), session.save(at(0, 100))])
        // Clamped: to the start, and a quarter second short of the end.
        #expect(Array(session.key(.up).dropLast()) == [.seek(at(0, 0)), session.save(at(0, 0))])
        session.position = at(3, 200)
        #expect(Array(session.key(.down).dropLast()) == [.seek(at(3, 299.75)), session.save(at(3, 299.75))])
        // While paused they move and stay paused.
        session.state = .paused
        #expect(Array(session.key(.up).dropLast()) == [.seek(at(2, 299.75)), session.save(at(2, 299.75))])
        #expect(session.state == .paused)
    }

    // MARK: - F: mark finished

    @Test func markFinishedAsksThenSavesFinishedAndPushes() {
        var session = Harness()
        #expect(session.key("F") == [.redraw])
        #expect(prompt(session)?.question == "Mark The Test Book finished? (y/N)")
        #expect(Array(session.key("y").dropLast()) == [.pause, session.save(at(0, 15), finished: true), .push])
        #expect(session.state == .paused)
        #expect(session.machine.mode == .player && session.machine.markedFinished)
        #expect(session.machine.message?.text == "Marked The Test Book finished; the library is told. Space plays on, q quits.")
        // Quitting keeps it finished.
        #expect(session.key("q") == session.ending(.quit, at: at(0, 15), line: ListenMachineKeyTests.stopped, finished: true))
    }

    @Test func anythingButYesLeavesTheBookAsItIs() {
        for key in [Key.character("n"), .character("N"), .enter, .escape, .character("x"), .interrupt] {
            var session = Harness()
            _ = session.key("F")
            #expect(session.key(key) == [.redraw], "\(key)")
            #expect(session.machine.message?.text == "Not marked finished.", "\(key)")
            #expect(session.machine.mode == .player && session.state == .playing && session.machine.outcome == nil, "\(key)")
        }
        var session = Harness()
        _ = session.key("F")
        #expect(Array(session.key("Y").dropLast()) == [.pause, session.save(at(0, 15), finished: true), .push])
    }

    @Test func playingOnAfterMarkingFinishedMakesItInProgressAgain() {
        var session = Harness()
        _ = session.key("F")
        _ = session.key("y")
        // Playing on also asks the library where the other devices are, as any resume does.
        #expect(Array(session.key(" ").dropLast()) == [.play, .pullRemote])
        #expect(!session.machine.markedFinished && session.machine.message == nil)
        session.tick(after: 2.5)
        #expect(session.key("q").contains(session.save(at(0, 17.5))))
    }

    // MARK: - Ctrl-Z

    @Test func suspendPausesSavesAndStaysPaused() {
        var session = Harness()
        #expect(Array(session.key(.suspend).dropLast()) == [.pause, session.save(at(0, 15)), .push, .suspend])
        #expect(session.state == .paused)
        #expect(session.machine.message?.text == "Paused while suspended. Press space to play.")
        // After fg: still paused, no time heard.
        session.tick(after: 5)
        #expect(session.position == at(0, 15))
        // Suspended while paused or with a prompt open: no second pause, the prompt closes.
        _ = session.key("g")
        #expect(Array(session.key(.suspend).dropLast()) == [session.save(at(0, 15)), .push, .suspend])
        #expect(session.machine.mode == .player)
    }
}
