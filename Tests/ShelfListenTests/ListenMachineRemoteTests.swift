import Foundation
import ShelfCLI
import ShelfPlayback
import Testing
@testable import ShelfListen

/// MPRIS commands (media keys, playerctl) and the volume keys `9`, `0`, `m`, by table. The session starts 15 s into
/// the test book (chapter 2 of 5, "Chapter 1", which starts at 0:05), playing at 1×.
@Suite(.timeLimit(.minutes(5))) struct ListenMachineRemoteTests {
    typealias Command = ListenMachine.RemoteCommand

    static let stopped = "Stopped at 0:15 of 2:00 (12%), in Chapter 1 (1 of 4). Position saved."

    /// A command, where the session is when it comes, what the machine asks for, what MPRIS then reports.
    /// A resume from pause also asks the library where the other devices are (`.pullRemote`), as space does.
    static var table: [(Command, ListenMachineKeyTests.Given, status: String, (Harness) -> [Effect])] { [
        (.playPause, .playing, "Paused", { [.pause, $0.save(at(0, 15)), .push] }),
        (.playPause, .paused, "Playing", { _ in [.play, .pullRemote] }),
        (.play, .playing, "Playing", { _ in [] }),
        (.play, .paused, "Playing", { _ in [.play, .pullRemote] }),
        (.pause, .playing, "Paused", { [.pause, $0.save(at(0, 15)), .push] }),
        (.pause, .paused, "Paused", { _ in [] }),
        // Stop keeps the place: paused, saved and pushed, and said to be stopped.
        (.stop, .playing, "Stopped", { [.pause, $0.save(at(0, 15)), .push] }),
        (.stop, .paused, "Stopped", { [$0.save(at(0, 15))] }),
        (.next, .playing, "Playing", { [.seek(at(1, 0)), $0.save(at(1, 0))] }),
        (.next, .at(at(3, 10)), "Playing", { _ in [] }),
        (.previous, .playing, "Playing", { [.seek(at(0, 5)), $0.save(at(0, 5))] }),
        (.previous, .at(at(0, 7)), "Playing", { [.seek(at(0, 0)), $0.save(at(0, 0))] }),
        (.seek(by: 20), .playing, "Playing", { [.seek(at(1, 5)), $0.save(at(1, 5))] }),
        (.seek(by: -60), .playing, "Playing", { [.seek(at(0, 0)), $0.save(at(0, 0))] }),
        (.seek(by: 600), .playing, "Playing", { [.seek(at(3, 29.75)), $0.save(at(3, 29.75))] }),
        (.seek(by: .nan), .playing, "Playing", { _ in [] }),
        (.setPosition(75), .playing, "Playing", { [.seek(at(2, 15)), $0.save(at(2, 15))] }),
        (.setPosition(0), .paused, "Paused", { [.seek(at(0, 0)), $0.save(at(0, 0))] }),
        // Outside the track: ignored, as MPRIS says.
        (.setPosition(121), .playing, "Playing", { _ in [] }),
        (.setPosition(-1), .playing, "Playing", { _ in [] }),
        (.setRate(2), .playing, "Playing", { _ in [.setSpeed(2), .saveSpeed(2)] }),
        (.setRate(10), .playing, "Playing", { _ in [.setSpeed(4), .saveSpeed(4)] }),
        (.setRate(0.1), .playing, "Playing", { _ in [.setSpeed(0.5), .saveSpeed(0.5)] }),
        (.setRate(1), .playing, "Playing", { _ in [] }),
        (.setRate(0), .playing, "Playing", { _ in [] }),
        (.setVolume(0.5), .playing, "Playing", { _ in [.setVolume(0.5)] }),
        (.setVolume(1.5), .playing, "Playing", { _ in [.setVolume(1.5)] }),
        (.setVolume(7), .playing, "Playing", { _ in [.setVolume(2)] }),
        (.setVolume(-1), .paused, "Paused", { _ in [.setVolume(0)] }),
        (.quit, .playing, "Paused", { [.pause] + $0.ending(.quit, at: at(0, 15), line: stopped) }),
        (.quit, .paused, "Paused", { $0.ending(.quit, at: at(0, 15), line: stopped) }),
    ] }

    @Test func everyCommand() {
        for (command, given, status, expected) in Self.table {
            var session = Harness()
            given.apply(to: &session)
            let wanted = expected(session)
            var effects = session.send(.remote(command, session.snapshot))
            // Like a key, a command redraws the screen unless it ended the session.
            if session.machine.outcome == nil {
                #expect(effects.last == .redraw, "\(command) when \(given)")
                effects.removeLast()
            }
            #expect(effects == wanted, "\(command) when \(given)")
            #expect(session.machine.remoteState.status == status, "\(command) when \(given)")
        }
    }

    @Test func withoutAScreenNothingIsRedrawnAndTheEndSaysWhereItStopped() {
        var session = Harness(screen: false)
        #expect(session.send(.remote(.next, session.snapshot)) == [.seek(at(1, 0)), session.save(at(1, 0))])
        #expect(session.send(.remote(.quit, session.snapshot)) == [.pause] + session.ending(
            .quit, at: at(1, 0), line: "Stopped at 0:30 of 2:00 (25%), in Chapter 2 (2 of 4). Position saved.",
            screen: false))
        // Once over, commands do nothing.
        #expect(session.send(.remote(.play, session.snapshot)) == [])
    }

    @Test func playingAgainAfterStopSaysPlayingAndAPauseSaysPaused() {
        var session = Harness()
        session.send(.remote(.stop, session.snapshot))
        #expect(session.machine.remoteState.status == "Stopped")
        _ = session.key(" ")
        #expect(session.machine.remoteState.status == "Playing")
        _ = session.key(" ")
        #expect(session.machine.remoteState.status == "Paused")
        // The end of the book is stopped too.
        session.state = .finished
        session.tick()
        #expect(session.machine.remoteState.status == "Stopped")
    }

    @Test func thePublishedStateFollowsTheChapterTheSpeedAndTheVolume() {
        var session = Harness()
        #expect(session.machine.remoteState == ListenMachine.RemoteState(
            status: "Playing", rate: 1, volume: 1, chapter: 1, chapterTitle: "Chapter 1", length: 120))
        _ = session.key("n")
        _ = session.key("]")
        _ = session.key("9")
        #expect(session.machine.remoteState == ListenMachine.RemoteState(
            status: "Playing", rate: 1.25, volume: 0.9, chapter: 2, chapterTitle: "Chapter 2", length: 120))
        _ = session.key("m")
        #expect(session.machine.remoteState.volume == 0)
        // MPRIS's Volume is the patron's: it unmutes.
        session.send(.remote(.setVolume(0.3), session.snapshot))
        #expect(session.machine.muted == false)
        #expect(session.machine.remoteState.volume == 0.3)
        #expect(session.machine.message?.text == "Volume 30%.")
    }

    // MARK: - Volume and mute keys

    @Test func nineAndZeroStepTenPercentBetweenSilenceAndTwiceFull() {
        var session = Harness()
        for step in 1...10 {
            #expect(session.key("0") == [.setVolume(Double(10 + step) / 10), .redraw], "step \(step)")
        }
        #expect(session.key("0") == [.setVolume(2), .redraw])
        #expect(session.machine.message?.text == "Volume 200%.")
        #expect(session.machine.volumeLabel == "volume 200%")
        for _ in 1...10 { _ = session.key("9") }
        #expect(session.machine.volumeLabel == nil)
        for step in 1...10 {
            #expect(session.key("9") == [.setVolume(Double(10 - step) / 10), .redraw], "step \(step)")
        }
        #expect(session.machine.message?.text == "Volume 0%.")
        #expect(session.machine.volumeLabel == "volume 0%")
        #expect(session.key("9") == [.setVolume(0), .redraw])
        for _ in 1...3 { _ = session.key("0") }
        #expect(session.machine.volume == 0.3)
        #expect(session.machine.volumeLabel == "volume 30%")
        #expect(session.machine.message?.text == "Volume 30%.")
    }

    @Test func mMutesAndUnmutesAndTheKeysChangeTheVolumeUnderneath() {
        var session = Harness()
        #expect(session.machine.volumeLabel == nil)
        #expect(session.key("m") == [.setVolume(0), .redraw])
        #expect(session.machine.message?.text == "Muted.")
        #expect(session.machine.volumeLabel == "muted")
        #expect(session.key("9") == [.setVolume(0), .redraw])
        #expect(session.machine.message?.text == "Volume 90% (muted).")
        #expect(session.key("m") == [.setVolume(0.9), .redraw])
        #expect(session.machine.message?.text == "Volume 90%.")
    }

    @Test func theVolumeKeysDoNothingInTheContents() {
        var session = Harness()
        _ = session.key("t")
        for key: Character in ["9", "0", "m"] { #expect(session.key(key) == [.redraw], "\(key)") }
        #expect(session.machine.volume == 1)
        #expect(session.machine.muted == false)
    }

    /// The sleep timer fades the chosen volume, not 100%, and gives the chosen volume back when it pauses.
    @Test func theSleepTimersFadeScalesTheChosenVolume() {
        var session = Harness(at: at(0, 1), sleep: 6)
        for _ in 1...5 { _ = session.key("9") }
        #expect(session.machine.volume == 0.5)
        #expect(session.quietTick(after: 1).first == .setVolume(0.5))
        #expect(session.quietTick(after: 1).first == .setVolume(0.4))
        #expect(session.quietTick(after: 1).first == .setVolume(0.3))
        #expect(session.quietTick(after: 1).first == .setVolume(0.2))
        #expect(session.quietTick(after: 1).first == .setVolume(0.1))
        let paused = session.quietTick(after: 1)
        #expect(paused.prefix(3) == [.setVolume(0), .pause, .seek(at(0, 7))])
        #expect(paused.dropFirst(3).first == .setVolume(0.5))
        // Muted, the fade stays silent.
        var muted = Harness(screen: false, at: at(0, 1), sleep: 6)
        _ = muted.key("m")
        #expect(muted.quietTick(after: 2).first == .setVolume(0))
    }

    @Test func turningTheSleepTimerOffGivesTheChosenVolumeBack() {
        var session = Harness(sleep: 3)
        _ = session.key("9")
        _ = session.quietTick(after: 1)
        #expect(session.machine.fade < 1)
        // s steps through the timers, then off.
        var last: [Effect] = []
        _ = session.key("s")
        last = session.type("off")
        #expect(last == [.setVolume(0.9), .redraw])
        #expect(session.machine.message?.text == "Sleep timer off.")
        #expect(session.machine.fade == 1)
    }
}
