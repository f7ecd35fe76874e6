import Foundation

/// Plays `PCM` on the default audio device through SDL's queue; opened paused.
public final class AudioOutput: @unchecked Sendable {
    // SDL's audio calls lock the device themselves; this lock only keeps the paused flag consistent.
    private let lock = NSLock()
    private let device: SDLAudioDevice
    private var paused = true

    /// Opens the device named by `SDL_AUDIODRIVER` (or SDL's default), or throws `PlaybackError.noAudioDevice`.
    public init() throws {
        device = try SDLAudioDevice()
    }

    /// Appends interleaved samples to the device's queue.
    public func enqueue(_ samples: [Int16]) throws {
        guard !samples.isEmpty else { return }
        try device.queue(samples)
    }

    /// Frames queued and not yet handed to the device.
    public var queuedFrames: Int { device.queuedBytes / (PCM.channels * MemoryLayout<Int16>.size) }

    /// Whether output is paused.
    public var isPaused: Bool { lock.withLock { paused } }

    /// Starts or continues playing the queue.
    public func resume() {
        lock.withLock {
            paused = false
            device.setPaused(false)
        }
    }

    /// Stops taking samples from the queue; the queue is kept.
    public func pause() {
        lock.withLock {
            paused = true
            device.setPaused(true)
        }
    }

    /// Whether SDL lost the device after it opened (unplugged, or its sound server went away).
    public var isLost: Bool { device.isLost }

    /// Drops everything queued.
    public func clear() { device.clear() }
}
