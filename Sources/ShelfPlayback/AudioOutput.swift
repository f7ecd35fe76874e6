import Foundation
import Synchronization

/// Plays `PCM` on the default audio device through SDL's queue; opened paused.
///
/// The device is opened at once (`init()`), or only when the first samples are ready (`deferred()`, then `open()`
/// from the player's feed thread): an open device plays silence until it has something to play, and that silence
/// would come out ahead of the first sound. `prepare()` meanwhile starts SDL's audio (connecting to the sound server
/// is the slow part), so the late open is quick.
///
/// Unchecked because it owns an SDL device handle, which the player's feed thread and the session's thread both
/// use: SDL's audio calls lock the device themselves, and the paused flag is changed with the device under `state`.
public final class AudioOutput: @unchecked Sendable {
    private struct State {
        var device: SDLAudioDevice?
        var paused = true
        var failure: PlaybackError?
    }
    private let state: Mutex<State>

    /// Starts SDL's audio subsystem for the device named by `SDL_AUDIODRIVER` (or SDL's default), without opening a
    /// device; throws `PlaybackError.noAudioDevice` when there is none.
    public static func prepare() throws {
        try SDLAudioDevice.startAudio()
    }

    /// Opens the device named by `SDL_AUDIODRIVER` (or SDL's default), or throws `PlaybackError.noAudioDevice`.
    public init() throws {
        state = Mutex(State(device: try SDLAudioDevice()))
    }

    /// Opens `device` of the audio driver `driver`, whatever `SDL_AUDIODRIVER` says: SDL's `disk` driver with a
    /// file's path writes the exact output stream to that file (tests), with no change to the process's environment.
    public init(driver: String, device: String? = nil) throws {
        state = Mutex(State(device: try SDLAudioDevice(driver: driver, device: device)))
    }

    private init(unopened: Void) {
        state = Mutex(State())
    }

    /// An output whose device opens on `open()`; until then nothing is queued and nothing plays.
    public static func deferred() -> AudioOutput { AudioOutput(unopened: ()) }

    /// Opens the device now if it is not open yet (paused or playing as asked meanwhile); throws and remembers why it
    /// could not.
    public func open() throws {
        if state.withLock({ $0.device != nil }) { return }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        do {
            let device = try SDLAudioDevice()
            state.withLock { state in
                state.device = device
                device.setPaused(state.paused)
            }
        } catch {
            let failure = error as? PlaybackError ?? .noAudioDevice(reason: "\(error)")
            state.withLock { $0.failure = failure }
            throw failure
        }
    }

    /// Whether the device is open; nil while a deferred open has not been tried, else the failure, if any.
    public var openFailure: PlaybackError? { state.withLock { $0.failure } }
    public var isOpen: Bool { state.withLock { $0.device != nil } }

    /// Appends interleaved samples to the device's queue (the device opens first when deferred).
    public func enqueue(_ samples: [Int16]) throws {
        guard !samples.isEmpty else { return }
        try open()
        guard let device = state.withLock({ $0.device }) else { return }
        try device.queue(samples)
    }

    /// Frames queued and not yet handed to the device.
    public var queuedFrames: Int {
        guard let device = state.withLock({ $0.device }) else { return 0 }
        return device.queuedBytes / (PCM.channels * MemoryLayout<Int16>.size)
    }

    /// Whether output is paused.
    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Starts or continues playing the queue.
    public func resume() {
        state.withLock { state in
            state.paused = false
            state.device?.setPaused(false)
        }
    }

    /// Stops taking samples from the queue; the queue is kept.
    public func pause() {
        state.withLock { state in
            state.paused = true
            state.device?.setPaused(true)
        }
    }

    /// Whether SDL lost the device after it opened (unplugged, or its sound server went away), or a deferred open
    /// failed.
    public var isLost: Bool {
        let (device, failed) = state.withLock { ($0.device, $0.failure != nil) }
        return failed || device?.isLost == true
    }

    /// Drops everything queued.
    public func clear() { state.withLock { $0.device }?.clear() }
}
