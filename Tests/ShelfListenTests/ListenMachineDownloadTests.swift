import Foundation
import ShelfPlayback
import Testing
@testable import ShelfListen

/// Playing while the title downloads: the player waits for the part it needs until its file is in place or the
/// download gives up on that very part; the part it needs is fetched first; the files going away ends the session.
@Suite(.timeLimit(.minutes(5))) struct ListenMachineDownloadTests {
    @Test func whileTheDownloadRunsThePlayerWaits() {
        var session = Harness.waitingForPartThree()
        #expect(session.tick() == [.line("Buffering: waiting for part 3 (40%)."), .fetchFirst([2, 3]), .refreshBook])
        for _ in 0..<100 { session.tick(after: 0.5) }
        #expect(session.machine.outcome == nil)
        #expect(session.state == .buffering)
        #expect(!session.log.contains(.pause))
    }

    @Test func theDownloadEndingWithThePartInPlacePlaysOn() {
        var session = Harness.waitingForPartThree()
        session.tick()
        // The part's file was renamed into place just before the download thread ended; the player has not looked
        // yet (it looks four times a second).
        session.onDisk = [0, 1, 2, 3]
        #expect(session.send(.downloadEnded(failure: nil)) == [.refreshBook])
        for _ in 0..<3 { #expect(session.quietTick() == []) }
        session.state = .playing
        session.bufferingPart = nil
        session.position = at(2, 0)
        session.tick(after: 1)
        #expect(session.machine.outcome == nil)
        #expect(!session.log.contains(.pause))
        #expect(!session.log.contains { if case .errorLine = $0 { true } else { false } })
    }

    @Test func theDownloadEndingShortWithThePartInPlacePlaysOnToo() {
        // Another part failed; the one the player waits for arrived.
        var session = Harness.waitingForPartThree()
        session.onDisk = [0, 1, 2]
        session.send(.downloadEnded(failure: "part 4: gave up after 5 attempts: the server answered 500"))
        #expect(session.quietTick() == [.line("Buffering: waiting for part 3 (40%).")])
        #expect(session.machine.outcome == nil)
    }

    @Test func thePartFailingEndsTheWaitWhileOthersStillDownload() {
        var session = Harness.waitingForPartThree()
        session.tick()
        session.send(.partFailed(2, reason: "gave up after 5 attempts: the server answered 500"))
        #expect(session.machine.download == .running)
        #expect(session.tick() == [
            .pause, session.save(at(1, 29)),
            .errorLine("shelf: part 3 is not on this computer and cannot be downloaded now (gave up after 5 attempts: "
                       + "the server answered 500); the position is saved"),
        ] + session.ending(.partUnavailable(.offline), at: at(1, 29), line: Harness.stoppedInPartTwo, screen: false))
    }

    @Test func anotherPartFailingDoesNotStopTheWait() {
        var session = Harness.waitingForPartThree()
        session.send(.partFailed(3, reason: "gave up after 5 attempts: the server answered 500"))
        for _ in 0..<10 { session.tick(after: 0.5) }
        #expect(session.machine.outcome == nil)
        #expect(!session.log.contains(.pause))
    }

    @Test func thePartFailingPausesOnTheScreen() {
        var session = Harness.waitingForPartThree(screen: true)
        session.send(.partFailed(2, reason: "the server answered 404 Not Found"))
        #expect(session.quietTick() == [.fetchFirst([2, 3]), .pause, session.save(at(1, 29)), .refreshBook])
        #expect(session.machine.message?.text
                == "part 3 is not on this computer and cannot be downloaded now (the server answered 404 Not Found); "
                + "the position is saved")
        #expect(session.machine.outcome == nil)
    }

    @Test func theDownloadEndingWithoutThePartSaysWhy() {
        var session = Harness.waitingForPartThree()
        session.send(.downloadEnded(failure: "offline"))
        #expect(session.tick() == [
            .line("Buffering: waiting for part 3 (40%)."), .pause, session.save(at(1, 29)),
            .errorLine("shelf: part 3 is not on this computer and cannot be downloaded now (offline); the position is saved"),
        ] + session.ending(.partUnavailable(.offline), at: at(1, 29), line: Harness.stoppedInPartTwo, screen: false))
    }

    @Test func thePartBeingPlayedAndTheNextComeFirst() {
        let session = Harness(screen: false, at: at(2, 10), downloading: true)
        #expect(session.started.contains(.fetchFirst([2, 3])))
        #expect(!Harness(screen: false, at: at(2, 10), downloading: false).started.contains { if case .fetchFirst = $0 { true } else { false } })
    }

    @Test func aJumpToAnotherPartWhileDownloadingMovesItToTheFront() {
        var session = Harness(screen: false, at: at(0, 15), downloading: true)
        // n: chapter 2, the start of the second part.
        #expect(session.key("n").contains(.fetchFirst([1, 2])))
        // Within the part: nothing to move.
        #expect(!session.key(".").contains { if case .fetchFirst = $0 { true } else { false } })
        var done = Harness(screen: false, at: at(0, 15), downloading: false)
        #expect(!done.key("n").contains { if case .fetchFirst = $0 { true } else { false } })
    }

    /// `g` and an MPRIS seek or position to another part while downloading put that part (and the next) first, as
    /// `n` does; the download asks for them before any other.
    @Test func aGoToOrAnMprisMoveToAnotherPartMovesItToTheFront() {
        var typed = Harness(screen: false, at: at(0, 15), downloading: true)
        _ = typed.key("g")
        for character in "1:15" { _ = typed.key(character) }
        #expect(typed.key(.enter).contains(.fetchFirst([2, 3])))
        var seeked = Harness(screen: false, at: at(0, 15), downloading: true)
        #expect(seeked.send(.remote(.seek(by: 40), seeked.snapshot)).contains(.fetchFirst([1, 2])))
        var placed = Harness(screen: false, at: at(0, 15), downloading: true)
        #expect(placed.send(.remote(.setPosition(100), placed.snapshot)).contains(.fetchFirst([3, 4])))
    }

    @Test func theFilesRemovedWhilePlayingEndTheSessionOnce() {
        var session = Harness(screen: true, at: at(1, 10))
        session.tick()
        session.onDisk = []
        let effects = session.quietTick()
        let here = session.position
        let expected: [Effect] = [.pause, session.save(here), .stopPlayer, .restoreTerminal,
            .errorLine("shelf: the files of The Test Book were removed (archived or returned) — the position is saved"),
            .pushAndWait(seconds: 3), .line("Stopped at 0:40 of 2:00 (33%), in Chapter 2 (2 of 4). Position saved."),
            .end(.filesRemoved)]
        #expect(effects == expected)
        #expect(session.machine.outcome == .filesRemoved)
        #expect(ListenOutcome.filesRemoved.exitCode == 0)
        #expect(session.quietTick() == [])
    }

    @Test func theFilesRemovedWhileWaitingForAPartEndTheSession() {
        var session = Harness.waitingForPartThree(downloading: false)
        session.onDisk = []
        let effects = session.tick()
        #expect(effects.contains(.errorLine("shelf: the files of The Test Book were removed (archived or returned) — the position is saved")))
        #expect(effects.last == .end(.filesRemoved))
        #expect(effects.contains(session.save(at(1, 29))))
    }

    @Test func oneFileMissingOfACompleteBookKeepsTheWayBack() {
        var session = Harness(screen: false, at: at(1, 10))
        session.onDisk = [0, 2, 3]
        // Playing part 2 from its open file: nothing to say until the player needs another.
        let effects = session.tick()
        #expect(!effects.contains { if case .errorLine = $0 { true } else { false } }, "\(effects)")
        #expect(session.machine.outcome == nil)
    }

    @Test func theStatusLineNamesThePartWaitedFor() {
        let book = TestBook.book(progress: [2: "40%", 3: "10%"])
        #expect(ListenScreen.downloadStatus(book: book, downloading: true, waitingFor: 2) == "waiting for part 3 (40%)")
        #expect(ListenScreen.downloadStatus(book: book, downloading: true, waitingFor: 3) == "waiting for part 4 (10%)")
        #expect(ListenScreen.downloadStatus(book: TestBook.book(), downloading: true, waitingFor: 1) == "waiting for part 2")
        // Not waiting: the parts on disk (none, in the test book), with the first under way.
        #expect(ListenScreen.downloadStatus(book: book, downloading: true, waitingFor: nil) == "parts 0/4 downloaded (part 3: 40%)")
        var session = Harness(screen: true, at: at(1, 29), downloading: true, book: TestBook.book(progress: [2: "40%", 3: "90%"]))
        session.state = .buffering
        session.bufferingPart = 2
        session.onDisk = [0, 1]
        session.tick()
        let screen = ListenScreen.lines(of: session.machine, skip: 30, rows: 24, columns: 80).joined(separator: "\n")
        #expect(screen.contains("… buffering · 1.0× · waiting for part 3 (40%)"), "\(screen)")
        #expect(!screen.contains("part 4: 90%"), "\(screen)")
    }
}
