import Foundation
import ShelfCLI
import ShelfPlayback
import Testing
@testable import ShelfCore
@testable import ShelfListen

typealias Effect = ListenMachine.Effect

/// A place in the test book.
func at(_ part: Int, _ seconds: Double) -> PlaybackPosition { PlaybackPosition(part: part, seconds: seconds) }

/// The test book: four parts of 30 s (2:00 in all), five chapters, nothing on disk (the machine never looks).
enum TestBook {
    static let summary: EditionSummary = {
        let json = """
            {"id": "urn:uuid:test-book", "shortID": "testbook", "title": "The Test Book", "authors": "A. Writer",
             "narrators": "A. Reader", "medium": "audiobook", "state": "downloaded", "entitlement": "loan",
             "inCatalog": true, "isDraft": false, "isPaid": false, "actions": [], "circulation": ""}
            """
        return try! JSONDecoder().decode(EditionSummary.self, from: Data(json.utf8))
    }()

    /// `progress` gives parts a download progress ("40%"), as the store does for a part under way.
    static func book(progress: [Int: String] = [:], durations: [Double?] = [30, 30, 30, 30]) -> Audiobook {
        let parts = durations.enumerated().map { index, duration in
            Audiobook.Part(
                index: index, file: URL(fileURLWithPath: "/nonexistent/shelf-listen-tests/\(index + 1).mp3"),
                readingOrderItem: "https://demo.test/testbook/\(index + 1).mp3", title: nil, duration: duration,
                status: progress[index] == nil ? .downloaded : .downloading, progress: progress[index])
        }
        let chapters = [
            Audiobook.Chapter(title: "Opening Credits", part: 0, offset: 0),
            Audiobook.Chapter(title: "Chapter 1", part: 0, offset: 5),
            Audiobook.Chapter(title: "Chapter 2", part: 1, offset: 0),
            Audiobook.Chapter(title: "Chapter 3", part: 2, offset: 0),
            Audiobook.Chapter(title: "Chapter 4", part: 3, offset: 0),
        ]
        return Audiobook(
            edition: EditionRef(libraryID: 1, rowID: 1, entryID: summary.id), summary: summary, parts: parts, chapters: chapters)
    }

    static func timeline(_ book: Audiobook = book()) -> Timeline { Timeline(book: book, measureNow: false) }
}

/// A session under test: the machine, a clock that only moves when told, and what the player reports, which
/// follows the clock while playing and the effects the machine asks of the player (pause, play, seek, speed).
struct Harness {
    static let start = Date(timeIntervalSinceReferenceDate: 800_000_000)

    var machine: ListenMachine
    var now = Harness.start
    var position: PlaybackPosition
    var state = Player.State.playing
    var speed: Double
    var bufferingPart: Int?
    /// The parts whose files are on disk when a key comes and when the player reports.
    var onDisk: Set<Int> = [0, 1, 2, 3]
    /// Everything the machine answered, in order, feedback included.
    private(set) var log: [Effect] = []

    init(screen: Bool = true, at position: PlaybackPosition = at(0, 15), speed: Double = 1, limit: Double? = nil,
         sleep: Double? = nil, downloading: Bool = false, book: Audiobook = TestBook.book(), timeline: Timeline? = nil,
         note: String? = nil, rewind: Rewind = .off) {
        let options = ListenOptions(screen: screen, limit: limit, sleep: sleep.map { .seconds($0) }, rewind: rewind)
        machine = ListenMachine(
            book: book, timeline: timeline ?? TestBook.timeline(book), options: options, downloading: downloading,
            now: Harness.start)
        self.position = position
        self.speed = speed
        started = send(.started(at: position, speed: speed, note: note, snapshot))
    }

    /// What the machine answered to `.started`.
    private(set) var started: [Effect] = []

    var snapshot: ListenMachine.Snapshot {
        var snapshot = ListenMachine.Snapshot(now: now, position: position, state: state, bufferingPart: bufferingPart)
        // As the shell looks: the part the player needs, against the files on disk.
        let needed = bufferingPart ?? position.part
        if !onDisk.contains(needed) {
            snapshot.missing = needed
            snapshot.noneOnDisk = onDisk.isEmpty
        }
        return snapshot
    }

    var timeline: Timeline { machine.timeline }

    /// Hands `event` in and answers it as the shell would: the player follows, the store takes every save.
    @discardableResult
    mutating func send(_ event: ListenMachine.Event) -> [Effect] {
        let effects = machine.handle(event)
        log += effects
        for effect in effects {
            switch effect {
            case .pause: if state == .playing || state == .buffering { state = .paused }
            case .play: state = .playing
            case .seek(let target): position = target
            case .setSpeed(let new): speed = new
            case .savePosition(let place, _, _): log += machine.handle(.saved(place.position))
            default: break
            }
        }
        return effects
    }

    mutating func key(_ key: Key) -> [Effect] { send(.key(key, snapshot, onDisk: onDisk)) }

    mutating func key(_ character: Character) -> [Effect] { key(.character(character)) }

    /// Types `text` and enter (for a prompt); the effects of the enter.
    @discardableResult
    mutating func type(_ text: String) -> [Effect] {
        for character in text { _ = key(character) }
        return key(.enter)
    }

    /// `s`, then `answer` and enter: the sleep timer as the patron sets it.
    @discardableResult
    mutating func setSleep(_ answer: String) -> [Effect] {
        _ = key("s")
        return type(answer)
    }

    /// Lets `seconds` of the clock pass (the book moves on while playing), then ticks.
    @discardableResult
    mutating func tick(after seconds: Double = 0.1) -> [Effect] {
        now += seconds
        if state == .playing {
            position = timeline.place(timeline.bookTime(position) + seconds * speed)
        }
        return send(.tick(snapshot))
    }

    /// The effects of a tick without the redraws the screen asks for four times a second.
    @discardableResult
    mutating func quietTick(after seconds: Double = 0.1) -> [Effect] {
        tick(after: seconds).filter { $0 != .redraw }
    }

    // MARK: - Expected effects

    func place(_ position: PlaybackPosition) -> ListenMachine.Place {
        ListenMachine.Place(position: position, readingOrderItem: machine.book.parts[position.part].readingOrderItem, at: now)
    }

    /// The save of `position` now, with its share of the book.
    func save(_ position: PlaybackPosition, finished: Bool = false) -> Effect {
        .savePosition(place(position), percent: min(100, timeline.bookTime(position) / timeline.total * 100), finished: finished)
    }

    /// What every way out does after its own effects: save, stop, give the terminal back, push, say where.
    func ending(_ outcome: ListenOutcome, at position: PlaybackPosition, line: String?, screen: Bool = true,
                finished: Bool = false) -> [Effect] {
        [save(position, finished: finished), .stopPlayer] + (screen ? [.restoreTerminal] : []) + [.pushAndWait(seconds: 3)]
            + (line.map { [.line($0)] } ?? []) + [.end(outcome)]
    }
}

extension Harness {
    /// Playing reached the third part (2) while it downloads (40% there): its file is not on disk yet.
    static func waitingForPartThree(screen: Bool = false, downloading: Bool = true) -> Harness {
        var session = Harness(screen: screen, at: at(1, 29), downloading: downloading, book: TestBook.book(progress: [2: "40%"]))
        session.state = .buffering
        session.bufferingPart = 2
        session.onDisk = [0, 1, 3]
        return session
    }

    /// What the session says when it stops where `waitingForPartThree` plays.
    static let stoppedInPartTwo = "Stopped at 0:59 of 2:00 (49%), in Chapter 2 (2 of 4). Position saved."
}
