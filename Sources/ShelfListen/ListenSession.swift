import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// What `shelf listen` was asked to do.
struct ListenOptions {
    /// Where to start, in seconds of the book; nil resumes.
    var from: Double?
    /// The chapter to start at, from 1.
    var chapter: Int?
    var speed: Double?
    /// The full-screen player; false prints one line per chapter and at the end.
    var screen: Bool
    /// Stop after this much listening (seconds of playing, pauses not counted).
    var limit: Double?
    /// A sleep timer set from the start.
    var sleep: Double?
    /// What ←/→ skip, in seconds.
    var skip: Double = 30
    var log: (@Sendable (String) -> Void)?
}

/// How a listening session ended.
enum ListenOutcome: Equatable {
    case quit, finished, limitReached
    /// An interrupt, terminate or hang-up signal.
    case signal(Int32)
    /// The terminal closed under the player.
    case terminalGone
    /// The audio device went away with no screen to say so and no key to resume.
    case deviceLost
    /// The next part is not on disk and cannot be downloaded now.
    case partUnavailable(ShelfExit)

    var exitCode: Int32 {
        switch self {
        case .quit, .finished, .limitReached: 0
        case .signal(let number): 128 + number
        case .terminalGone: 128 + SIGHUP
        case .deviceLost: ShelfExit.audioDevice.rawValue
        case .partUnavailable(let code): code.rawValue
        }
    }
}

/// The sleep timer: a number of seconds of playing left, or the end of a chapter.
enum SleepTimer: Equatable {
    case seconds(Double)
    case endOfChapter(Int)

    /// The choices `s` steps through, after off.
    static let steps: [Double?] = [15 * 60, 30 * 60, 45 * 60, 60 * 60, nil]
}

/// One `shelf listen`: plays a title's parts from where the patron stopped, takes keys, keeps the position in
/// the store (and on the library's annotation service), and says what happened on the way out.
final class ListenSession {
    private let store: Store
    private let library: Library
    private let home: Home
    private let configuration: HTTPConfiguration
    private let options: ListenOptions
    private let query: String
    private var book: Audiobook
    private var timeline: Timeline
    private let device: String
    private var player: Player!
    private let signals = SignalWatch()
    private var terminal: Terminal?
    /// Pulls and pushes go through one queue so the annotation client is never used from two threads.
    private let syncQueue = DispatchQueue(label: "shelf.listen.positions")
    private let positions: Confined<PositionSync>?
    private var download: BackgroundDownload?
    private let warnings = Locked<[String]>([])
    /// Part lengths measured on a thread of their own, waiting for the main loop to take them in.
    private let measured = Locked<[Int: Double]?>(nil)
    private let lock: FileLock

    // The session's state, all on the main thread.
    private var speed = 1.0
    private var lastChapter = -1
    private var lastSave = Date.distantPast
    private var savedPosition: PlaybackPosition?
    private var lastPush = Date()
    private var listened = 0.0
    private var sleep: SleepTimer?
    private var sleepStep = -1
    private var message: (text: String, until: Date)?
    private var mode = Mode.player
    private var tocSelection = 0
    private var announcedBuffering: Int?
    private var deviceGone = false
    private var finished = false
    private var lastTick = Date()

    private enum Mode { case player, contents, help }

    init(store: Store, library: Library, home: Home, configuration: HTTPConfiguration, query: String,
         options: ListenOptions) throws {
        self.store = store
        self.library = library
        self.home = home
        self.configuration = configuration
        self.options = options
        self.query = query
        device = try store.deviceID()
        // One player per title: two would save over each other's positions.
        let edition = try store.resolveEdition(query, in: library)
        let lockFile = home.temporary.appendingPathComponent("listen-\(library.id)-\(edition.rowID).lock")
        guard let lock = try FileLock.acquire(lockFile, timeout: 0) else {
            throw ListenError.alreadyPlaying(pid: FileLock.holder(of: lockFile))
        }
        self.lock = lock
        book = try Self.loadBook(edition, store: store, library: library, home: home, configuration: configuration,
                                 download: &download)
        // A place given in book time needs every part's real length first; otherwise they are measured while
        // the book already plays.
        timeline = Timeline(book: book, measureNow: options.from != nil)
        let sync = try? PositionSync(store: store, home: home, library: library, configuration: configuration)
        // Warnings come from the sync queue; the main loop shows them (on the screen, not over it).
        let warnings = self.warnings
        sync?.warn = { warning in warnings.modify { $0.append(warning) } }
        positions = sync.map(Confined.init)
    }

    // MARK: - Opening the book

    /// The book, starting a background download when parts are missing; a title never downloaded waits for its
    /// part list (the manifest) first.
    private static func loadBook(
        _ edition: EditionRef, store: Store, library: Library, home: Home, configuration: HTTPConfiguration,
        download: inout BackgroundDownload?
    ) throws -> Audiobook {
        let summary = try store.edition(edition).summary
        guard summary.medium == "audiobook" else {
            throw ListenError.notAudiobook(title: summary.title)
        }
        if let scheme = summary.protection { throw FulfilmentError.protected(title: summary.title, scheme: scheme) }
        var book = try store.audiobook(edition, home: home)
        if book.parts.isEmpty || !book.isComplete {
            download = BackgroundDownload(home: home, library: library, configuration: configuration, edition: edition)
        }
        let started = Date()
        while book.parts.isEmpty {
            if let failure = download?.failure {
                throw ListenError.notDownloaded(title: summary.title, reason: failure)
            }
            guard Date().timeIntervalSince(started) < 60 else {
                throw ListenError.notDownloaded(title: summary.title, reason: "the library did not send its parts in time")
            }
            usleep(100_000)
            book = try store.audiobook(edition, home: home)
        }
        return book
    }

    // MARK: - Running

    /// Plays until the patron quits, the book ends, the limit is reached or a signal comes; saves on every way out.
    func run(device opening: PendingOutput? = nil) throws -> ListenOutcome {
        let start = try startingPoint()
        let output = try opening?.take() ?? Self.openOutput()
        try startPlayer(on: output, at: start.position)
        if !timeline.isMeasured {
            let parts = book.parts
            let measured = self.measured
            Thread.detachNewThread { measured.value = Timeline.measure(parts) }
        }
        if let sleep = options.sleep { self.sleep = .seconds(sleep) }
        if options.screen {
            let terminal = Terminal()
            terminal.enter()
            self.terminal = terminal
        } else {
            if let note = start.note { Output.line(note) }
            for note in timeline.notes { Output.error("shelf: note: \(note)") }
            Output.line("Playing \(book.summary.title) at \(Clock.format(timeline.bookTime(start.position))) of "
                        + "\(Clock.format(timeline.total)), \(speedText) speed.")
        }
        if let note = start.note { show(note) }
        if let note = timeline.notes.first { show(note) }
        let outcome = loop()
        finish(outcome)
        return outcome
    }

    /// How many chapters the book has (for checking `--chapter`).
    var chapterCount: Int { book.chapters.count }

    private var speedText: String { Self.speedLabel(speed) }

    static func speedLabel(_ speed: Double) -> String {
        var text = String(format: "%.2f", speed)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text += "0" }
        return text + "×"
    }

    static func openOutput() throws -> AudioOutput {
        do {
            return try AudioOutput()
        } catch let error as PlaybackError {
            throw ListenError.playback(error)
        }
    }

    private func openPlayer(at position: PlaybackPosition) throws {
        try startPlayer(on: try Self.openOutput(), at: position)
    }

    private func startPlayer(on output: AudioOutput, at position: PlaybackPosition) throws {
        let files = book.parts.map(\.file.path)
        let player = Player(parts: files, output: output)
        player.partReady = { index in FileManager.default.fileExists(atPath: files[index]) }
        try player.setSpeed(speed)
        try player.play(from: position)
        self.player = player
        deviceGone = false
    }

    /// Where to begin: `--from` or `--chapter`, else the newer of this computer's position and another device's.
    private func startingPoint() throws -> (position: PlaybackPosition, note: String?) {
        let state = try store.listeningState(of: book.edition)
        speed = options.speed ?? state.speed
        if !TempoFilter.speeds.contains(speed) { speed = 1.0 }
        // A speed asked for on the command line becomes the book's speed, as `]` and `[` do.
        if let asked = options.speed, asked != state.speed { try store.saveSpeed(asked, of: book.edition) }
        if let from = options.from { return (timeline.place(from), nil) }
        if let chapter = options.chapter {
            let entry = book.chapters[chapter - 1]
            return (PlaybackPosition(part: entry.part, seconds: entry.offset), nil)
        }
        var position = state.position.flatMap(timeline.position(of:))
        var note = position.map { "Resuming at \(Clock.format(timeline.bookTime($0)))." }
        if let remote = pullRemote(timeout: 1.5), let there = timeline.position(of: remote),
            remote.at > (state.position?.at ?? .distantPast),
            position.map({ abs(timeline.bookTime($0) - timeline.bookTime(there)) > 1 }) ?? true
        {
            position = there
            // Palace's apps send a device URN; a device that sends a name is called by it.
            let name = remote.deviceName ?? (remote.device.hasPrefix("urn:") ? "another device" : remote.device)
            note = "Resuming at \(Clock.format(timeline.bookTime(there))) from \(name)."
        }
        guard let position else { return (PlaybackPosition(part: 0, seconds: 0), nil) }
        if state.consumption == .finished || timeline.bookTime(position) > timeline.total - 1 {
            return (PlaybackPosition(part: 0, seconds: 0), "Starting again from the beginning.")
        }
        return (position, note)
    }

    /// Another device's position from the annotation service, if it answers within `timeout`.
    private func pullRemote(timeout: Double) -> ListeningPosition? {
        guard let positions else { return nil }
        let result = Locked<ListeningPosition?>(nil)
        let done = DispatchSemaphore(value: 0)
        let rowID = book.edition
        let log = options.log
        syncQueue.async {
            // Queued positions go first, so the server's newest is ours when it should be.
            positions.value.pushPending()
            do {
                result.value = try positions.value.remotePosition(of: rowID)
            } catch {
                log?("could not read positions from the library: \(error)")
            }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else {
            options.log?("the library's annotation service did not answer in \(timeout) s; using this computer's position")
            return nil
        }
        return result.value
    }

    private func loop() -> ListenOutcome {
        var lastDraw = Date.distantPast
        lastTick = Date()
        while true {
            let key = terminal?.readKey(timeout: 0.1)
            if terminal == nil { usleep(100_000) }
            if let number = signals.ending { return .signal(number) }
            if terminal?.isGone == true { return .terminalGone }
            if let key, let outcome = handle(key) { return outcome }
            if let outcome = tick() { return outcome }
            if let terminal {
                let now = Date()
                if key != nil || signals.takeResize() || now.timeIntervalSince(lastDraw) >= 0.25 {
                    terminal.draw(screen())
                    lastDraw = now
                }
            }
        }
    }

    // MARK: - Every tick

    /// Keeps time, the sleep timer, the chapter line and the saved position up to date.
    private func tick() -> ListenOutcome? {
        let now = Date()
        let elapsed = now.timeIntervalSince(lastTick)
        lastTick = now
        for problem in player.takeProblems() { say(problem, error: true) }
        for warning in takeWarnings() { say("warning: \(warning)", error: true) }
        if let lengths = measured.modify({ value in
            defer { value = nil }
            return value
        }) {
            let known = timeline.notes.count
            timeline.apply(lengths, book: book)
            for note in timeline.notes.dropFirst(known) { say("note: \(note)", error: true) }
        }
        if player.deviceLost && !deviceGone {
            deviceGone = true
            player.pause()
            save(force: true)
            let place = Clock.format(timeline.bookTime(player.position))
            guard terminal != nil else {
                Output.error("shelf: the audio device went away at \(place); the position is saved. Run shelf listen again to go on.")
                return .deviceLost
            }
            show("The audio device went away: paused at \(place). Press space to play again.", seconds: 3600)
        }
        let state = player.state
        let position = player.position
        if state == .playing {
            listened += elapsed
            if let limit = options.limit, listened >= limit {
                player.pause()
                return .limitReached
            }
            runSleepTimer(elapsed: elapsed, at: position)
            // Every 10 s of the clock or of the book, whichever comes first (at 3× the book runs ahead).
            let moved = savedPosition.map { abs(timeline.bookTime(position) - timeline.bookTime($0)) } ?? .infinity
            if now.timeIntervalSince(lastSave) >= 10 || moved >= 10 { save() }
            if now.timeIntervalSince(lastPush) >= 120 { push() }
        }
        if state == .buffering, let part = player.bufferingPart {
            if announcedBuffering != part {
                announcedBuffering = part
                let progress = book.parts[part].progress.map { " (\($0))" } ?? ""
                say("Buffering: part \(part + 1) is still downloading\(progress).")
            }
            // Nothing is fetching the part: the download failed, or its file went missing after it finished.
            if !(download?.isRunning ?? false) {
                let failure = download?.failure
                let reason = failure
                    ?? "its file is missing; run `shelf archive \(book.summary.shortID)`, then `shelf download \(book.summary.shortID)`"
                let text = "part \(part + 1) is not on this computer and cannot be downloaded now (\(reason)); the position is saved"
                player.pause()
                save(force: true)
                guard terminal != nil else {
                    Output.error("shelf: \(text)")
                    return .partUnavailable(failure == nil ? .playbackFailed : .offline)
                }
                show(text, seconds: 3600)
            }
        }
        refreshDownloads()
        let chapter = timeline.chapter(at: position)
        if chapter != lastChapter {
            if lastChapter >= 0 {
                save(force: true)
                if terminal == nil {
                    Output.line("Chapter \(chapter + 1) of \(book.chapters.count): \(book.chapters[chapter].title) "
                                + "at \(Clock.format(timeline.bookTime(position))).")
                }
            }
            lastChapter = chapter
        }
        if state == .finished && !finished {
            finished = true
            save(force: true, finished: true)
            push()
            guard terminal != nil else { return .finished }
            show("The end. Press space to hear it again, q to quit.", seconds: 3600)
        }
        return nil
    }

    /// While parts download, the player's book is re-read each second for progress and for the lengths of
    /// parts that have just arrived.
    private func refreshDownloads() {
        guard let download, Date().timeIntervalSince(download.lastRefresh) >= 1 else { return }
        download.lastRefresh = Date()
        guard let fresh = try? store.audiobook(book.edition, home: home),
            fresh.parts.count == book.parts.count
        else { return }
        book = fresh
        timeline.refresh(book: fresh)
        if !download.isRunning && fresh.isComplete { self.download = nil }
    }

    private func runSleepTimer(elapsed: Double, at position: PlaybackPosition) {
        guard let sleep else { return }
        let remaining: Double
        switch sleep {
        case .seconds(let left):
            remaining = left - elapsed
            self.sleep = .seconds(remaining)
        case .endOfChapter(let chapter):
            let current = timeline.chapter(at: position)
            remaining = current != chapter ? 0 : (timeline.chapterEnd(chapter) - timeline.bookTime(position)) / speed
        }
        // The last few seconds fade out, so sleep does not come with a jolt.
        player.volume = min(1, max(0, remaining / 5))
        guard remaining <= 0 else { return }
        player.pause()
        let here = player.position
        try? player.seek(to: here)
        player.volume = 1
        self.sleep = nil
        sleepStep = -1
        save(force: true)
        push()
        say("Sleep timer: paused at \(Clock.format(timeline.bookTime(here))); the position is saved.")
    }

    // MARK: - Keys

    private func handle(_ key: Key) -> ListenOutcome? {
        switch mode {
        case .help:
            mode = .player
            return nil
        case .contents:
            handleContents(key)
            return nil
        case .player:
            break
        }
        switch key {
        case .interrupt, .character("q"), .character("Q"): return .quit
        case .character(" "): togglePause()
        case .left: skip(by: -options.skip)
        case .right: skip(by: options.skip)
        case .character(","): skip(by: -5)
        case .character("."): skip(by: 5)
        case .character("n"): jump(toChapter: timeline.chapter(at: player.position) + 1)
        case .character("p"):
            let here = player.position
            let chapter = timeline.chapter(at: here)
            // As on a CD player: back to the start of this chapter, or to the one before when just started.
            let into = timeline.bookTime(here) - timeline.chapterStart(chapter)
            jump(toChapter: into > 3 ? chapter : chapter - 1)
        case .character("["): changeSpeed(by: -0.25)
        case .character("]"): changeSpeed(by: 0.25)
        case .character("t"):
            mode = .contents
            tocSelection = max(0, timeline.chapter(at: player.position))
        case .character("s"): stepSleepTimer()
        case .character("b"): addBookmark()
        case .character("?"), .character("h"): mode = .help
        default: break
        }
        return nil
    }

    private func handleContents(_ key: Key) {
        switch key {
        case .up, .character("k"): tocSelection = max(0, tocSelection - 1)
        case .down, .character("j"): tocSelection = min(book.chapters.count - 1, tocSelection + 1)
        case .enter:
            let chapter = book.chapters[tocSelection]
            guard FileManager.default.fileExists(atPath: book.parts[chapter.part].file.path) else {
                let progress = book.parts[chapter.part].progress.map { ": \($0) downloaded" } ?? ""
                show("Chapter \(tocSelection + 1) is not downloaded yet (part \(chapter.part + 1)\(progress)).")
                return
            }
            mode = .player
            jump(toChapter: tocSelection)
        case .escape, .character("t"), .character("q"): mode = .player
        default: break
        }
    }

    private func togglePause() {
        if deviceGone {
            let here = player.position
            player.stop()
            do {
                try openPlayer(at: here)
                message = nil
            } catch {
                show("\(error)", seconds: 3600)
            }
            return
        }
        switch player.state {
        case .finished:
            finished = false
            message = nil
            try? player.seek(to: PlaybackPosition(part: 0, seconds: 0))
            try? player.play()
        case .paused:
            try? player.play()
        default:
            player.pause()
            save(force: true)
            push()
        }
    }

    private func skip(by seconds: Double) {
        let target = timeline.bookTime(player.position) + seconds
        seek(to: timeline.place(min(max(0, target), max(0, timeline.total - 0.25))))
    }

    private func jump(toChapter index: Int) {
        guard book.chapters.indices.contains(index) else {
            show(index < 0 ? "This is the first chapter." : "This is the last chapter.")
            return
        }
        let chapter = book.chapters[index]
        seek(to: PlaybackPosition(part: chapter.part, seconds: chapter.offset))
    }

    private func seek(to position: PlaybackPosition) {
        do {
            try player.seek(to: position)
            if finished {
                finished = false
                message = nil
            }
            save(force: true)
        } catch {
            show("\(error)")
        }
    }

    private func changeSpeed(by step: Double) {
        let wanted = min(TempoFilter.speeds.upperBound, max(TempoFilter.speeds.lowerBound, speed + step))
        guard wanted != speed else { return }
        do {
            try player.setSpeed(wanted)
            speed = wanted
            try store.saveSpeed(wanted, of: book.edition)
            show("Speed \(speedText).")
        } catch {
            show("\(error)")
        }
    }

    private func stepSleepTimer() {
        sleepStep += 1
        if sleepStep >= SleepTimer.steps.count {
            sleepStep = -1
            sleep = nil
            player.volume = 1
            show("Sleep timer off.")
            return
        }
        if let seconds = SleepTimer.steps[sleepStep] {
            sleep = .seconds(seconds)
            show("Sleep timer: \(Int(seconds / 60)) minutes.")
        } else {
            sleep = .endOfChapter(timeline.chapter(at: player.position))
            show("Sleep timer: end of this chapter.")
        }
    }

    private func addBookmark() {
        let here = player.position
        do {
            try store.addBookmark(listeningPosition(here), of: book.edition)
            push()
            show("Bookmark added at \(Clock.format(timeline.bookTime(here))).")
        } catch {
            show("\(error)")
        }
    }

    // MARK: - Saving

    private func listeningPosition(_ position: PlaybackPosition) -> ListeningPosition {
        ListeningPosition(
            part: position.part, seconds: position.seconds, readingOrderItem: book.parts[position.part].readingOrderItem,
            device: device, deviceName: nil, at: Date())
    }

    /// Writes the heard position (unless it has not moved); `force` writes even then.
    private func save(force: Bool = false, finished: Bool = false) {
        let here = player.position
        lastSave = Date()
        guard force || finished || savedPosition != here else { return }
        do {
            let percent = timeline.total > 0 ? min(100, timeline.bookTime(here) / timeline.total * 100) : nil
            try store.savePosition(listeningPosition(here), of: book.edition, percent: percent, finished: finished)
            savedPosition = here
        } catch {
            say("cannot save the position: \(error)", error: true)
        }
    }

    /// Sends queued positions and bookmarks to the library in the background.
    private func push() {
        lastPush = Date()
        guard let positions else { return }
        syncQueue.async { positions.value.pushPending() }
    }

    private func finish(_ outcome: ListenOutcome) {
        if player.state == .playing || player.state == .buffering { player.pause() }
        save(force: true, finished: outcome == .finished)
        let here = player.position
        player.stop()
        terminal?.restore()
        if let positions {
            let done = DispatchSemaphore(value: 0)
            syncQueue.async {
                positions.value.pushPending()
                done.signal()
            }
            // A slow or absent network must not hold the patron up: what is not sent stays queued.
            _ = done.wait(timeout: .now() + 3)
        }
        for warning in takeWarnings() { Output.error("shelf: warning: \(warning)") }
        guard outcome != .terminalGone else { return }
        let time = timeline.bookTime(here)
        let chapter = timeline.chapter(at: here)
        switch outcome {
        case .finished: Output.line("Finished \(book.summary.title).")
        default:
            let percent = timeline.total > 0 ? Int(time / timeline.total * 100) : 0
            let listenedText = outcome == .limitReached ? "Listened for \(Clock.format(listened)); " : ""
            Output.line(listenedText + "Stopped at \(Clock.format(time)) of \(Clock.format(timeline.total)) (\(percent)%), "
                        + "chapter \(chapter + 1) of \(book.chapters.count): \(book.chapters[chapter].title). Position saved.")
        }
    }

    // MARK: - Messages and the screen

    private func takeWarnings() -> [String] {
        warnings.modify { list in
            defer { list.removeAll() }
            return list
        }
    }

    /// A line for the patron: on the screen for a few seconds, or printed without one.
    private func say(_ text: String, error: Bool = false) {
        if terminal != nil {
            show(text)
        } else if error {
            Output.error("shelf: \(text)")
        } else {
            Output.line(text)
        }
    }

    private func show(_ text: String, seconds: Double = 4) {
        message = (text, Date().addingTimeInterval(seconds))
    }

    private func screen() -> [String] {
        switch mode {
        case .help: return ListenScreen.help(skip: options.skip)
        case .contents:
            if let message, message.until < Date() { self.message = nil }
            return ListenScreen.contents(book: book, timeline: timeline, selection: tocSelection,
                                         current: timeline.chapter(at: player.position), message: message?.text,
                                         rows: terminal?.size.rows ?? 24)
        case .player:
            if let message, message.until < Date() { self.message = nil }
            return ListenScreen.player(
                book: book, timeline: timeline, position: player.position, state: player.state, speed: speed,
                sleep: sleep, downloading: download != nil, message: message?.text,
                width: terminal?.size.columns ?? 80)
        }
    }
}

/// The audio device, opened on a thread of its own from the start: connecting to a sound server takes a while,
/// and the store, the book and the library's positions can be read meanwhile.
final class PendingOutput: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<AudioOutput, any Error>?

    init() {
        Thread.detachNewThread { [self] in
            result = Result { try ListenSession.openOutput() }
            done.signal()
        }
    }

    /// The opened device, or the error opening it gave.
    func take() throws -> AudioOutput {
        done.wait()
        done.signal()
        return try result!.get()
    }
}

/// Why `shelf listen` cannot play a title.
enum ListenError: ShelfFailure {
    case notAudiobook(title: String)
    case notDownloaded(title: String, reason: String)
    case playback(PlaybackError)
    case alreadyPlaying(pid: Int32?)

    var exitCode: ShelfExit {
        switch self {
        case .alreadyPlaying: .busy
        case .notAudiobook: .notAllowed
        case .notDownloaded: .offline
        case .playback(.noAudioDevice): .audioDevice
        case .playback: .playbackFailed
        }
    }

    var description: String {
        switch self {
        case .notAudiobook(let title): "\(title) is not an audiobook; shelf only plays audiobooks"
        case .notDownloaded(let title, let reason):
            "\(title) is not downloaded and cannot be fetched now (\(reason)); connect and run `shelf download`"
        case .playback(let error): error.description
        case .alreadyPlaying(let pid):
            "this title is already playing in another shelf listen" + (pid.map { " (pid \($0))" } ?? "") + "; quit that one first"
        }
    }
}

/// A value several threads read and write.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Reads and changes the value in one step.
    func modify<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&stored) } }
}

/// A value only ever used from one serial queue, which is what makes handing it to that queue safe.
final class Confined<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The title's missing parts, downloaded on a thread of their own while it plays.
final class BackgroundDownload: @unchecked Sendable {
    private let state = Locked<(running: Bool, failure: String?)>((true, nil))
    /// When the session last re-read the parts (main thread only).
    var lastRefresh = Date.distantPast

    init(home: Home, library: Library, configuration: HTTPConfiguration, edition: EditionRef) {
        Thread.detachNewThread { [state] in
            var failure: String?
            do {
                let store = try Store(home: home)
                let service = try FulfilmentService(store: store, home: home, library: library, configuration: configuration)
                let report = try service.download(edition)
                if report.state != .downloaded { failure = report.failures.first ?? report.message }
            } catch let error as ShelfFailure {
                failure = error.description
            } catch {
                failure = "\(error)"
            }
            state.value = (false, failure)
        }
    }

    var isRunning: Bool { state.value.running }
    /// Why the download stopped short, once it has.
    var failure: String? { state.value.failure }
}
