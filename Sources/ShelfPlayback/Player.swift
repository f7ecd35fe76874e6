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
public final class Player: @unchecked Sendable {
    /// What the player is doing.
    public enum State: Sendable, Equatable {
        case stopped, playing, paused, finished
    }

    /// Decoded (and tempo-filtered) audio waiting for the device, or the end of the title.
    private struct Chunk {
        var generation: Int
        var part: Int
        var sourceStart: Double
        var speed: Double
        var samples: [Int16]
        var isEnd = false
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
            return paused ? .paused : .playing
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
        } else if let start {
            generation += 1
            seekTarget = start
            resetOutputLocked(at: start)
        }
        paused = false
        condition.broadcast()
        condition.unlock()
        if starting {
            Thread.detachNewThread { [self] in decodeLoop() }
            Thread.detachNewThread { [self] in feedLoop() }
        }
        output.resume()
    }

    /// Pauses output; the position stays where it was heard.
    public func pause() {
        condition.withLock { paused = true }
        output.pause()
    }

    /// Jumps to `target`, dropping audio decoded ahead.
    public func seek(to target: PlaybackPosition) throws {
        try validate(target)
        condition.withLock {
            generation += 1
            seekTarget = target
            resetOutputLocked(at: target)
            condition.broadcast()
        }
    }

    /// Changes speed (0.5–3.0) from the position heard now; the tempo graph is rebuilt.
    public func setSpeed(_ newSpeed: Double) throws {
        guard TempoFilter.speeds.contains(newSpeed) else { throw PlaybackError.speedOutOfRange(newSpeed) }
        condition.withLock {
            let here = heardPosition()
            speed = newSpeed
            guard running else { return }
            generation += 1
            seekTarget = here
            resetOutputLocked(at: here)
            condition.broadcast()
        }
    }

    /// Stops both threads and silences the device; `play(from:)` starts again.
    public func stop() {
        condition.lock()
        let here = heardPosition()
        running = false
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

    private func resetOutputLocked(at target: PlaybackPosition) {
        queue.removeAll()
        output.clear()
        segments.removeAll()
        submittedFrames = 0
        basePosition = target
        endSubmitted = false
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

    /// Decodes and filters ahead, one part after another, until stopped; idles after the last part.
    private func decodeLoop() {
        defer { threadExited() }
        var decoder: AudioDecoder?
        var filter: TempoFilter?
        var part = 0
        var cursor = 0.0
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
            condition.unlock()
            do {
                if let target {
                    if decoder == nil || target.part != part {
                        decoder = try AudioDecoder(path: parts[target.part])
                        part = target.part
                    }
                    try decoder?.seek(to: target.seconds)
                    filter = try TempoFilter(speed: speed)
                    cursor = target.seconds
                    ended = false
                    current = generation
                }
                guard let active = decoder, let filter, current == generation else {
                    ended = true
                    continue
                }
                if let chunk = try active.next() {
                    // At 1× every chunk carries its own timestamp; through atempo the output is re-timed by count.
                    if speed == 1.0 { cursor = chunk.time }
                    let samples = try filter.process(chunk.samples)
                    put(Chunk(generation: generation, part: part, sourceStart: cursor, speed: speed, samples: samples))
                    cursor += Double(samples.count / PCM.channels) / Double(PCM.sampleRate) * speed
                } else {
                    let tail = try filter.finish()
                    put(Chunk(generation: generation, part: part, sourceStart: cursor, speed: speed, samples: tail))
                    if part + 1 < parts.count {
                        part += 1
                        decoder = try AudioDecoder(path: parts[part])
                        cursor = 0
                    } else {
                        put(Chunk(generation: generation, part: part, sourceStart: cursor, speed: speed, samples: [], isEnd: true))
                        ended = true
                    }
                }
            } catch {
                condition.withLock { failure = error as? PlaybackError ?? .ffmpeg(action: "decode", message: "\(error)") }
                put(Chunk(generation: generation, part: part, sourceStart: cursor, speed: speed, samples: [], isEnd: true))
                ended = true
            }
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
            if paused || queue.isEmpty || output.queuedFrames > deviceAhead {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.01))
                continue
            }
            let chunk = queue.removeFirst()
            condition.broadcast()
            if chunk.isEnd {
                endSubmitted = true
                continue
            }
            do {
                try output.enqueue(chunk.samples)
            } catch {
                failure = error as? PlaybackError
                continue
            }
            let heard = submittedFrames - output.queuedFrames
            segments.removeAll { $0.outputStart + $0.frames < heard }
            segments.append(
                Segment(
                    outputStart: submittedFrames, frames: chunk.samples.count / PCM.channels, part: chunk.part,
                    sourceStart: chunk.sourceStart, speed: chunk.speed))
            submittedFrames += chunk.samples.count / PCM.channels
        }
    }
}
