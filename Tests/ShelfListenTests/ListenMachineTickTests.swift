import Foundation
import ShelfCLI
import ShelfPlayback
import Testing
@testable import ShelfListen

/// Time passing, by a clock that moves only when told: the save and push rules, the sleep timer, the limit, and the
/// book's end. Without a screen, so the effects are not interleaved with redraws.
@Suite(.timeLimit(.minutes(5))) struct ListenMachineTickTests {
    @Test func itSavesAtOnceThenEveryTwoSecondsOfTheClock() {
        // At half speed the book moves 1 s while the clock moves 2.
        var session = Harness(screen: false, speed: 0.5)
        #expect(session.tick(after: 1) == [session.save(at(0, 15.5))])
        for quarter in 1...7 {
            #expect(session.tick(after: 0.25) == [], "tick \(quarter)")
        }
        #expect(session.tick(after: 0.25) == [session.save(at(0, 16.5))])
        #expect(session.tick(after: 1) == [])
        #expect(session.tick(after: 1) == [session.save(at(0, 17.5))])
    }

    @Test func itSavesEveryTwoSecondsOfTheBookWhenTheBookRunsAhead() {
        // At 3× the book moves 2 s in two thirds of a second of the clock.
        var session = Harness(screen: false, at: at(1, 1), speed: 3)
        #expect(session.tick(after: 1) == [session.save(at(1, 4))])
        for quarter in 1...2 {
            #expect(session.tick(after: 0.25) == [], "tick \(quarter)")
        }
        #expect(session.tick(after: 0.25) == [session.save(at(1, 6.25))])
    }

    @Test func nothingIsSavedOrCountedWhilePaused() {
        var session = Harness(screen: false)
        session.tick(after: 1)
        #expect(session.key(" ") == [.pause, session.save(at(0, 16)), .push])
        for _ in 0..<10 {
            #expect(session.tick(after: 30) == [])
        }
        #expect(session.machine.listened == 1)
    }

    @Test func positionsArePushedEveryTwoMinutesOfPlaying() {
        var session = Harness(screen: false, speed: 0.5)
        var pushes: [Int] = []
        for second in stride(from: 10, through: 250, by: 10) {
            if session.tick(after: 10).contains(.push) { pushes.append(second) }
        }
        #expect(pushes == [120, 240])
        // A pause pushes at once, and the next push is two minutes of the clock after it.
        #expect(session.key(" ") == [.pause, session.save(session.position), .push])
        #expect(session.key(" ") == [.play, .pullRemote])
        #expect(!session.tick(after: 110).contains(.push))
        #expect(session.tick(after: 10).contains(.push))
    }

    @Test func aNewChapterIsSavedAndSaidWithoutAScreen() {
        var session = Harness(screen: false, at: at(0, 28))
        session.tick(after: 1)
        #expect(session.tick(after: 1) == [session.save(at(1, 0)), .line("Chapter 2 (2 of 4) at 0:30.")])
        var screen = Harness(at: at(0, 28))
        screen.quietTick(after: 1)
        #expect(screen.quietTick(after: 1) == [screen.save(at(1, 0))])
    }

    /// As `shelf listen --no-ui --from 0:01 --sleep 6s`: six seconds of playing, the last five fading out, then the
    /// end of the session at 0:07 (no key could play again), saved and pushed.
    @Test func theSleepTimerFadesOutAndEndsWithoutAScreen() {
        var session = Harness(screen: false, at: at(0, 1), sleep: 6)
        #expect(session.started == [.line("Playing The Test Book at 0:01 of 2:00, 1.0× speed.")])
        #expect(session.tick(after: 1) == [.setVolume(1), session.save(at(0, 2))])
        #expect(session.tick(after: 1) == [.setVolume(0.8)])
        #expect(session.tick(after: 1) == [.setVolume(0.6), session.save(at(0, 4))])
        #expect(session.tick(after: 1) == [.setVolume(0.4), session.save(at(0, 5)), .line("Chapter 1 (1 of 4) at 0:05.")])
        #expect(session.tick(after: 1) == [.setVolume(0.2)])
        let ended = session.tick(after: 1)
        #expect(ended.prefix(2) == [.setVolume(0), .pause], "\(ended)")
        #expect(ended.contains(session.save(at(0, 7))), "\(ended)")
        let line = ended.compactMap { effect -> String? in if case .line(let text) = effect { text } else { nil } }
        #expect(line.count == 1 && line[0].hasPrefix("Sleep timer: Stopped at 0:07 of 2:00") == true, "\(line)")
        #expect(ended.last == .end(.slept), "\(ended)")
        #expect(session.machine.outcome == .slept)
        #expect(session.machine.sleep == nil)
    }

    /// With a screen, a key can play again: the timer pauses at 0:07, saved and pushed, and the session goes on.
    @Test func theSleepTimerPausesWithAScreen() {
        var session = Harness(at: at(0, 1), sleep: 6)
        for _ in 1...5 { _ = session.quietTick(after: 1) }
        let paused = session.quietTick(after: 1)
        #expect(paused.prefix(4) == [.setVolume(0), .pause, .seek(at(0, 7)), .setVolume(1)], "\(paused)")
        #expect(paused.contains(session.save(at(0, 7))) && paused.contains(.push), "\(paused)")
        #expect(session.machine.sleep == nil)
        #expect(session.quietTick(after: 5).allSatisfy { $0 == .redraw })
        #expect(session.machine.outcome == nil)
        #expect(session.state == .paused)
    }

    @Test func theSleepTimerCountsOnlyPlaying() {
        var session = Harness(screen: false, sleep: 600)
        session.tick(after: 10)
        session.state = .paused
        session.tick(after: 300)
        #expect(session.machine.sleep == .seconds(590))
        session.state = .playing
        #expect(session.tick(after: 5).first == .setVolume(1))
        #expect(session.machine.sleep == .seconds(585))
    }

    @Test func theSleepTimerCanEndWithTheChapter() {
        var session = Harness(at: at(0, 20), speed: 2)
        session.setSleep("c")
        #expect(session.machine.sleep == .endOfChapter(1))
        // Ten seconds of the chapter left at 2×: five of playing.
        #expect(session.quietTick(after: 1) == [.setVolume(0.8), session.save(at(0, 22))])
        #expect(session.quietTick(after: 3) == [.setVolume(0.2), session.save(at(0, 28))])
        // The next chapter has begun: pause there (and the new chapter saves the place too).
        #expect(session.quietTick(after: 1.5) == [
            .setVolume(0), .pause, .seek(at(1, 1)), .setVolume(1), session.save(at(1, 1)), .push, session.save(at(1, 1)),
        ])
        #expect(session.machine.message?.text
                == "Sleep timer: paused at the end of Chapter 1 (1 of 4) at 0:31; the position is saved. Space plays on.")
        #expect(session.machine.sleep == nil)
        // The line stays until the listener wakes (a day), and the timer is set afresh.
        session.quietTick(after: 8 * 3_600)
        #expect(session.machine.message?.text.hasPrefix("Sleep timer: paused at the end of Chapter 1") == true)
        session.setSleep("2c")
        #expect(session.machine.sleep == .endOfChapter(3))
    }

    /// Two chapters: the first chapter's end passes, the second's pauses.
    @Test func theSleepTimerCanEndAfterSeveralChapters() {
        var session = Harness(at: at(0, 25), rewind: .off)
        session.setSleep("2c")
        #expect(session.machine.sleep == .endOfChapter(2))
        for _ in 0..<40 { session.quietTick(after: 0.25) }
        #expect(session.state == .playing && session.machine.sleep == .endOfChapter(2))
        for _ in 0..<200 where session.state == .playing { session.quietTick(after: 0.25) }
        #expect(session.state == .paused)
        #expect(session.timeline.chapter(at: session.position) == 3)
        #expect(session.machine.message?.text.hasPrefix("Sleep timer: paused at the end of Chapter 2 (2 of 4)") == true)
    }

    /// `--sleep 2c`: the chapter is counted from where the session starts.
    @Test func sleepInChaptersFromTheCommandLineCountsFromTheStart() {
        let book = TestBook.book()
        var options = ListenOptions(screen: false)
        options.sleep = .chapters(2)
        var machine = ListenMachine(book: book, timeline: TestBook.timeline(book), options: options, downloading: false,
                                    now: Harness.start)
        _ = machine.handle(.started(at: at(1, 5), speed: 1, note: nil,
                                    ListenMachine.Snapshot(now: Harness.start, position: at(1, 5), state: .playing)))
        #expect(machine.sleep == .endOfChapter(3))
    }

    @Test func listeningStopsAtTheLimitCountingOnlyPlaying() {
        var session = Harness(screen: false, limit: 5)
        for _ in 0..<4 { session.tick(after: 1) }
        session.state = .paused
        session.tick(after: 100)
        session.state = .playing
        let line = "Listened for 0:05; Stopped at 0:20 of 2:00 (16%), in Chapter 1 (1 of 4). Position saved."
        #expect(session.tick(after: 1) == [.pause] + session.ending(.limitReached, at: at(0, 20), line: line, screen: false))
        #expect(session.machine.outcome == .limitReached)
    }

    @Test func theEndWithoutAScreenFinishes() {
        var session = Harness(screen: false, at: at(3, 29))
        session.tick(after: 0.5)
        session.state = .finished
        session.position = at(3, 30)
        #expect(session.tick(after: 0.5) == [session.save(at(3, 30), finished: true), .push]
            + session.ending(.finished, at: at(3, 30), line: "Finished The Test Book.", screen: false, finished: true))
    }

    @Test func theEndOnTheScreenWaitsForSpaceOrQ() {
        var session = Harness(at: at(3, 29))
        session.quietTick(after: 0.5)
        session.state = .finished
        session.position = at(3, 30)
        #expect(session.quietTick(after: 0.5) == [session.save(at(3, 30), finished: true), .push])
        #expect(session.machine.message?.text == "The end. Press space to hear it again, q to quit.")
        #expect(session.machine.message?.until == session.now.addingTimeInterval(3600))
        #expect(session.quietTick(after: 60) == [])
        #expect(session.key(" ") == [.seek(at(0, 0)), .play, .redraw])
        #expect(session.machine.message == nil)
        #expect(!session.machine.finished)
    }

    @Test func aSeekAfterTheEndPlaysOnFromThere() {
        var session = Harness(at: at(3, 29))
        session.state = .finished
        session.position = at(3, 30)
        session.quietTick()
        #expect(session.key(.left) == [.seek(at(3, 0)), session.save(at(3, 0)), .redraw])
        #expect(session.machine.message == nil)
        #expect(!session.machine.finished)
    }

    @Test func signalsAndAClosedTerminalEndWithTheirOutcome() {
        let stopped = "Stopped at 0:15 of 2:00 (12%), in Chapter 1 (1 of 4). Position saved."
        for number in [SIGTERM, SIGHUP, SIGINT] {
            var session = Harness()
            #expect(session.send(.signal(number, session.snapshot)) == [.pause] + session.ending(.signal(number), at: at(0, 15), line: stopped))
            var plain = Harness(screen: false)
            #expect(plain.send(.signal(number, plain.snapshot))
                    == [.pause] + plain.ending(.signal(number), at: at(0, 15), line: stopped, screen: false))
        }
        var session = Harness()
        session.state = .paused
        #expect(session.send(.terminalGone(session.snapshot)) == session.ending(.terminalGone, at: at(0, 15), line: nil))
    }

    @Test func afterTheEndOnlyTheLastWarningsAndSaveAnswersCount() {
        var session = Harness()
        _ = session.key("q")
        #expect(session.send(.warnings(["ignored a malformed annotation"])) == [.errorLine("shelf: warning: ignored a malformed annotation")])
        #expect(session.send(.deviceLost(session.snapshot)) == [])
        #expect(session.send(.problems(["part 2 cannot be played"])) == [])
        #expect(session.send(.resized) == [])
        var plain = Harness(screen: false)
        plain.state = .paused
        _ = plain.send(.signal(SIGTERM, plain.snapshot))
        #expect(plain.send(.saveFailed("disk full")) == [.errorLine("shelf: cannot save the position: disk full")])
    }
}
