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

    /// (where the other device is, seconds after the session started it was saved, same device as an earlier offer,
    /// whether it is offered)
    static let offers: [(String, PlaybackPosition, Double, Bool)] = [
        ("ahead by 45 s, newer", at(2, 0), 5, true),
        ("ahead by only 20 s", at(1, 5), 5, false),
        ("behind", at(0, 2), 5, false),
        ("ahead but saved before this session", at(3, 0), -5, false),
        ("a part the book does not have", at(7, 0), 5, false),
    ]

    @Test(arguments: offers)
    func anotherDeviceAheadIsOfferedNeverJumpedTo(_ row: (String, PlaybackPosition, Double, Bool)) {
        let (_, place, age, offered) = row
        var screen = Harness()
        let effects = screen.send(.remotePosition(remote(place.part, place.seconds, at: Harness.start + age)))
        #expect(!effects.contains { if case .seek = $0 { true } else { false } }, "\(row.0)")
        #expect((screen.machine.sync.offer != nil) == offered, "\(row.0)")
        if offered {
            #expect(screen.machine.message?.text == "Another device (Phone) is at 1:00 — press j to jump there")
            // It stays on the screen while playing on, until acted on.
            screen.quietTick(after: 30)
            #expect(screen.machine.message?.text.hasPrefix("Another device (Phone)") == true)
            // Once this device has played past that place, the offer is withdrawn: `j` would now jump back.
            screen.quietTick(after: 20)
            #expect(screen.machine.sync.offer == nil && screen.machine.message == nil, "\(screen.position)")
            #expect(screen.key("j").isEmpty || screen.machine.message?.text == "No other device is ahead of this one.")
        }
        // Without a screen the offer is a line on standard output.
        var plain = Harness(screen: false)
        let lines = plain.send(.remotePosition(remote(place.part, place.seconds, at: Harness.start + age)))
        #expect(lines == (offered ? [.line("Another device (Phone) is at \(Clock.format(plain.timeline.bookTime(place))) — press j to jump there")] : []))
    }

    @Test func jJumpsToTheOfferAndSavesAndWithoutOneSaysSo() {
        var session = Harness()
        #expect(session.key("j") == [.redraw])
        #expect(session.machine.message?.text == "No other device is ahead of this one.")
        #expect(session.position == at(0, 15))

        session.send(.remotePosition(remote(2, 10, at: Harness.start + 1)))
        let effects = session.key("j")
        #expect(effects == [.seek(at(2, 10)), session.save(at(2, 10)), .push, .redraw])
        #expect(session.position == at(2, 10) && session.machine.sync.offer == nil)
        #expect(session.machine.message?.text == "Jumped to 1:10, where Phone was.")
        // The same position again is not offered again; a newer one is.
        session.send(.remotePosition(remote(3, 25, at: Harness.start + 1)))
        #expect(session.machine.sync.offer == nil)
        session.send(.remotePosition(remote(3, 25, at: Harness.start + 2)))
        #expect(session.machine.sync.offer?.seconds == 25)
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
