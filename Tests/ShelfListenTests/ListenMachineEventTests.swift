import Foundation
import ShelfPlayback
import Testing
@testable import ShelfListen

/// What the world tells the session besides keys and time: parts still downloading, a lost device, lengths measured
/// from the files, warnings, the store's answers; and how the screen is kept.
@Suite(.timeLimit(.minutes(5))) struct ListenMachineEventTests {
    @Test func bufferingIsAnnouncedOncePerPartWhileItDownloads() {
        var session = Harness.waitingForPartThree(screen: true)
        #expect(session.quietTick() == [.fetchFirst([2, 3]), .refreshBook])
        #expect(session.machine.message?.text == "Buffering: waiting for part 3 (40%).")
        #expect(session.quietTick(after: 0.5) == [])
        #expect(session.quietTick(after: 0.5) == [.refreshBook])
        #expect(session.machine.outcome == nil)
        var plain = Harness.waitingForPartThree(screen: false)
        #expect(plain.tick() == [.line("Buffering: waiting for part 3 (40%)."), .fetchFirst([2, 3]), .refreshBook])
        #expect(plain.tick(after: 0.5) == [])
    }

    @Test func aPartThatCannotBeDownloadedEndsWithoutAScreen() {
        var session = Harness.waitingForPartThree(screen: false)
        session.send(.downloadEnded(failure: "the library refused part 3 (403)"))
        #expect(session.tick() == [
            .line("Buffering: waiting for part 3 (40%)."), .pause, session.save(at(1, 29)),
            .errorLine("shelf: part 3 is not on this computer and cannot be downloaded now (the library refused part 3 (403)); "
                       + "the position is saved"),
        ] + session.ending(.partUnavailable(.offline), at: at(1, 29), line: Harness.stoppedInPartTwo, screen: false))
        #expect(session.machine.outcome == .partUnavailable(.offline))
    }

    @Test func aPartFileThatWentMissingEndsWithTheWayBack() {
        var session = Harness.waitingForPartThree(screen: false, downloading: false)
        #expect(session.tick() == [
            .line("Buffering: waiting for part 3 (40%)."), .pause, session.save(at(1, 29)),
            .errorLine("shelf: part 3 is not on this computer and cannot be downloaded now (its file is missing; "
                       + "run `shelf archive testbook`, then `shelf download testbook`); the position is saved"),
        ] + session.ending(.partUnavailable(.playbackFailed), at: at(1, 29), line: Harness.stoppedInPartTwo, screen: false))
    }

    @Test func aPartThatCannotBeDownloadedPausesOnTheScreen() {
        var session = Harness.waitingForPartThree(screen: true)
        #expect(session.send(.downloadEnded(failure: "offline")) == [.refreshBook])
        #expect(session.quietTick() == [.pause, session.save(at(1, 29))])
        #expect(session.machine.message?.text
                == "part 3 is not on this computer and cannot be downloaded now (offline); the position is saved")
        #expect(session.machine.message?.until == session.now.addingTimeInterval(3600))
        #expect(session.state == .paused)
        #expect(session.quietTick(after: 5) == [.refreshBook])
        #expect(session.machine.outcome == nil)
    }

    @Test func aLostDeviceOnTheScreenPausesUntilSpace() {
        var session = Harness()
        #expect(session.send(.deviceLost(session.snapshot)) == [.pause, session.save(at(0, 15))])
        #expect(session.machine.message?.text == "The audio device went away: paused at 0:15. Press space to play again.")
        #expect(session.machine.message?.until == session.now.addingTimeInterval(3600))
        // Reported again every turn until a new device opens: said once.
        #expect(session.send(.deviceLost(session.snapshot)) == [])
        #expect(session.key(" ") == [.reopenDevice(at: at(0, 15), speed: 1), .redraw])
        #expect(session.send(.deviceFailed("no audio device: set SDL_AUDIODRIVER")) == [])
        #expect(session.machine.message?.text == "no audio device: set SDL_AUDIODRIVER")
        #expect(session.machine.message?.until == session.now.addingTimeInterval(3600))
        #expect(session.key(" ") == [.reopenDevice(at: at(0, 15), speed: 1), .redraw])
        #expect(session.send(.deviceReopened) == [])
        #expect(session.machine.message == nil)
        #expect(!session.machine.deviceGone)
        // The new device can go away too.
        #expect(session.send(.deviceLost(session.snapshot)) == [.pause, session.save(at(0, 15))])
    }

    @Test func aLostDeviceWithoutAScreenEnds() {
        var session = Harness(screen: false)
        let stopped = "Stopped at 0:15 of 2:00 (12%), in Chapter 1 (1 of 4). Position saved."
        #expect(session.send(.deviceLost(session.snapshot)) == [
            .pause, session.save(at(0, 15)),
            .errorLine("shelf: the audio device went away at 0:15; the position is saved. Run shelf listen again to go on."),
        ] + session.ending(.deviceLost, at: at(0, 15), line: stopped, screen: false))
        #expect(session.machine.outcome == .deviceLost)
    }

    @Test func partsWhoseFilesDisagreeWithTheManifestAreNoted() {
        var session = Harness(screen: false)
        let note = "part 1 lasts 0:03, not the 0:30 its manifest says; shelf goes by the files"
        #expect(session.send(.measured([0: 3, 1: 30])) == [.errorLine("shelf: note: \(note)")])
        #expect(session.timeline.total == 93)
        #expect(session.send(.measured([0: 3])) == [])
        var screen = Harness()
        #expect(screen.send(.measured([0: 3, 1: 10])) == [])
        #expect(screen.machine.message?.text
                == "note: part 1 lasts 0:03, not the 0:30 its manifest says (and 1 more parts); shelf goes by the files")
    }

    @Test func theStartSaysWhereAndWhatWasMeasured() {
        var timeline = TestBook.timeline()
        timeline.apply([0: 3], book: TestBook.book())
        let note = "part 1 lasts 0:03, not the 0:30 its manifest says; shelf goes by the files"
        let plain = Harness(screen: false, at: at(0, 1), timeline: timeline, note: "Resuming at 0:01.")
        #expect(plain.started == [
            .line("Resuming at 0:01."), .errorLine("shelf: note: \(note)"), .line("Playing The Test Book at 0:01 of 1:33, 1.0× speed."),
        ])
        let screen = Harness(at: at(0, 1), timeline: timeline, note: "Resuming at 0:01.")
        #expect(screen.started == [])
        #expect(screen.machine.message?.text == note)
        let resumed = Harness(note: "Resuming at 0:15 from Pixel 7.")
        #expect(resumed.machine.message?.text == "Resuming at 0:15 from Pixel 7.")
        let fast = Harness(screen: false, speed: 2.5)
        #expect(fast.started == [.line("Playing The Test Book at 0:15 of 2:00, 2.5× speed.")])
    }

    @Test func problemsAndWarningsAreSaid() {
        var plain = Harness(screen: false)
        #expect(plain.send(.problems(["part 2 cannot be played (bad data); skipped to part 3"]))
                == [.errorLine("shelf: part 2 cannot be played (bad data); skipped to part 3")])
        #expect(plain.send(.warnings(["ignored the annotations of The Test Book"]))
                == [.errorLine("shelf: warning: ignored the annotations of The Test Book")])
        var screen = Harness()
        #expect(screen.send(.warnings(["ignored the annotations of The Test Book"])) == [])
        #expect(screen.machine.message?.text == "warning: ignored the annotations of The Test Book")
        #expect(screen.send(.problems(["part 2 cannot be played (bad data)"])) == [])
        #expect(screen.machine.message?.text == "part 2 cannot be played (bad data)")
    }

    @Test func theBookIsReReadEachSecondWhileItDownloads() {
        var session = Harness(screen: false, downloading: true)
        #expect(session.tick(after: 0.5).contains(.refreshBook))
        #expect(!session.tick(after: 0.5).contains(.refreshBook))
        #expect(session.tick(after: 0.5).contains(.refreshBook))
        session.send(.partsArrived(TestBook.book(progress: [3: "70%"]), lengths: [0: 30], complete: true))
        #expect(session.machine.book.parts[3].progress == "70%")
        // Complete, but the download has not said it is done: still re-read.
        #expect(session.machine.download == .running)
        session.send(.downloadEnded(failure: nil))
        #expect(session.machine.download == .ended(failure: nil))
        #expect(session.tick(after: 1).contains(.refreshBook))
        session.send(.partsArrived(TestBook.book(), lengths: [1: 30, 2: 30, 3: 30], complete: true))
        #expect(session.machine.download == nil)
        #expect(!session.tick(after: 1).contains(.refreshBook))
        #expect(session.machine.timeline.isMeasured)
    }

    @Test func aRefusedSaveIsSaidAndTriedAgain() {
        var session = Harness(screen: false)
        session.tick(after: 1)
        var machine = session.machine
        let later = ListenMachine.Snapshot(now: session.now + 1, position: at(0, 17), state: .playing)
        #expect(machine.handle(.key(.character(" "), later, onDisk: [0, 1, 2, 3])).count == 3)
        #expect(machine.savedPosition == at(0, 17))
        #expect(machine.handle(.saveFailed("disk I/O error")) == [.errorLine("shelf: cannot save the position: disk I/O error")])
        // The last position the store took counts again: the next save is not skipped as a repeat.
        #expect(machine.savedPosition == at(0, 16))
        var screen = Harness()
        #expect(screen.send(.saveFailed("disk I/O error")) == [])
        #expect(screen.machine.message?.text == "cannot save the position: disk I/O error")
        // Any other effect that fails is shown, and the rest of its batch is not done.
        #expect(screen.send(.failed("part 9 is not in this title")) == [])
        #expect(screen.machine.message?.text == "part 9 is not in this title")
    }

    @Test func theScreenIsRedrawnFourTimesASecondOnKeysAndOnResize() {
        var session = Harness()
        #expect(session.tick(after: 0.125).contains(.redraw))
        #expect(!session.tick(after: 0.125).contains(.redraw))
        #expect(session.tick(after: 0.125).contains(.redraw))
        #expect(session.key("x") == [.redraw])
        #expect(!session.tick(after: 0.125).contains(.redraw))
        #expect(session.send(.resized) == [.redraw])
        var plain = Harness(screen: false)
        for _ in 0..<5 { #expect(!plain.tick(after: 0.25).contains(.redraw)) }
        #expect(plain.send(.resized) == [])
    }

    @Test func messagesLastFourSeconds() {
        var session = Harness()
        _ = session.key("]")
        session.tick(after: 2)
        session.tick(after: 2)
        #expect(session.machine.message?.text == "Speed 1.25×.")
        session.tick(after: 0.125)
        #expect(session.machine.message == nil)
        // Those that wait for the patron last an hour.
        _ = session.send(.deviceLost(session.snapshot))
        session.tick(after: 3599)
        #expect(session.machine.message != nil)
        session.tick(after: 2)
        #expect(session.machine.message == nil)
    }
}
