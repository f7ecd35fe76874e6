import Foundation
import Synchronization

/// Plays `PCM` on the default audio device through SDL's queue; opened paused.
///
/// Unchecked because it owns an SDL device handle, which the player's feed thread and the session's thread both
/// use: SDL's audio calls lock the device themselves, and the paused flag is changed with the device under `paused`.
public final class AudioOutput: @unchecked Sendable {
    private let device: SDLAudioDevice
    private let paused = Mutex(true)

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
    public var isPaused: Bool { paused.withLock { $0 } }

    /// Starts or continues playing the queue.
    public func resume() {
        paused.withLock { paused in
            paused = false
            device.setPaused(false)
        }
    }

    /// Stops taking samples from the queue; the queue is kept.
    public func pause() {
        paused.withLock { paused in
            paused = true
            device.setPaused(true)
        }
    }

    /// Whether SDL lost the device after it opened (unplugged, or its sound server went away).
    public var isLost: Bool { device.isLost }

    /// Drops everything queued.
    public func clear() { device.clear() }
}
