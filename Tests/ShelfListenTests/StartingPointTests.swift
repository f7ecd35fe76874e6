import Foundation
import ShelfPlayback
import Testing
@testable import ShelfCore
@testable import ShelfListen

/// Where a session begins: the command line, this computer's position, or another device's, by table.
@Suite(.timeLimit(.minutes(5))) struct StartingPointTests {
    static let saved = Date(timeIntervalSinceReferenceDate: 800_000_000)

    static func position(_ part: Int, _ seconds: Double, device: String = "urn:uuid:this", name: String? = nil,
                         at: Date = saved) -> ListeningPosition {
        ListeningPosition(part: part, seconds: seconds, readingOrderItem: "", device: device, deviceName: name, at: at)
    }

    static func state(_ position: ListeningPosition?, _ consumption: Consumption = .inProgress, speed: Double = 1) -> ListeningState {
        ListeningState(position: position, speed: speed, consumption: consumption, percent: nil, pendingPush: false)
    }

    struct Row {
        var name: String
        var options = ListenOptions(screen: false)
        var saved: ListeningState
        var remote: ListeningPosition?
        var position: PlaybackPosition
        var note: String?
        /// Whether the library is asked at all.
        var asks = true
        /// Whether the other device's place is taken (its offer answered), or offered again.
        var taken = false
        var offered = false
        /// When the session starts: by default when the position was saved, so nothing is rewound.
        var now = StartingPointTests.saved
    }

    static let later = saved.addingTimeInterval(60)

    static let rows: [Row] = [
        Row(name: "never played", saved: state(nil), position: at(0, 0)),
        Row(name: "this computer's position", saved: state(position(1, 5)), position: at(1, 5), note: "Resuming at 0:35."),
        Row(name: "a newer position from a named device", saved: state(position(1, 5)),
            remote: position(2, 2.5, device: "urn:uuid:phone", name: "Pixel 7", at: later), position: at(2, 2.5),
            note: "Resuming at 1:02 from Pixel 7.", taken: true),
        Row(name: "a device known only by its URN", saved: state(nil), remote: position(2, 2.5, device: "urn:uuid:phone", at: later),
            position: at(2, 2.5), note: "Resuming at 1:02 from another device.", taken: true),
        Row(name: "a device that sends a name as its id", saved: state(nil), remote: position(3, 1, device: "Kitchen tablet", at: later),
            position: at(3, 1), note: "Resuming at 1:31 from Kitchen tablet.", taken: true),
        // This computer played on after the other device's place was offered: it is offered again, not taken.
        Row(name: "an unanswered offer older than this computer's position", saved: state(position(1, 5)),
            remote: position(2, 2.5, device: "urn:uuid:phone", at: saved.addingTimeInterval(-60)), position: at(1, 5),
            note: "Resuming at 0:35.", offered: true),
        Row(name: "another device within a second of this one", saved: state(position(1, 5)),
            remote: position(1, 5.8, device: "urn:uuid:phone", at: later), position: at(1, 5), note: "Resuming at 0:35.",
            taken: true),
        Row(name: "a position in a part the book does not have", saved: state(position(7, 5)), position: at(0, 0)),
        Row(name: "a finished book starts again", saved: state(position(1, 5), .finished), position: at(0, 0),
            note: "Starting again from the beginning."),
        Row(name: "the last second starts again", saved: state(position(3, 29.5)), position: at(0, 0),
            note: "Starting again from the beginning."),
        Row(name: "--from", options: ListenOptions(from: 75, screen: false), saved: state(position(1, 5)),
            remote: position(3, 1, device: "urn:uuid:phone", at: later), position: at(2, 15), asks: false),
        // Chapter 2 as a person counts: the opening credits are not chapter 1.
        Row(name: "--chapter", options: ListenOptions(chapter: 2, screen: false), saved: state(position(1, 5), .finished),
            position: at(1, 0), asks: false),
        Row(name: "--chapter 1 is after the credits", options: ListenOptions(chapter: 1, screen: false), saved: state(nil),
            position: at(0, 5), asks: false),
        // Going back after time away (`--rewind auto`, the default).
        Row(name: "two days away goes back 30 s", saved: state(position(1, 5)), position: at(0, 5),
            note: "Resuming at 0:35. Back 30 s after 2 days away: from 0:05.", now: saved.addingTimeInterval(2 * 86_400)),
        Row(name: "four minutes away goes back 10 s", saved: state(position(1, 5)), position: at(0, 25),
            note: "Resuming at 0:35. Back 10 s after a 4-minute pause: from 0:25.", now: saved.addingTimeInterval(240)),
        Row(name: "two seconds away stays", saved: state(position(1, 5)), position: at(1, 5), note: "Resuming at 0:35.",
            now: saved.addingTimeInterval(2)),
        Row(name: "never before the start of the book", saved: state(position(0, 4)), position: at(0, 0),
            note: "Resuming at 0:04. Back 4 s after an hour's pause: from 0:00.", now: saved.addingTimeInterval(3_600)),
        Row(name: "from another device's place, by its time", saved: state(position(1, 5)),
            remote: position(2, 2.5, device: "urn:uuid:phone", name: "Pixel 7", at: later), position: at(1, 22.5),
            note: "Resuming at 1:02 from Pixel 7. Back 10 s after a 2-minute pause: from 0:52.", taken: true,
            now: later.addingTimeInterval(120)),
        Row(name: "--rewind off", options: ListenOptions(screen: false, rewind: .off), saved: state(position(1, 5)),
            position: at(1, 5), note: "Resuming at 0:35.", now: saved.addingTimeInterval(2 * 86_400)),
        Row(name: "--rewind 45s", options: ListenOptions(screen: false, rewind: .seconds(45)), saved: state(position(2, 20)),
            position: at(1, 5), note: "Resuming at 1:20. Back 45 s after a 10-minute pause: from 0:35.",
            now: saved.addingTimeInterval(600)),
        Row(name: "--from is never rewound", options: ListenOptions(from: 75, screen: false), saved: state(position(1, 5)),
            position: at(2, 15), asks: false, now: saved.addingTimeInterval(2 * 86_400)),
    ]

    @Test func whereASessionBegins() {
        let book = TestBook.book()
        for row in Self.rows {
            var asked = false
            let start = ListenMachine.startingPoint(
                options: row.options, saved: row.saved, timeline: TestBook.timeline(book), chapters: book.chapters,
                now: row.now, remote: {
                    asked = true
                    return row.remote
                })
            #expect(start.position == row.position, "\(row.name)")
            #expect(start.note == row.note, "\(row.name)")
            #expect(asked == row.asks, "\(row.name)")
            #expect((start.taken != nil) == row.taken, "\(row.name)")
            #expect((start.offer != nil) == row.offered, "\(row.name)")
        }
    }

    @Test func theSpeedAskedForWinsAndOneOutOfRangeIsOne() {
        #expect(ListenMachine.speed(asked: nil, saved: 1.5) == 1.5)
        #expect(ListenMachine.speed(asked: 2, saved: 1.5) == 2)
        #expect(ListenMachine.speed(asked: nil, saved: 7) == 1)
        #expect(ListenMachine.speed(asked: nil, saved: 0.25) == 1)
    }
}
