import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// The rules of one `shelf listen`, with no I/O: it takes what happened (a key, a tick of the clock with what the
/// player heard, a part that arrived, a lost device, a signal…) and returns what to do about it (save the position,
/// push, seek, pause, print a line, end…).
///
/// It never reads the clock, the store, the player, the files or the terminal: the time and what the player reports
/// come in the events, and `ListenSession`, the shell around it, carries the effects out.
struct ListenMachine {
    // What the session was asked.
    let screen: Bool
    let limit: Double?
    let skip: Double
    let rewind: Rewind
    /// Playing the title's sample: nothing is saved, and the lines say so.
    let sample: Bool

    private(set) var book: Audiobook
    private(set) var timeline: Timeline
    /// What the player last reported, with what the effects since will have made of it.
    private(set) var player: Snapshot
    private(set) var speed = 1.0
    var mode = Mode.player
    private(set) var tocSelection = 0
    /// The page of the help shown, when it needs more than one (the screen wraps it round).
    private(set) var helpPage = 0
    /// A chapter number being typed in the contents.
    private(set) var tocTyped = ""
    private(set) var sleep: SleepTimer?
    /// Asked with `--sleep` in chapters: set once the chapter playing is known.
    private var sleepRequest: SleepTimer.Request?
    /// The volume the patron chose (0…1, in steps of 0.1) and whether it is muted; the sleep timer's fade scales it.
    var volume = 1.0
    var muted = false
    /// Pauses longer than 0.6 s cut short (`S`), and loudness evened out; the player reports the time saved.
    var skipsSilence = false
    var normalizes = false
    /// When the player last paused (by the patron, the sleep timer, a suspend, a lost device), until it plays on.
    private(set) var pausedAt: Date?
    var fade = 1.0
    /// Stopped from MPRIS: paused, and said to be stopped until played again.
    var remoteStopped = false
    var message: Message?
    /// Nil once the parts are all on disk and the download is over.
    private(set) var download: Download?
    private(set) var lastChapter = -1
    /// The position last saved (or being saved); `confirmed` is the last the store took.
    private(set) var savedPosition: PlaybackPosition?
    private var confirmed: PlaybackPosition?
    /// How often the position is saved while playing, in seconds of the clock or of the book.
    static let saveInterval: Double = 2
    private(set) var lastSave = Date.distantPast
    private(set) var lastPush: Date
    /// Seconds of playing, pauses not counted.
    private(set) var listened = 0.0
    private(set) var lastTick: Date
    private(set) var lastRefresh = Date.distantPast
    private(set) var lastDraw = Date.distantPast
    var announcedBuffering: Int?
    /// Parts the download gave up on while others still download, with why.
    var failedParts: [Int: String] = [:]
    private(set) var deviceGone = false
    private(set) var finished = false
    /// Marked finished with `F`: kept when quitting, until playing on or a seek.
    var markedFinished = false
    /// How the session ended, once it has.
    private(set) var outcome: ListenOutcome?
    /// The bookmarks screen and the positions pulled while playing (`ListenMachine+Bookmarks.swift`).
    var sync = ListenSync()

    /// The time of the latest event.
    var now: Date { player.now }

    init(book: Audiobook, timeline: Timeline, options: ListenOptions, downloading: Bool, now: Date) {
        screen = options.screen
        limit = options.limit
        skip = options.skip
        rewind = options.rewind
        sample = options.sample
        skipsSilence = options.skipSilence
        normalizes = options.normalize
        volume = options.volume
        self.book = book
        self.timeline = timeline
        player = Snapshot(now: now, position: PlaybackPosition(part: 0, seconds: 0), state: .stopped)
        if case .seconds(let seconds)? = options.sleep { sleep = .seconds(seconds) } else { sleepRequest = options.sleep }
        download = downloading ? .running : nil
        lastPush = now
        lastTick = now
    }

    /// Takes one event in; what to do about it, in order.
    mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .saved(let position):
            confirmed = position
            savedPosition = position
            return []
        case .saveFailed(let reason):
            savedPosition = confirmed
            return say("cannot save the position: \(reason)", error: true)
        case .warnings(let warnings) where outcome != nil:
            // The last ones, from the push on the way out: the screen is gone by then.
            return warnings.map { .errorLine("shelf: warning: \($0)") }
        default:
            guard outcome == nil else { return [] }
        }
        switch event {
        case .started(let position, let speed, let note, let snapshot):
            player = snapshot
            lastTick = snapshot.now
            sync.lastPull = snapshot.now
            self.speed = speed
            return started(at: position, note: note)
        case .key(let key, let snapshot, let onDisk):
            player = snapshot
            let effects = handle(key, onDisk: onDisk)
            guard screen && outcome == nil else { return effects }
            lastDraw = now
            return effects + [.redraw]
        case .tick(let snapshot):
            player = snapshot
            return tick()
        case .remote(let command, let snapshot):
            player = snapshot
            let effects = handle(command)
            guard screen && outcome == nil else { return effects }
            lastDraw = now
            return effects + [.redraw]
        case .deviceLost(let snapshot):
            player = snapshot
            return deviceLost()
        case .signal(let number, let snapshot):
            player = snapshot
            return end(.signal(number))
        case .terminalGone(let snapshot):
            player = snapshot
            return end(.terminalGone)
        case .resized:
            guard screen else { return [] }
            lastDraw = now
            return [.redraw]
        case .problems(let problems):
            return problems.flatMap { say($0, error: true) }
        case .warnings(let warnings):
            return warnings.flatMap { say("warning: \($0)", error: true) }
        case .measured(let lengths):
            let known = timeline.notes.count
            timeline.apply(lengths, book: book)
            return timeline.notes.dropFirst(known).flatMap { say("note: \($0)", error: true) }
        case .partsArrived(let fresh, let lengths, let complete):
            book = fresh
            timeline.apply(lengths, book: fresh)
            if download != .running && complete { download = nil }
        case .downloadEnded(let failure):
            if download != nil { download = .ended(failure: failure) }
            // The parts that arrived last, read now rather than at the next second's refresh.
            lastRefresh = now
            return [.refreshBook]
        case .partFailed(let part, let reason):
            failedParts[part] = reason
        case .failed(let reason):
            show(reason)
        case .deviceReopened:
            deviceGone = false
            message = nil
        case .deviceFailed(let reason):
            show(reason, seconds: 3600)
        case .bookmarksRead(let bookmarks):
            return bookmarksRead(bookmarks)
        case .remotePosition(let position):
            return remotePosition(position)
        case .saved, .saveFailed:
            break
        }
        return []
    }

    // MARK: - Starting and ending

    private mutating func started(at start: PlaybackPosition, note: String?) -> [Effect] {
        var effects: [Effect] = []
        if !screen {
            if let note { effects.append(.line(note)) }
            for note in timeline.notes { effects.append(.errorLine("shelf: note: \(note)")) }
            effects.append(.line(playingLine(at: start)))
        }
        if let note { show(note) }
        if let note = timeline.notes.first { show(note) }
        if case .chapters(let count)? = sleepRequest {
            sleep = sleepTimer(.chapters(count), at: start)
            sleepRequest = nil
        }
        if download == .running { effects.append(.fetchFirst([start.part, start.part + 1])) }
        return effects
    }

    /// Ends the session: pauses, saves, stops, gives the terminal back, pushes and says where it stopped.
    mutating func end(_ outcome: ListenOutcome) -> [Effect] {
        var effects: [Effect] = []
        if player.state == .playing || player.state == .buffering { effects += pause() }
        // Quitting after `F` keeps the book finished.
        effects += save(force: true, finished: outcome == .finished || markedFinished)
        self.outcome = outcome
        let here = player.position
        effects.append(.stopPlayer)
        if screen { effects.append(.restoreTerminal) }
        // A slow or absent network must not hold the patron up: what is not sent stays queued.
        effects.append(.pushAndWait(seconds: 3))
        if outcome != .terminalGone {
            effects.append(.line(stoppedLine(outcome, at: here)))
        }
        effects.append(.end(outcome))
        return effects
    }

    // MARK: - Every tick

    /// Keeps time, the sleep timer, the chapter line and the saved position up to date.
    private mutating func tick() -> [Effect] {
        let elapsed = now.timeIntervalSince(lastTick)
        lastTick = now
        if let message, message.until < now { self.message = nil }
        var effects: [Effect] = []
        let state = player.state
        let position = player.position
        if state == .playing {
            listened += elapsed
            if let limit, listened >= limit {
                return pause() + end(.limitReached)
            }
            effects += runSleepTimer(elapsed: elapsed, at: position)
            effects += pullIfDue()
            effects += withdrawPassedOffer()
            // Every 2 s of the clock or of the book, whichever comes first (at 3× the book runs ahead): a kill -9
            // loses at most that. One row in positions.sqlite (WAL), so the write stays cheap.
            let moved = savedPosition.map { abs(timeline.bookTime(position) - timeline.bookTime($0)) } ?? .infinity
            if now.timeIntervalSince(lastSave) >= Self.saveInterval || moved >= Self.saveInterval { effects += save() }
            if now.timeIntervalSince(lastPush) >= 120 { effects += push() }
        }
        effects += waitForParts()
        if outcome != nil { return effects }
        // While parts download, the book is re-read each second for progress and for parts that have arrived.
        if download != nil && now.timeIntervalSince(lastRefresh) >= 1 {
            lastRefresh = now
            effects.append(.refreshBook)
        }
        let chapter = timeline.chapter(at: position)
        if chapter != lastChapter {
            if lastChapter >= 0 {
                effects += save(force: true)
                if !screen {
                    effects.append(.line(chapterLine(chapter, at: position)))
                }
            }
            lastChapter = chapter
        }
        if state == .finished && !finished {
            finished = true
            // The player ran out of parts by skipping ones it could not open: the end was never heard.
            if let last = book.parts.indices.last, player.unopenable.contains(last) {
                let text = unplayableText(part: last)
                guard screen else { return effects + [.errorLine("shelf: \(text)")] + end(.partUnavailable(.playbackFailed)) }
                show(text, seconds: 3600)
                return effects + save(force: true) + [.redraw]
            }
            effects += save(force: true, finished: true) + push()
            guard screen else { return effects + end(.finished) }
            show("The end. Press space to hear it again, q to quit.", seconds: 3600)
        }
        if screen && now.timeIntervalSince(lastDraw) >= 0.25 {
            lastDraw = now
            effects.append(.redraw)
        }
        return effects
    }

    private mutating func runSleepTimer(elapsed: Double, at position: PlaybackPosition) -> [Effect] {
        guard let sleep else { return [] }
        let remaining: Double
        switch sleep {
        case .seconds(let left):
            remaining = left - elapsed
            self.sleep = .seconds(remaining)
        case .endOfChapter(let chapter):
            let current = timeline.chapter(at: position)
            remaining = current > chapter ? 0 : (timeline.chapterEnd(chapter) - timeline.bookTime(position)) / speed
        }
        // The last few seconds fade out, so sleep does not come with a jolt.
        fade = min(1, max(0, remaining / 5))
        var effects: [Effect] = [.setVolume(heardVolume)]
        guard remaining <= 0 else { return effects }
        // With no screen no key can play again: the timer ends the session, as --for does, the fade done.
        guard screen else {
            self.sleep = nil
            return effects + end(.slept)
        }
        let why: String
        if case .endOfChapter(let chapter) = sleep {
            why = "Sleep timer: paused at the end of \(ListenScreen.chapterLabel(chapter, of: book))"
        } else {
            why = "Sleep timer: paused"
        }
        effects += pause()
        let here = player.position
        // Drops what the device still holds, so playing again starts where the timer paused.
        effects += seek(to: here)
        fade = 1
        effects.append(.setVolume(heardVolume))
        self.sleep = nil
        effects += save(force: true) + push()
        // Shown until played again: the listener who wakes sees why it stopped.
        show("\(why) at \(Clock.format(timeline.bookTime(here))); the position is saved. Space plays on.", seconds: 24 * 3600)
        return effects
    }

    private mutating func deviceLost() -> [Effect] {
        guard !deviceGone else { return [] }
        deviceGone = true
        let effects = pause() + save(force: true)
        let place = Clock.format(timeline.bookTime(player.position))
        guard screen else {
            return effects
                + [.errorLine("shelf: the audio device went away at \(place); the position is saved. Run shelf listen again to go on.")]
                + end(.deviceLost)
        }
        show("The audio device went away: paused at \(place). Press space to play again.", seconds: 3600)
        return effects
    }

    // MARK: - Keys

    private mutating func handle(_ key: Key, onDisk: Set<Int>) -> [Effect] {
        if key == .suspend { return suspend() }
        switch mode {
        case .help:
            // ↓ and ↑ turn the pages of a help too long for the window; any other key goes back.
            switch key {
            case .down, .character("j"): helpPage += 1
            case .up, .character("k"): helpPage -= 1
            default: mode = .player
            }
            return []
        case .contents:
            return handleContents(key, onDisk: onDisk)
        case .bookmarks:
            return handleBookmarks(key)
        case .prompt(let prompt):
            return answer(key, to: prompt)
        case .player:
            break
        }
        let here = player.position
        switch key {
        case .interrupt, .character("q"), .character("Q"): return end(.quit)
        case .character(" "): return togglePause()
        case .left: return skip(by: -skip)
        case .right: return skip(by: skip)
        case .up: return skip(by: -Self.bigSkip)
        case .down: return skip(by: Self.bigSkip)
        case .character(","): return skip(by: -5)
        case .character("."): return skip(by: 5)
        case .character("n"): return jump(toChapter: timeline.chapter(at: here) + 1)
        case .character("p"):
            let chapter = timeline.chapter(at: here)
            // As on a CD player: back to the start of this chapter, or to the one before when just started.
            let into = timeline.bookTime(here) - timeline.chapterStart(chapter)
            return jump(toChapter: into > 3 ? chapter : chapter - 1)
        case .character("["): return changeSpeed(by: -0.25)
        case .character("]"): return changeSpeed(by: 0.25)
        case .character("{"): return changeSpeed(by: -0.05)
        case .character("}"): return changeSpeed(by: 0.05)
        case .character("S"): return toggleSkipSilence()
        case .character("t"):
            mode = .contents
            tocTyped = ""
            tocSelection = max(0, timeline.chapter(at: here))
        case .character("s"): return ask(.sleep)
        case .character("+"): return addToSleepTimer()
        case .character("b") where sample, .character("F") where sample, .character("B") where sample:
            show("This is the library's sample: nothing of it is kept (borrow the title to keep your place).")
        case .character("b"): return ask(.bookmark(place(here)))
        case .character("g"): return ask(.goTo)
        case .character("F"): return ask(.finish)
        case .character("9"): return changeVolume(by: -0.1)
        case .character("0"): return changeVolume(by: 0.1)
        case .character("m"): return toggleMute()
        case .character("B"): return openBookmarks()
        case .character("j"): return jumpToOffer()
        case .character("x"): return stayHere()
        case .character("?"), .character("h"):
            mode = .help
            helpPage = 0
        default: break
        }
        return []
    }

    private mutating func handleContents(_ key: Key, onDisk: Set<Int>) -> [Effect] {
        switch key {
        case .character(let digit) where digit.isASCII && digit.isNumber:
            // A chapter number, as a person counts them: the selection follows what is typed.
            let numbers = ChapterNumbers(book: book)
            var typed = tocTyped + String(digit)
            if Int(typed).flatMap(numbers.entry(numbered:)) == nil { typed = String(digit) }
            guard let number = Int(typed), let entry = numbers.entry(numbered: number) else {
                tocTyped = ""
                show("There is no chapter \(typed) (chapters 1 to \(numbers.count)).")
                return []
            }
            tocTyped = typed
            tocSelection = entry
        case .backspace:
            tocTyped = String(tocTyped.dropLast())
        case .up, .character("k"):
            tocTyped = ""
            tocSelection = max(0, tocSelection - 1)
        case .down, .character("j"):
            tocTyped = ""
            tocSelection = min(book.chapters.count - 1, tocSelection + 1)
        case .enter:
            tocTyped = ""
            let chapter = book.chapters[tocSelection]
            guard onDisk.contains(chapter.part) else {
                let progress = book.parts[chapter.part].progress.map { ": \($0) downloaded" } ?? ""
                show("\(chapter.title) is not downloaded yet (part \(chapter.part + 1)\(progress)).")
                return []
            }
            mode = .player
            // Enter plays: from a pause too, as a music player's list does.
            let paused = player.state == .paused
            let effects = jump(toChapter: tocSelection)
            guard paused else { return effects }
            remoteStopped = false
            pausedAt = nil
            player.state = .playing
            return effects + [.play]
        case .escape, .character("t"), .character("q"):
            tocTyped = ""
            mode = .player
        default: break
        }
        return []
    }

    mutating func togglePause() -> [Effect] {
        remoteStopped = false
        if deviceGone {
            let (back, effects) = rewound()
            return effects + [.reopenDevice(at: back ?? player.position, speed: speed)]
        }
        switch player.state {
        case .finished:
            finished = false
            message = nil
            player.state = .playing
            return seek(to: PlaybackPosition(part: 0, seconds: 0)) + [.play]
        case .paused:
            player.state = .playing
            // What was said about the pause ("Paused while suspended", the sleep timer's line, `F`'s) is over; playing
            // on after `F` makes the book in progress again.
            message = nil
            markedFinished = false
            let (back, effects) = rewound()
            return effects + (back.map { seek(to: $0) } ?? []) + [.play] + pullRemote()
        default:
            return pause() + save(force: true) + push()
        }
    }

    mutating func skip(by seconds: Double) -> [Effect] {
        let target = timeline.bookTime(player.position) + seconds
        return seekAndSave(timeline.place(min(max(0, target), max(0, timeline.total - 0.25))))
    }

    mutating func jump(toChapter index: Int) -> [Effect] {
        guard book.chapters.indices.contains(index) else {
            show(index < 0 ? "This is the first chapter." : "This is the last chapter.")
            return []
        }
        let chapter = book.chapters[index]
        return seekAndSave(PlaybackPosition(part: chapter.part, seconds: chapter.offset))
    }

    mutating func seekAndSave(_ position: PlaybackPosition) -> [Effect] {
        // A move of the patron's own after another device's place was offered answers the offer: stay.
        var effects = settleOffer()
        effects += seek(to: position)
        markedFinished = false
        if finished {
            finished = false
            message = nil
        }
        return effects + save(force: true)
    }

    mutating func changeSpeed(by step: Double) -> [Effect] {
        // In whole twentieths, so that steps of 0.05 and 0.25 add up without drifting.
        let stepped = ((speed + step) * 20).rounded() / 20
        let wanted = min(TempoFilter.speeds.upperBound, max(TempoFilter.speeds.lowerBound, stepped))
        guard wanted != speed else { return [] }
        speed = wanted
        show("Speed \(Self.speedLabel(wanted)).")
        return [.setSpeed(wanted), .saveSpeed(wanted)]
    }

    /// The timer a request makes from `position`: N chapters end at the end of the chapter N − 1 after this one
    /// (at most the last).
    func sleepTimer(_ request: SleepTimer.Request, at position: PlaybackPosition) -> SleepTimer {
        switch request {
        case .seconds(let seconds): return .seconds(seconds)
        case .chapters(let count):
            return .endOfChapter(min(book.chapters.count - 1, max(0, timeline.chapter(at: position)) + count - 1))
        }
    }

    /// The answer to `s`: a timer set (and said), or off.
    mutating func setSleepTimer(_ answer: SleepTimer.Answer) -> [Effect] {
        switch answer {
        case .invalid:
            show("Type minutes (20), a length (1h), c for this chapter's end, 3c for three chapters, or off.")
            return []
        case .off:
            sleep = nil
            show("Sleep timer off.")
            fade = 1
            return [.setVolume(heardVolume)]
        case .set(let request):
            let timer = sleepTimer(request, at: player.position)
            sleep = timer
            fade = 1
            switch timer {
            case .seconds(let seconds):
                show("Sleep timer: \(Self.minutesLabel(seconds)) of listening (+ adds 5 minutes).")
            case .endOfChapter(let chapter):
                let count = chapter - max(0, timeline.chapter(at: player.position)) + 1
                show(count <= 1 ? "Sleep timer: end of this chapter." :
                        "Sleep timer: end of \(ListenScreen.chapterLabel(chapter, of: book)), \(count) chapters.")
            }
            return [.setVolume(heardVolume)]
        }
    }

    /// `+`: five more minutes (a chapter timer becomes the time to its end, plus five minutes).
    mutating func addToSleepTimer() -> [Effect] {
        let left: Double
        switch sleep {
        case .seconds(let seconds)?: left = seconds
        case .endOfChapter(let chapter)?:
            left = max(0, timeline.chapterEnd(chapter) - timeline.bookTime(player.position)) / speed
        case nil: left = 0
        }
        sleep = .seconds(left + 5 * 60)
        fade = 1
        show("Sleep timer: \(Clock.format(left + 5 * 60)) left.")
        return [.setVolume(heardVolume)]
    }

    /// "20 minutes", "1 minute", "1:30:00".
    static func minutesLabel(_ seconds: Double) -> String {
        let minutes = seconds / 60
        if minutes == minutes.rounded() && minutes < 600 {
            return minutes == 1 ? "1 minute" : "\(Int(minutes)) minutes"
        }
        return Clock.format(seconds)
    }

    // MARK: - Effects on the player, as the machine sees them

    mutating func pause() -> [Effect] {
        if player.state == .playing || player.state == .buffering {
            player.state = .paused
            if pausedAt == nil { pausedAt = now }
        }
        return [.pause]
    }

    /// Where to play on from after the pause that is ending (`--rewind`), and the line that says so; nil when the
    /// pause was too short or rewinding is off. Never before the start of the book.
    mutating func rewound() -> (PlaybackPosition?, [Effect]) {
        guard let pausedAt else { return (nil, []) }
        self.pausedAt = nil
        let paused = now.timeIntervalSince(pausedAt)
        let here = timeline.bookTime(player.position)
        let target = max(0, here - rewind.seconds(after: paused))
        guard here - target >= 0.5 else { return (nil, []) }
        let text = "Back \(Int((here - target).rounded())) s after \(Rewind.pauseLabel(paused))."
        return (timeline.place(target), say(text))
    }

    /// `S`: pauses longer than 0.6 s cut to 0.3 s, or left whole; kept for the next session.
    mutating func toggleSkipSilence() -> [Effect] {
        skipsSilence.toggle()
        show(skipsSilence ? "Skipping silence: pauses over 0.6 s are cut short." : "Skipping silence off.")
        return [.setSkipSilence(skipsSilence)]
    }

    /// A seek is heard at once: the player's position is the target until it plays on.
    private mutating func seek(to position: PlaybackPosition) -> [Effect] {
        let moved = position.part != player.position.part
        player.position = position
        // A jump to a part still downloading: it comes first.
        return [.seek(position)] + (moved && download == .running ? [.fetchFirst([position.part, position.part + 1])] : [])
    }

    mutating func push() -> [Effect] {
        lastPush = now
        return [.push]
    }

    /// Saves the heard position (unless it has not moved); `force` saves even then.
    mutating func save(force: Bool = false, finished: Bool = false) -> [Effect] {
        let here = player.position
        lastSave = now
        guard force || finished || savedPosition != here else { return [] }
        savedPosition = here
        let percent = timeline.total > 0 ? min(100, timeline.bookTime(here) / timeline.total * 100) : nil
        return [.savePosition(place(here), percent: percent, finished: finished)]
    }

    // MARK: - Messages

    /// A line for the patron: on the screen for a few seconds, or printed without one.
    mutating func say(_ text: String, error: Bool = false) -> [Effect] {
        if screen {
            show(text)
            return []
        }
        return [error ? .errorLine("shelf: \(text)") : .line(text)]
    }

    mutating func show(_ text: String, seconds: Double = 4) {
        message = Message(text: text, until: now.addingTimeInterval(seconds))
    }
}
