import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// One `shelf listen`: the shell around `ListenMachine`. It owns the player, the terminal, the store, the
/// annotation client and the threads; it feeds the machine what happens (keys, ticks with what the player heard,
/// parts that arrive, signals) and carries out what the machine answers.
final class ListenSession {
    private let records: ListenRecords
    private let configuration: HTTPConfiguration
    let options: ListenOptions
    /// Where the time in every event comes from.
    private let clock: () -> Date
    private(set) var machine: ListenMachine
    private(set) var player: Player!
    private var terminal: Terminal?
    private let signals = SignalWatch()
    private let positions: PositionChannel?
    /// The title's missing parts, downloading; nil once its end has been told to the machine.
    private var download: Background<String?>?
    /// Which parts the download fetches first, and the parts it gave up on.
    private let shared = ListenDownload()
    /// Part lengths measured while the book already plays; nil once taken in.
    private var measuring: Background<[Int: Double]>?
    /// Other devices' positions being pulled while playing; nil when no pull is under way.
    private var pulling: Background<ListeningPosition?>?
    /// Whether the screen is to be drawn at the end of this turn of the loop.
    private var redrawWanted = false
    /// The player on the session bus (MPRIS); nil without one.
    var remote: MprisService?
    /// Held while the session lives: two players of one title would save over each other's positions. None in a
    /// read-only home, where nothing is saved.
    private let lock: FileLock?
    /// Whether nothing of this session can be saved (a read-only home): said once, as it starts.
    private let savesNothing: Bool
    /// The seconds of the clock heard since the last save, per UTC minute: the listening log's and the library's
    /// playtime reports.
    private var heard = HeardTime()
    /// Reports the minutes heard to the library; nil in a read-only home.
    private let playtime: PlaytimeChannel?
    /// Where a sample was fetched to, removed when the session ends.
    private var sampleFolder: URL?
    /// The cover in character cells, drawn beside the player in a wide window; empty without one.
    private var cover: [String] = []

    deinit {
        if let sampleFolder { try? FileManager.default.removeItem(at: sampleFolder) }
    }

    init(store: Store, library: Library, home: Home, configuration: HTTPConfiguration, edition: EditionRef,
         options: ListenOptions, clock: @escaping () -> Date = Date.init) throws {
        self.configuration = configuration
        self.options = options
        self.clock = clock
        records = try ListenRecords(store: store, library: library, home: home, edition: edition)
        // A sample keeps nothing of the session: not the place, the speed, a bookmark; only that it was heard.
        savesNothing = store.isReadOnly || options.sample
        if savesNothing {
            lock = nil
        } else {
            let lockFile = PlayingLock.file(home: home, library: library.id, edition: records.edition.rowID)
            guard let lock = try FileLock.acquire(lockFile, timeout: 0) else {
                throw ListenError.alreadyPlaying(pid: FileLock.holder(of: lockFile))
            }
            self.lock = lock
        }
        let book: Audiobook
        if options.sample {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-sample-\(UUID().uuidString)")
            sampleFolder = directory
            do {
                book = try records.sampleBook(configuration: configuration, into: directory)
            } catch {
                try? FileManager.default.removeItem(at: directory)
                throw error
            }
        } else {
            book = try Self.loadBook(
                records, configuration: configuration, clock: clock, options: options, shared: shared, download: &download)
            if !savesNothing { records.keepEmbeddedCover(of: book) }
        }
        // A place given in book time needs the real lengths of the parts up to it first; the others are measured
        // while the book already plays.
        let timeline = Timeline(book: book, measuringThrough: options.from)
        machine = ListenMachine(book: book, timeline: timeline, options: options, downloading: download != nil, now: clock())
        // The library's positions would be stored here as they are pulled, and ours pushed from what was saved.
        positions = savesNothing ? nil : records.positionSync(configuration: configuration).map(PositionChannel.init)
        playtime = savesNothing ? nil : records.playtimeReporter(configuration: configuration).map(PlaytimeChannel.init)
    }

    /// How many chapters the book has (for checking `--chapter`).
    /// (Counted as a person counts them: the opening credits are not a chapter; see `ChapterNumbers`.)
    var chapterCount: Int { ChapterNumbers(book: machine.book).count }
    /// The book's title and length in seconds (for checking `--from`).
    var title: String { machine.book.summary.title }
    var length: Double { machine.timeline.total }

    /// The book, starting a background download when parts are missing; a title never downloaded waits for its
    /// part list (the manifest) first.
    private static func loadBook(
        _ records: ListenRecords, configuration: HTTPConfiguration, clock: () -> Date, options: ListenOptions,
        shared: ListenDownload, download: inout Background<String?>?
    ) throws -> Audiobook {
        var book = try records.audiobook()
        let summary = book.summary
        guard summary.medium == "audiobook" else {
            throw ListenError.notAudiobook(title: summary.title)
        }
        if let scheme = summary.protection { throw FulfilmentError.protected(title: summary.title, scheme: scheme) }
        if book.parts.isEmpty || !book.isComplete {
            // The part the session will start in comes first, before the download picks its first parts; for a
            // title never downloaded, as soon as the manifest has told the parts.
            shared.priority.prefer(firstParts(book, records: records, options: options))
            if book.parts.isEmpty {
                shared.preferOnceRecorded {
                    (try? records.audiobook()).map { firstParts($0, records: records, options: options) } ?? []
                }
            }
            download = records.download(configuration: configuration, shared: shared)
        }
        let started = clock()
        while book.parts.isEmpty {
            if case .success(let failure?)? = download?.result {
                throw ListenError.notDownloaded(title: summary.title, id: summary.shortID, reason: failure)
            }
            guard clock().timeIntervalSince(started) < 60 else {
                throw ListenError.notDownloaded(title: summary.title, id: summary.shortID, reason: "the library did not send its parts in time")
            }
            usleep(100_000)
            book = try records.audiobook()
        }
        // A place in book time or a chapter needs the lengths and chapters, which a single audio file (or any part
        // no manifest gave a length) tells only once it is in: wait for those while the download runs.
        if options.from != nil || options.chapter != nil {
            let unmeasurable = { (book: Audiobook) in
                book.parts.contains { ($0.duration ?? 0) <= 0 && !FileManager.default.fileExists(atPath: $0.file.path) }
            }
            while unmeasurable(book), let running = download {
                if let ended = running.result {
                    // As the download left it: a failure that kept the file away is named.
                    book = try records.audiobook()
                    if unmeasurable(book), case .success(let failure?) = ended {
                        throw ListenError.notDownloaded(title: summary.title, id: summary.shortID, reason: failure)
                    }
                    break
                }
                usleep(100_000)
                book = try records.audiobook()
            }
        }
        return book
    }

    static func openOutput() throws -> AudioOutput {
        do {
            return try AudioOutput()
        } catch let error as PlaybackError {
            throw ListenError.playback(error)
        }
    }

    /// The session's first output: SDL's audio started (by `audio`, on a thread of its own since the program
    /// began), the device itself opened by the player with the first samples, so no silence comes ahead of them.
    static func deferredOutput(after audio: Background<Void>?) throws -> AudioOutput {
        do {
            try audio?.value() ?? AudioOutput.prepare()
            return AudioOutput.deferred()
        } catch let error as PlaybackError {
            throw ListenError.playback(error)
        }
    }

    /// Waits for the device the player opens with its first samples: one that cannot be opened ends the session
    /// before it starts (as when SDL has no device at all). A player still waiting for its part to download, or
    /// slower than 5 s, is left to it: a late failure is then a lost device.
    private func awaitDevice(_ output: AudioOutput) throws {
        let started = clock()
        while !output.isOpen {
            if let failure = output.openFailure {
                player.stop()
                throw ListenError.playback(failure)
            }
            let state = player.state
            if state == .buffering || state == .finished || state == .stopped || clock().timeIntervalSince(started) > 5 { return }
            usleep(2_000)
        }
    }

    // MARK: - Running

    /// Plays until the patron quits, the book ends, the limit is reached or a signal comes; saves on every way out.
    /// `audio` starts SDL's audio, already on a thread of its own.
    func run(audio: Background<Void>? = nil) throws -> ListenOutcome {
        let saved = try records.listeningState()
        let speed = ListenMachine.speed(asked: options.speed, saved: saved.speed)
        // A speed asked for on the command line becomes the book's speed, as `]` and `[` do.
        if let asked = options.speed, asked != saved.speed, !savesNothing { try records.saveSpeed(asked) }
        let start = ListenMachine.startingPoint(
            options: options, saved: saved, timeline: machine.timeline, chapters: machine.book.chapters, now: clock(),
            remote: { pullRemote(timeout: 1.5) })
        let output = try Self.deferredOutput(after: audio)
        try startPlayer(on: output, at: start.position, speed: speed)
        try awaitDevice(output)
        if !machine.timeline.isMeasured {
            let parts = machine.book.parts
            measuring = Background { Timeline.measure(parts) }
        }
        if options.screen {
            if options.cover, CoverArt.mode() != .off, let parts = machine.book.parts.first?.file.deletingLastPathComponent(),
                let file = Cover.file(in: parts)
            {
                cover = CoverArt.lines(file, columns: 24, rows: 12) ?? []
            }
            let terminal = Terminal()
            terminal.enter()
            self.terminal = terminal
        }
        var note = start.note
        if options.sample {
            note = "The library's sample of \(machine.book.summary.title): nothing is kept but that you heard it."
            try? records.store.noteSampleHeard(records.edition, at: clock())
        } else if savesNothing {
            let readOnly = "The home is read-only: where you stop, the speed and bookmarks are not saved."
            note = note.map { "\($0) \(readOnly)" } ?? readOnly
        }
        if !savesNothing { try records.startSession(at: machine.place(start.position), speed: speed) }
        // The time heard and the machine's count of it (what `--for` stops at) start from the same instant.
        let started = clock()
        heard.advance(to: started, playing: false)
        if let outcome = send(.started(at: start.position, speed: speed, note: note, snapshot(at: started))) { return outcome }
        // Another device's place not answered yet is offered again (also when the library did not answer now).
        if let taken = start.taken, !savesNothing { try records.settleOffer(upTo: taken) }
        let offer = start.taken == nil ? start.offer ?? (try? records.openOffer()) ?? nil : nil
        if let offer, let outcome = send(.remotePosition(offer)) { return outcome }
        startRemote()
        return loop()
    }

    private func startPlayer(on output: AudioOutput, at position: PlaybackPosition, speed: Double) throws {
        let files = machine.book.parts.map(\.file.path)
        let player = Player(parts: files, output: output)
        player.partReady = { index in FileManager.default.fileExists(atPath: files[index]) }
        try player.setSpeed(speed)
        player.volume = machine.heardVolume
        player.setSkipSilence(machine.skipsSilence)
        player.normalizesLoudness = machine.normalizes
        try player.play(from: position)
        self.player = player
    }

    /// Another device's position from the annotation service, if it answers within `timeout`.
    private func pullRemote(timeout: Double) -> ListeningPosition? {
        guard let positions else { return nil }
        guard let result = positions.pull(records.edition, log: options.log).wait(timeout: timeout) else {
            options.log?("the library's annotation service did not answer in \(timeout) s; using this computer's position")
            return nil
        }
        return try? result.get()
    }

    private func loop() -> ListenOutcome {
        while true {
            let key = terminal?.readKey(timeout: 0.1)
            if terminal == nil { usleep(100_000) }
            if let number = signals.ending, let outcome = send(.signal(number, snapshot())) { return outcome }
            if terminal?.isGone == true, let outcome = send(.terminalGone(snapshot())) { return outcome }
            if let key, let outcome = send(.key(key, snapshot(), onDisk: partsOnDisk())) { return outcome }
            if let outcome = tick() { return outcome }
            if let outcome = serveRemote() { return outcome }
            if let terminal {
                if signals.takeResize() { _ = send(.resized) }
                if redrawWanted {
                    let size = terminal.size
                    terminal.draw(ListenScreen.lines(of: machine, skip: options.skip, rows: size.rows, columns: size.columns,
                                                     cover: cover))
                    redrawWanted = false
                }
            }
        }
    }

    /// Tells the machine what happened since the last turn, then that time passed.
    private func tick() -> ListenOutcome? {
        // One reading of the clock for the time heard and the machine's tick: read twice, the machine counted up to
        // a later instant than the time heard, and `--for 3s` stopped with 2.97 s heard on a loaded machine.
        let now = clock()
        heard.advance(to: now, playing: player.state == .playing)
        let problems = player.takeProblems()
        if !problems.isEmpty, let outcome = send(.problems(problems)) { return outcome }
        if let warnings = positions?.takeWarnings(), !warnings.isEmpty, let outcome = send(.warnings(warnings)) { return outcome }
        if let measured = measuring?.result {
            measuring = nil
            if case .success(let lengths) = measured, let outcome = send(.measured(lengths)) { return outcome }
        }
        for (part, reason) in shared.takeFailures().sorted(by: { $0.key < $1.key }) {
            if let outcome = send(.partFailed(part, reason: reason)) { return outcome }
        }
        if let ended = download?.result {
            download = nil
            if case .success(let failure) = ended, let outcome = send(.downloadEnded(failure: failure)) { return outcome }
        }
        if let pulled = pulling?.result {
            pulling = nil
            if case .success(let position?) = pulled, let outcome = send(.remotePosition(position)) { return outcome }
        }
        if player.deviceLost, let outcome = send(.deviceLost(snapshot(at: now))) { return outcome }
        return send(.tick(snapshot(at: now)))
    }

    /// What the player reports now (`at`: the clock's reading to give it, read now when nil).
    func snapshot(at now: Date? = nil) -> ListenMachine.Snapshot {
        let buffering = player.bufferingPart
        let position = player.position
        var snapshot = ListenMachine.Snapshot(
            now: now ?? clock(), position: position, state: player.state, bufferingPart: buffering,
            unopenable: player.unopenableParts)
        snapshot.silenceSaved = player.savedBySkipping
        // Looked at each time, not every quarter second as the player does: a part that arrived is never missed.
        let parts = machine.book.parts
        let needed = buffering ?? position.part
        if parts.indices.contains(needed), !FileManager.default.fileExists(atPath: parts[needed].file.path) {
            snapshot.missing = needed
            snapshot.noneOnDisk = !parts.contains { FileManager.default.fileExists(atPath: $0.file.path) }
        }
        return snapshot
    }

    /// The parts whose files are on disk now, by index.
    private func partsOnDisk() -> Set<Int> {
        Set(machine.book.parts.filter { FileManager.default.fileExists(atPath: $0.file.path) }.map(\.index))
    }

    // MARK: - Carrying effects out

    /// Hands `event` to the machine and carries out its effects; the outcome once the session is over.
    func send(_ event: ListenMachine.Event) -> ListenOutcome? {
        for effect in machine.handle(event) {
            do {
                if let outcome = try perform(effect) { return outcome }
            } catch {
                // The rest of the batch depended on this one (no save after a seek that did not happen).
                return send(.failed("\(error)"))
            }
        }
        return nil
    }

    private func perform(_ effect: ListenMachine.Effect) throws -> ListenOutcome? {
        switch effect {
        case .savePosition where savesNothing, .saveSpeed where savesNothing, .addBookmark where savesNothing,
             .push where savesNothing, .settleOffer where savesNothing:
            // Said once as the session started.
            return nil
        case .savePosition(let place, let percent, let finished):
            do {
                try records.savePosition(place, percent: percent, finished: finished)
                try records.recordHeard(heard.take(), at: place, speed: machine.speed)
                options.log?("saved the position: part \(place.position.part + 1) at "
                             + String(format: "%.3f", place.position.seconds) + " s" + (finished ? " (finished)" : ""))
                return send(.saved(place.position))
            } catch {
                return send(.saveFailed("\(error)"))
            }
        case .saveSpeed(let speed): try records.saveSpeed(speed)
        case .settleOffer(let at): try records.settleOffer(upTo: at)
        case .addBookmark(let place, let name): try records.addBookmark(place, name: name)
        case .suspend:
            terminal?.suspend()
            redrawWanted = true
        case .push:
            positions?.push()
            playtime?.push()
        case .seek(let position):
            try player.seek(to: position)
            remote?.noteSeek()
        case .play: try player.play()
        case .pause: player.pause()
        case .setSpeed(let speed): try player.setSpeed(speed)
        case .setVolume(let volume): player.volume = volume
        case .setSkipSilence(let on):
            player.setSkipSilence(on)
            if !savesNothing { try records.store.setSetting(ListenOptions.skipSilenceSetting, to: on ? "on" : "off") }
        case .reopenDevice(let position, let speed):
            player.stop()
            do {
                try startPlayer(on: try Self.openOutput(), at: position, speed: speed)
                return send(.deviceReopened)
            } catch {
                return send(.deviceFailed("\(error)"))
            }
        case .refreshBook:
            guard let fresh = try? records.audiobook(),
                fresh.parts.count == machine.book.parts.count
            else { return nil }
            let lengths = Timeline.measure(machine.timeline.unmeasured(in: fresh))
            return send(.partsArrived(fresh, lengths: lengths, complete: fresh.isComplete))
        case .fetchFirst(let parts): shared.priority.prefer(parts)
        case .line(let text):
            // A line tells of a moment in the listening: out at once, also into a pipe or a log.
            Output.line(text)
            fflush(nil)
        case .errorLine(let text): Output.error(text)
        case .redraw: redrawWanted = true
        case .stopPlayer: player.stop()
        case .restoreTerminal: terminal?.restore()
        case .pushAndWait(let seconds):
            // Both at once, within the same time.
            let reported = playtime?.pushInBackground()
            positions?.pushAndWait(timeout: seconds)
            _ = reported?.wait(timeout: 0.5)
            let warnings = (positions?.takeWarnings() ?? []) + (playtime?.takeWarnings() ?? [])
            return warnings.isEmpty ? nil : send(.warnings(warnings))
        case .end(let outcome): return outcome
        case .readBookmarks: return send(.bookmarksRead(try records.bookmarks()))
        case .deleteBookmark(let id): try records.deleteBookmark(id)
        case .pullRemote:
            // One pull at a time, on a thread of its own: the loop never waits for the library.
            if pulling == nil, let positions { pulling = positions.pull(records.edition, log: options.log) }
        }
        return nil
    }
}
