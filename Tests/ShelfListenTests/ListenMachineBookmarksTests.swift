import Foundation
import ShelfPlayback
import Testing
@testable import ShelfCore
@testable import ShelfListen

private let phone = "urn:uuid:5f0d6d2e-0000-4000-8000-0000000000bb"

/// Another device's position as the pull hands it in.
private func remote(_ part: Int, _ seconds: Double, at: Date, device: String = phone, name: String? = "Phone") -> ListeningPosition {
    ListeningPosition(part: part, seconds: seconds, readingOrderItem: "\(part + 1).mp3", device: device, deviceName: name, at: at)
}

private func bookmark(_ id: Int64, _ part: Int, _ seconds: Double, name: String? = nil, device: String? = nil) -> Bookmark {
    let json = """
        {"id": \(id), "part": \(part), "seconds": \(seconds), "readingOrderItem": "\(part + 1).mp3", "device": "\(device ?? "urn:uuid:me")",
         "deviceName": \(device == nil ? "\"this computer\"" : "\"Phone\""), "thisDevice": \(device == nil),
         "at": 0\(name.map { ", \"name\": \"\($0)\"" } ?? "")}
        """
    return try! JSONDecoder().decode(Bookmark.self, from: Data(json.utf8))
}

/// Positions pulled while playing (the "another device is ahead" offer and `j`) and the bookmarks screen (`B`).
@Suite(.timeLimit(.minutes(5))) struct ListenMachineBookmarksTests {
    // MARK: Pulls

    @Test func theLibraryIsAskedEveryMinuteOfPlayingAndAtOnceOnResume() {
        var session = Harness(screen: false)
        var pulls: [Int] = []
        for second in 1...130 {
            if session.tick(after: 1).contains(.pullRemote) { pulls.append(second) }
        }
        #expect(pulls == [60, 120])
        // Paused, time passes without a pull; playing again asks at once.
        _ = session.key(" ")
        #expect(!session.tick(after: 100).contains(.pullRemote))
        #expect(session.key(" ") == [.play, .pullRemote])
    }

    /// (case, where this device is, where the other device's newer place is, whether it is offered)
    static let offers: [(String, PlaybackPosition, PlaybackPosition, Bool)] = [
        ("ahead by 45 s", at(0, 15), at(2, 0), true),
        ("ahead by only 20 s", at(0, 15), at(1, 5), false),
        ("behind by 58 s", at(2, 0), at(0, 2), true),
        ("behind by 10 s", at(2, 0), at(1, 20), false),
        ("a part the book does not have", at(0, 15), at(7, 0), false),
    ]

    /// The store hands in another device's newer place not answered yet: offered when more than 30 s from this
    /// device's, answered by itself when closer; never jumped to.
    @Test(arguments: offers)
    func anotherDevicesNewerPlaceIsOfferedNeverJumpedTo(_ row: (String, PlaybackPosition, PlaybackPosition, Bool)) {
        let (name, here, place, offered) = row
        let saved = Harness.start - 7_200
        var screen = Harness(at: here)
        let effects = screen.send(.remotePosition(remote(place.part, place.seconds, at: saved)))
        #expect(!effects.contains { if case .seek = $0 { true } else { false } }, "\(name)")
        #expect((screen.machine.sync.offer != nil) == offered, "\(name)")
        let there = Clock.format(screen.timeline.bookTime(place))
        if offered {
            #expect(effects == [.redraw], "\(name)")
            #expect(screen.machine.message?.text == "Another device (Phone) was at \(there), 2 hours ago — press j to go there, x to stay here")
            // It stays on the screen while playing on, until answered.
            screen.quietTick(after: 30)
            #expect(screen.machine.message?.text.hasPrefix("Another device (Phone)") == true)
        } else if book.parts.indices.contains(place.part) {
            // Beside this device's place: answered by itself, so this device's position may be pushed over it.
            #expect(effects == [.settleOffer(saved)], "\(name)")
        } else {
            #expect(effects.isEmpty, "\(name)")
        }
        // Without a screen the offer is a line on standard output, with what to run (keys cannot be pressed).
        var plain = Harness(screen: false, at: here)
        let lines = plain.send(.remotePosition(remote(place.part, place.seconds, at: saved)))
        let id = plain.machine.book.summary.shortID
        if offered {
            #expect(lines == [.line("Another device (Phone) was at \(there), 2 hours ago — `shelf position \(id) "
                                    + "--take-other` goes there, `--keep-here` stays here")], "\(name)")
        }
    }

    private var book: Audiobook { TestBook.book() }

    /// Playing up to the place offered ahead answers the offer: the patron listened on past it here.
    @Test func playingPastAnOfferAheadAnswersIt() {
        var session = Harness()
        session.send(.remotePosition(remote(2, 0, at: Harness.start - 60)))
        #expect(session.machine.sync.offer != nil)
        var settled: [Effect] = []
        for _ in 0..<50 { settled += session.tick(after: 1).filter { if case .settleOffer = $0 { true } else { false } } }
        #expect(settled == [.settleOffer(Harness.start - 60)])
        #expect(session.machine.sync.offer == nil && session.machine.message == nil, "\(session.position)")
        #expect(session.key("j").isEmpty || session.machine.message?.text == "No other device's place is waiting for an answer.")
    }

    @Test func jGoesToTheOfferAndSavesAndWithoutOneSaysSo() {
        var session = Harness()
        #expect(session.key("j") == [.redraw])
        #expect(session.machine.message?.text == "No other device's place is waiting for an answer.")
        #expect(session.position == at(0, 15))

        let saved = Harness.start - 1
        session.send(.remotePosition(remote(2, 10, at: saved)))
        let effects = session.key("j")
        #expect(effects == [.settleOffer(saved), .seek(at(2, 10)), session.save(at(2, 10)), .push, .redraw])
        #expect(session.position == at(2, 10) && session.machine.sync.offer == nil)
        #expect(session.machine.message?.text == "Went to 1:10, where Phone was.")
        // A newer place of the other device is offered again.
        session.send(.remotePosition(remote(3, 25, at: Harness.start + 2)))
        #expect(session.machine.sync.offer?.seconds == 25)
    }

    /// `x` stays here and pushes this device's place; a move of the patron's own after the offer stays too.
    @Test func xOrAMoveOfThePatronsOwnStaysHere() {
        var session = Harness()
        let saved = Harness.start - 1
        session.send(.remotePosition(remote(2, 10, at: saved)))
        #expect(session.key("x") == [.settleOffer(saved), session.save(at(0, 15)), .push, .redraw])
        #expect(session.machine.sync.offer == nil)
        #expect(session.machine.message?.text == "Staying here: the library gets this computer's place.")

        session.send(.remotePosition(remote(3, 10, at: saved + 1)))
        #expect(session.key(".") == [.settleOffer(saved + 1), .seek(at(0, 20)), session.save(at(0, 20)), .redraw])
        #expect(session.machine.sync.offer == nil && session.machine.message == nil)
    }

    // MARK: The bookmarks screen

    @Test func bOpensTheListWhichJumpsAndDeletes() {
        var session = Harness(at: at(1, 10))
        #expect(session.key("B") == [.readBookmarks, .redraw])
        #expect(session.machine.mode == .bookmarks)
        let list = [bookmark(4, 0, 3, name: "opening"), bookmark(9, 1, 2, device: phone), bookmark(7, 2, 20)]
        #expect(session.send(.bookmarksRead(list)) == [.redraw])
        // The one just behind where the player is is selected first.
        #expect(session.machine.sync.selection == 1)
        let lines = ListenScreen.lines(of: session.machine, skip: 30, rows: 24, columns: 80)
        #expect(lines.contains { $0.contains("1  0:03  Opening Credits · opening") })
        #expect(lines.contains { $0.contains("2  0:32  Chapter 2  (Phone)") })

        _ = session.key(.down)
        #expect(session.machine.sync.selection == 2)
        _ = session.key("k")
        _ = session.key("k")
        _ = session.key("k")
        #expect(session.machine.sync.selection == 0)
        #expect(session.key("d") == [.deleteBookmark(4), .readBookmarks, .push, .redraw])
        #expect(session.machine.sync.bookmarks.map(\.id) == [9, 7] && session.machine.mode == .bookmarks)
        session.send(.bookmarksRead([bookmark(9, 1, 2, device: phone), bookmark(7, 2, 20)]))

        _ = session.key(.down)
        #expect(session.key(.enter) == [.seek(at(2, 20)), session.save(at(2, 20)), .redraw])
        #expect(session.machine.mode == .player && session.position == at(2, 20))

        for back in [Key.escape, .character("B"), .character("q")] {
            _ = session.key("B")
            #expect(session.machine.mode == .bookmarks)
            #expect(session.key(back) == [.redraw])
            #expect(session.machine.mode == .player)
        }
    }

    @Test func anEmptyListSaysHowToAddOne() {
        var session = Harness()
        _ = session.key("B")
        session.send(.bookmarksRead([]))
        #expect(session.key(.enter) == [.redraw] && session.key("d") == [.redraw])
        let lines = ListenScreen.lines(of: session.machine, skip: 30, rows: 24, columns: 80)
        #expect(lines.contains("  No bookmarks yet: press b while listening to add one."))
    }
}
