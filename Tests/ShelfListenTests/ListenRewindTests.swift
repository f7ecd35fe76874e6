import Foundation
import ShelfCLI
import ShelfPlayback
import Testing
@testable import ShelfCore
@testable import ShelfListen

/// Going back after a pause (`--rewind`): how far for how long a pause, whatever paused the player.
@Suite(.timeLimit(.minutes(5))) struct ListenRewindTests {
    @Test func theAutoRuleByTheLengthOfThePause() {
        for (paused, back) in [(0.0, 0.0), (2.9, 0), (3, 10), (299, 10), (300, 20), (1_799, 20), (1_800, 30), (86_400, 30)] {
            #expect(Rewind.auto.seconds(after: paused) == back, "\(paused) s")
        }
        #expect(Rewind.off.seconds(after: 86_400) == 0)
        #expect(Rewind.seconds(45).seconds(after: 4) == 45)
        #expect(Rewind.seconds(45).seconds(after: 2) == 0)
        #expect(Rewind("auto") == .auto && Rewind("OFF") == .off && Rewind("0s") == .off)
        #expect(Rewind("1m") == .seconds(60) && Rewind("soon") == nil)
        #expect(Rewind.seconds(60).text == "60s" && Rewind("60s") == .seconds(60))
    }

    @Test func spaceAfterATenMinutePauseGoesBack20Seconds() {
        var session = Harness(at: at(1, 15), rewind: .auto)
        _ = session.key(" ")
        session.quietTick(after: 600)
        let effects = session.key(" ").filter { $0 != .redraw }
        #expect(effects == [.seek(at(0, 25)), .play, .pullRemote])
        #expect(session.machine.message?.text == "Back 20 s after a 10-minute pause.")
        // Once: the next pause of a second plays on where it was.
        _ = session.key(" ")
        session.quietTick(after: 1)
        #expect(session.key(" ").filter { $0 != .redraw } == [.play, .pullRemote])
    }

    @Test func neverBeforeTheStartOfTheBook() {
        var session = Harness(at: at(0, 4), rewind: .auto)
        _ = session.key(" ")
        session.quietTick(after: 3_600)
        #expect(session.key(" ").filter { $0 != .redraw } == [.seek(at(0, 0)), .play, .pullRemote])
        #expect(session.machine.message?.text == "Back 4 s after an hour's pause.")
    }

    @Test func withoutAScreenTheLineIsPrinted() {
        var session = Harness(screen: false, at: at(2, 0), rewind: .seconds(15))
        _ = session.send(.remote(.pause, session.snapshot))
        session.quietTick(after: 5)
        let effects = session.send(.remote(.play, session.snapshot))
        #expect(effects == [.line("Back 15 s after a 5-second pause."), .seek(at(1, 15)), .play, .pullRemote])
    }

    @Test func afterTheSleepTimerAndAfterASuspend() {
        var session = Harness(at: at(1, 0), sleep: 10, rewind: .auto)
        for _ in 0..<110 { session.quietTick() }
        #expect(session.state == .paused)
        session.quietTick(after: 2 * 3_600)
        guard case .seek(let back)? = session.key(" ").filter({ $0 != .redraw }).first else {
            Issue.record("no seek back")
            return
        }
        #expect(abs(session.timeline.bookTime(back) - 10) < 0.01, "\(back)")
        #expect(session.machine.message?.text == "Back 30 s after 2 hours away.")

        var suspended = Harness(at: at(2, 0), rewind: .auto)
        _ = suspended.key(.suspend)
        suspended.quietTick(after: 120)
        #expect(suspended.key(" ").filter { $0 != .redraw } == [.seek(at(1, 20)), .play, .pullRemote])
    }

    @Test func aNewDevicePlaysFromBackWhereTheOldOneWentAway() {
        var session = Harness(at: at(3, 0), rewind: .auto)
        _ = session.send(.deviceLost(session.snapshot))
        session.quietTick(after: 60)
        let effects = session.key(" ").filter { $0 != .redraw }
        #expect(effects == [.reopenDevice(at: at(2, 20), speed: 1)])
    }

    @Test func offPlaysOnExactlyWhereItPaused() {
        var session = Harness(at: at(1, 15), rewind: .off)
        _ = session.key(" ")
        session.quietTick(after: 86_400)
        #expect(session.key(" ").filter { $0 != .redraw } == [.play, .pullRemote])
    }
}

/// The small things on the screen: a line about a pause goes when playing goes on, the end is 100%, and one rounding
/// rule for every time shown.
@Suite(.timeLimit(.minutes(5))) struct ListenScreenDetailTests {
    @Test func thePausesLineClearsWhenPlayingAgain() {
        var session = Harness(at: at(1, 0))
        _ = session.key(.suspend)
        #expect(session.machine.message?.text == "Paused while suspended. Press space to play.")
        _ = session.key(" ")
        #expect(session.machine.message == nil)
        #expect(session.state == .playing)
    }

    /// The player's screen of the test book at `position`, 80 columns wide.
    private func screen(at position: PlaybackPosition, state: Player.State, speed: Double) -> [String] {
        let book = TestBook.book()
        return ListenScreen.player(book: book, timeline: TestBook.timeline(book), position: position, state: state,
                                   speed: speed, sleep: nil, downloading: false, message: nil, width: 80)
    }

    @Test func theEndReadsAHundredPercent() {
        let screen = screen(at: at(3, 29.97), state: .finished, speed: 1)
        #expect(screen.contains { $0.contains("book     1:59 / 2:00   −0:00   100%") }, "\(screen)")
    }

    @Test func timeLeftIsAtTheSpeedPlaying() {
        let screen = screen(at: at(0, 15), state: .playing, speed: 3)
        // 1:45 of the book left is 0:35 at 3×; 15 s of the chapter is 5.
        #expect(screen.contains { $0.contains("book     0:15 / 2:00   −0:35") }, "\(screen)")
        #expect(screen.contains { $0.contains("chapter  0:10 / 0:25   −0:05") }, "\(screen)")
    }

    @Test func aTimeAMillisecondShortOfASecondIsThatSecond() {
        #expect(Clock.format(129.9995) == "2:10")
        #expect(Clock.format(129.99) == "2:09")
        #expect(Clock.format(3_599.9996) == "1:00:00")
    }
}
