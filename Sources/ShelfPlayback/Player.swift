import Foundation

/// A place in a multi-part title: which part, and how far into it in source seconds.
public struct PlaybackPosition: Sendable, Equatable, CustomStringConvertible {
    public var part: Int
    public var seconds: Double

    public init(part: Int, seconds: Double) {
        self.part = part
        self.seconds = seconds
    }

    public var description: String { "part \(part + 1) at \(String(format: "%.2f", seconds)) s" }
}

/// Plays a title's part files in order: a decode thread fills a bounded queue, a feed thread keeps SDL's
/// queue short, so a seek or speed change is heard within a fraction of a second.
///
/// Unchecked because it drives C handles from threads of its own: the SDL output, and the FFmpeg decoders and filter
/// graphs that the decode thread makes and alone uses. Everything the threads share is guarded by `condition`, a
/// condition variable (which `Mutex` is not), as the threads wait on it.
public final class Player: @unchecked Sendable {
    /// What the player is doing.
    public enum State: Sendable, Equatable {
        case stopped, playing, paused, finished
        /// Playing, but the next part's file is not there yet (it is still downloading).
        case buffering
    }

    /// Decoded (and tempo-filtered) audio waiting for the device, or the end of the title.
    private struct Chunk {
        var generation: Int
        var part: Int
        var sourceStart: Double
        var speed: Double
        var samples: [Int16]
        var isEnd = false
        /// Seconds of listening that skipping silence saved ahead of these samples (source seconds over the speed).
        var saved = 0.0
    }

    /// Audio handed to the device: where it starts in the output stream and in the source.
    private struct Segment {
        var outputStart: Int
        var frames: Int
        var part: Int
        var sourceStart: Double
        var speed: Double
    }

    /// Part files in playing order.
    public let parts: [String]
    private let output: AudioOutput
    private let queueCapacity: Int
    /// How much audio the feed thread lets SDL hold; what `position` can lag behind a seek.
    private let deviceAhead = PCM.sampleRate / 4

    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Chunk] = []
    private var generation = 0
    private var seekTarget: PlaybackPosition?
    private var basePosition = PlaybackPosition(part: 0, seconds: 0)
    private var speed = 1.0
    private var running = false
    private var paused = false
    private var endSubmitted = false
    private var segments: [Segment] = []
    private var submittedFrames = 0
    private var threadsRunning = 0
    private var failure: PlaybackError?
    private var problems: [String] = []
    private var unopenable: Set<Int> = []
    /// The part the decoder waits for, while its file is not ready.
    private var waitingFor: Int?
    private var gain = 1.0
    private let gainStage = GainStage()
    private var skipsSilence = false
    private var silenceSaved = 0.0
    /// Set from the start until the first samples are queued: the device stays paused meanwhile, as an unpaused
    /// device with an empty queue plays silence, which would come out ahead of the first sound.
    private var awaitingFirstAudio = false

    /// Says whether a part's file is complete and may be opened; nil means every part is. Asked again every
    /// quarter second while the player waits for a part that is still downloading.
    public var partReady: (@Sendable (Int) -> Bool)? {
        get { condition.withLock { readiness } }
        set { condition.withLock { readiness = newValue } }
    }
    private var readiness: (@Sendable (Int) -> Bool)?

    /// A player for `parts` on `output`; `queueCapacity` bounds the decoded chunks held ahead of the device.
    public init(parts: [String], output: AudioOutput, queueCapacity: Int = 16) {
        self.parts = parts
        self.output = output
        self.queueCapacity = max(1, queueCapacity)
    }

    /// The last decoding error, which ended playback early.
    public var lastError: PlaybackError? { condition.withLock { failure } }

    /// The current speed.
    public var currentSpeed: Double { condition.withLock { speed } }

    /// What the player is doing; `finished` once the last part has been heard to its end.
    public var state: State {
        condition.withLock {
            if !running { return .stopped }
            if endSubmitted && queue.isEmpty && output.queuedFrames == 0 { return .finished }
            if paused { return .paused }
            return waitingFor != nil && queue.isEmpty && output.queuedFrames == 0 ? .buffering : .playing
        }
    }

    /// The part the player is waiting for while its file downloads, or nil.
    public var bufferingPart: Int? { condition.withLock { waitingFor } }

    /// Whether the audio device went away (headphones unplugged, a sound server gone); the heard position stops.
    public var deviceLost: Bool { output.isLost }

    /// The loudest volume: twice the recording's, with a limiter so that nothing clips.
    public static let maxVolume = 2.0

    /// Output volume, 0…`maxVolume`, applied to audio as it is handed to the device (the sleep timer fades with it).
    public var volume: Double {
        get { condition.withLock { gain } }
        set { condition.withLock { gain = min(Self.maxVolume, max(0, newValue)) } }
    }

    /// Whether the loudness is evened out towards −20 dBFS (quiet recordings louder, loud ones softer).
    public var normalizesLoudness: Bool {
        get { condition.withLock { gainStage.normalize } }
        set { condition.withLock { gainStage.normalize = newValue } }
    }

    /// Whether pauses longer than 0.6 s are cut to 0.3 s (`SilenceSkipper`); a change is heard at once.
    public var skipsSilences: Bool { condition.withLock { skipsSilence } }

    /// Seconds of listening that skipping silence has saved in what was heard (at the speed it was heard at).
    public var savedBySkipping: Double { condition.withLock { silenceSaved } }

    /// Turns skipping silence on or off from the position heard now.
    public func setSkipSilence(_ on: Bool) {
        condition.withLock {
            guard skipsSilence != on else { return }
            skipsSilence = on
            if running { decodeAgainLocked(from: heardPosition()) }
        }
    }

    /// The parts whose files FFmpeg could not open (damaged, or not audio at all), so far.
    public var unopenableParts: Set<Int> { condition.withLock { unopenable } }

    /// Messages about parts that could not be played and were skipped, since the last call; clears them.
    public func takeProblems() -> [String] {
        condition.withLock {
            defer { problems.removeAll() }
            return problems
        }
    }

    /// What has been heard: samples given to SDL minus those still queued, mapped back through the speed.
    public var position: PlaybackPosition {
        condition.withLock { heardPosition() }
    }

    /// Starts (or restarts) playing from `start`, or resumes from a pause when `start` is nil.
    public func play(from start: PlaybackPosition? = nil) throws {
        if let start { try validate(start) }
        condition.lock()
        let starting = !running
        if starting {
            running = true
            threadsRunning = 2
            generation += 1
            seekTarget = start ?? basePosition
            resetOutputLocked(at: seekTarget!)
            awaitingFirstAudio = true
        } else if let start {
            generation += 1
            seekTarget = start
            resetOutputLocked(at: start)
        }
        paused = false
        let waiting = awaitingFirstAudio
        condition.broadcast()
        condition.unlock()
        if starting {
            Thread.detachNewThread { [self] in decodeLoop() }
            Thread.detachNewThread { [self] in feedLoop() }
        }
        // Otherwise the feed thread resumes the device with the first samples it queues.
        if !waiting { output.resume() }
    }

    /// Pauses output; the position stays where it was heard.
    public func pause() {
        condition.withLock { paused = true }
        output.pause()
    }

    /// Jumps to `target`, dropping audio decoded ahead.
    public func seek(to target: PlaybackPosition) throws {
        try validate(target)
        condition.withLock { decodeAgainLocked(from: target) }
    }

    /// Changes speed (0.5–4.0) from the position heard now; the tempo graph is rebuilt.
    public func setSpeed(_ newSpeed: Double) throws {
        guard TempoFilter.speeds.contains(newSpeed) else { throw PlaybackError.speedOutOfRange(newSpeed) }
        condition.withLock {
            let here = heardPosition()
            speed = newSpeed
            if running { decodeAgainLocked(from: here) }
        }
    }

    /// Stops both threads and silences the device; `play(from:)` starts again.
    public func stop() {
        condition.lock()
        let here = heardPosition()
        running = false
        awaitingFirstAudio = false
        generation += 1
        queue.removeAll()
        condition.broadcast()
        while threadsRunning > 0 { condition.wait() }
        output.pause()
        output.clear()
        segments.removeAll()
        submittedFrames = 0
        basePosition = here
        condition.unlock()
    }

    private func validate(_ position: PlaybackPosition) throws {
        guard parts.indices.contains(position.part) else {
            throw PlaybackError.noSuchPart(index: position.part, count: parts.count)
        }
    }

    /// Drops what was decoded ahead and has the decode thread start again at `target` (a seek, or a change of speed
    /// or of skipping silence heard from where the listener is).
    private func decodeAgainLocked(from target: PlaybackPosition) {
        generation += 1
        seekTarget = target
        resetOutputLocked(at: target)
        condition.broadcast()
    }

    private func resetOutputLocked(at target: PlaybackPosition) {
        queue.removeAll()
        output.clear()
        segments.removeAll()
        submittedFrames = 0
        basePosition = target
        endSubmitted = false
        gainStage.reset()
    }

    private func heardPosition() -> PlaybackPosition {
        let heard = max(0, submittedFrames - output.queuedFrames)
        guard let segment = segments.last(where: { $0.outputStart <= heard }) else { return basePosition }
        let into = min(heard - segment.outputStart, segment.frames)
        return PlaybackPosition(
            part: segment.part,
            seconds: segment.sourceStart + Double(into) / Double(PCM.sampleRate) * segment.speed)
    }

    // MARK: - Threads

    private func threadExited() {
        condition.withLock {
            threadsRunning -= 1
            condition.broadcast()
        }
    }

    /// What opening the next playable part came to.
    private enum Opening {
        case opened(index: Int, decoder: AudioDecoder)
        /// A seek or stop came while waiting for the part's file.
        case superseded
        /// No part from there on could be opened.
        case noneLeft
    }

    /// Decodes and filters ahead, one part after another, until stopped; idles after the last part.
    /// A part that cannot be opened or decoded is reported in `takeProblems()` and skipped.
    private func decodeLoop() {
        defer { threadExited() }
        var decoder: AudioDecoder?
        var filter: TempoFilter?
        var skipper: SilenceSkipper?
        var part = 0
        var cursor = 0.0
        /// Where the next input to the stretcher should start in the source; a later start is a skipped silence.
        var expected: Double?
        /// Where the decoder has read to in the source, and the time skipping silence saved not yet handed on.
        var decoded = 0.0
        var pendingSaved = 0.0
        var ended = true
        var current = -1
        while true {
            condition.lock()
            while running && ended && seekTarget == nil { condition.wait() }
            guard running else {
                condition.unlock()
                return
            }
            let target = seekTarget
            seekTarget = nil
            let generation = self.generation
            let speed = self.speed
            let skipping = skipsSilence
            condition.unlock()
            let end = { (part: Int, at: Double) in
                self.put(Chunk(generation: generation, part: part, sourceStart: at, speed: speed, samples: [], isEnd: true))
            }
            if let target {
                ended = true
                if decoder == nil || target.part != part {
                    decoder = nil
                    switch openPart(from: target.part, generation: generation) {
                    case .superseded: continue
                    case .noneLeft:
                        end(target.part, target.seconds)
                        continue
                    case .opened(let index, let opened):
                        decoder = opened
                        part = index
                    }
                }
                cursor = part == target.part ? target.seconds : 0
                expected = nil
                pendingSaved = 0
                skipper = skipping ? SilenceSkipper() : nil
                do {
                    try decoder?.seek(to: cursor)
                    filter = try TempoFilter(speed: speed)
                } catch {
                    record(error, part: part)
                    decoder = nil
                    end(part, cursor)
                    continue
                }
                ended = false
                current = generation
            }
            guard !ended, let active = decoder, let filter, current == generation else {
                ended = true
                continue
            }
            var partEnded = false
            // Runs of source audio go through the stretcher: at 1× each carries its own timestamp; stretched, the
            // output is re-timed by count, and a run that starts later than the last ended moves the count on.
            let stretch = { (runs: [SilenceSkipper.Run], saved: Double) in
                pendingSaved += saved
                for run in runs {
                    if speed == 1.0 {
                        cursor = run.time
                    } else if let expected, run.time > expected + 0.001 {
                        cursor += run.time - expected
                    }
                    expected = run.time + Double(run.samples.count / PCM.channels) / Double(PCM.sampleRate)
                    let samples = filter.process(run.samples)
                    self.put(Chunk(generation: generation, part: part, sourceStart: cursor, speed: speed, samples: samples,
                                   saved: pendingSaved))
                    if !samples.isEmpty { pendingSaved = 0 }
                    cursor += Double(samples.count / PCM.channels) / Double(PCM.sampleRate) * speed
                }
            }
            do {
                if let chunk = try active.next() {
                    decoded = chunk.time + chunk.duration
                    if let skipper {
                        let before = skipper.removed
                        let runs = skipper.process(chunk.samples, time: chunk.time)
                        stretch(runs, (skipper.removed - before) / speed)
                    } else {
                        stretch([SilenceSkipper.Run(time: chunk.time, samples: chunk.samples)], 0)
                    }
                } else {
                    if let skipper { stretch(skipper.finish(), 0) }
                    let tail = filter.finish()
                    put(Chunk(generation: generation, part: part, sourceStart: cursor, speed: speed, samples: tail,
                              saved: pendingSaved))
                    if !tail.isEmpty { pendingSaved = 0 }
                    // A silence skipped at the end: the part was still read to its end.
                    if skipper != nil { cursor = max(cursor, decoded) }
                    partEnded = true
                }
            } catch {
                // Damage the decoder could not step over: the rest of this part is lost, the next one plays.
                record(error, part: part)
                partEnded = true
            }
            guard partEnded else { continue }
            ended = true
            decoder = nil
            switch openPart(from: part + 1, generation: generation) {
            case .superseded: continue
            case .noneLeft:
                put(Chunk(generation: generation, part: part, sourceStart: cursor, speed: speed, samples: [], isEnd: true,
                          saved: pendingSaved))
                pendingSaved = 0
            case .opened(let index, let opened):
                decoder = opened
                part = index
                cursor = 0
                expected = nil
                ended = false
            }
        }
    }

    /// Opens the first part from `index` on that opens, waiting for files still downloading.
    private func openPart(from index: Int, generation: Int) -> Opening {
        var index = index
        while index < parts.count {
            guard waitUntilReady(index, generation: generation) else { return .superseded }
            do {
                return .opened(index: index, decoder: try AudioDecoder(path: parts[index]))
            } catch {
                record(error, part: index)
                condition.withLock { _ = unopenable.insert(index) }
                index += 1
            }
        }
        return .noneLeft
    }

    /// Waits while `partReady` says no; false when a seek or stop makes the wait pointless.
    private func waitUntilReady(_ index: Int, generation: Int) -> Bool {
        guard let ready = partReady, !ready(index) else { return true }
        condition.lock()
        defer {
            waitingFor = nil
            condition.unlock()
        }
        waitingFor = index
        while running && self.generation == generation {
            condition.unlock()
            let isReady = ready(index)
            condition.lock()
            if isReady { return true }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.25))
        }
        return false
    }

    private func record(_ error: any Error, part: Int) {
        let failure = error as? PlaybackError ?? .ffmpeg(action: "decode", message: "\(error)")
        condition.withLock {
            self.failure = failure
            let next = part + 1 < parts.count ? "; skipped to part \(part + 2)" : ""
            problems.append("part \(part + 1) cannot be played (\(failure))\(next)")
        }
    }

    /// Waits for room in the bounded queue; drops the chunk if a seek or stop made it stale.
    private func put(_ chunk: Chunk) {
        guard chunk.isEnd || !chunk.samples.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        while running && queue.count >= queueCapacity && generation == chunk.generation { condition.wait() }
        guard running, generation == chunk.generation else { return }
        queue.append(chunk)
        condition.broadcast()
    }

    /// Moves chunks to SDL while it holds less than `deviceAhead` frames.
    private func feedLoop() {
        defer { threadExited() }
        condition.lock()
        defer { condition.unlock() }
        while running {
            // Sleep until there is something to do: play, seek, stop and put all broadcast; a full device is
            // waited on until it has played half of what it holds (a few wake-ups a second, not a hundred).
            if paused || queue.isEmpty {
                condition.wait()
                continue
            }
            let queued = output.queuedFrames
            if queued > deviceAhead {
                let drain = Double(queued - deviceAhead / 2) / Double(PCM.sampleRate)
                _ = condition.wait(until: Date(timeIntervalSinceNow: max(0.005, drain)))
                continue
            }
            let chunk = queue.removeFirst()
            condition.broadcast()
            if chunk.isEnd {
                endSubmitted = true
                silenceSaved += chunk.saved
                // Heard once all before it is: the end of the part, also when a skipped silence ended it.
                segments.append(
                    Segment(outputStart: submittedFrames, frames: 0, part: chunk.part, sourceStart: chunk.sourceStart,
                            speed: chunk.speed))
                continue
            }
            do {
                try output.enqueue(gainStage.apply(chunk.samples, volume: gain))
            } catch {
                failure = error as? PlaybackError
                // A device that could not be opened (deferred until these first samples) will not open by trying
                // again: nothing more is fed, and the output says why (`openFailure`, `isLost`).
                if output.openFailure != nil {
                    condition.broadcast()
                    return
                }
                continue
            }
            let heard = submittedFrames - output.queuedFrames
            segments.removeAll { $0.outputStart + $0.frames < heard }
            segments.append(
                Segment(
                    outputStart: submittedFrames, frames: chunk.samples.count / PCM.channels, part: chunk.part,
                    sourceStart: chunk.sourceStart, speed: chunk.speed))
            submittedFrames += chunk.samples.count / PCM.channels
            silenceSaved += chunk.saved
            if awaitingFirstAudio {
                awaitingFirstAudio = false
                if !paused { output.resume() }
            }
        }
    }
}
