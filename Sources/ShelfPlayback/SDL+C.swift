import CPlaybackLoader
import CSDL2
import Synchronization

/// The one error path for SDL: failures become `PlaybackError.sdl` with `SDL_GetError`'s message.
enum SDL {
    static func check(_ code: Int32, _ action: @autoclosure () -> String) throws {
        guard code < 0 else { return }
        throw PlaybackError.sdl(action: action(), message: lastError)
    }

    static var lastError: String { String(cString: SDL_GetError()) }

    /// Opens SDL2 (once: it is opened with dlopen, not linked; see CPlaybackLoader). Every way into SDL calls it
    /// first; it waits for a load another thread started.
    static func load() throws {
        if let reason = CPlayback_load_sdl() {
            throw PlaybackError.libraryMissing(
                library: "SDL2 (\(String(cString: CPlayback_sdl_library())))", reason: String(cString: reason))
        }
    }
}

/// An SDL audio device in queue mode, playing `PCM`. The corresponding C functions are
/// `SDL_OpenAudioDevice`, `SDL_QueueAudio` and `SDL_GetQueuedAudioSize`.
///
/// Unchecked because it is a handle: SDL's audio calls lock the device themselves.
final class SDLAudioDevice: @unchecked Sendable {
    private let device: SDL_AudioDeviceID

    /// Starts SDL's audio subsystem once and keeps it up; SDL counts the starts, and each device adds its own.
    static func startAudio() throws {
        try started.withLock { started in
            guard !started else { return }
            try SDL.load()
            SDL_SetMainReady()
            guard SDL_InitSubSystem(CSDL2_INIT_AUDIO()) == 0 else {
                throw PlaybackError.noAudioDevice(reason: SDL.lastError)
            }
            started = true
        }
    }
    private static let started = Mutex(false)

    /// Opens the default device paused, or `device` of the audio driver `driver` (`SDL_AUDIODRIVER` or SDL's own
    /// choice when nil); SDL converts if the hardware wants another format. The corresponding C functions are
    /// `SDL_SetHint`, `SDL_InitSubSystem` and `SDL_OpenAudioDevice`.
    init(driver: String? = nil, device name: String? = nil) throws {
        try SDL.load()
        SDL_SetMainReady()
        // A hint, not the environment: setenv while another thread reads the environment (Foundation's Process.run)
        // crashes the process.
        if let driver { _ = SDL_SetHint("SDL_AUDIODRIVER", driver) }
        guard SDL_InitSubSystem(CSDL2_INIT_AUDIO()) == 0 else {
            throw PlaybackError.noAudioDevice(reason: SDL.lastError)
        }
        var wanted = SDL_AudioSpec()
        wanted.freq = Int32(PCM.sampleRate)
        wanted.format = CSDL2_AUDIO_S16SYS()
        wanted.channels = UInt8(PCM.channels)
        // 1024 frames (23 ms) per period: the first sound comes out a period sooner than with SDL's usual 2048.
        wanted.samples = 1024
        var obtained = SDL_AudioSpec()
        // With no sound card, libasound would print a screenful of its own errors before shelf's one line.
        CSDL2_silence_alsa()
        let device = SDL_OpenAudioDevice(name, 0, &wanted, &obtained, 0)
        guard device != 0 else {
            let reason = SDL.lastError
            SDL_QuitSubSystem(CSDL2_INIT_AUDIO())
            throw PlaybackError.noAudioDevice(reason: reason)
        }
        self.device = device
    }

    deinit {
        SDL_CloseAudioDevice(device)
        SDL_QuitSubSystem(CSDL2_INIT_AUDIO())
    }

    func queue(_ samples: [Int16]) throws {
        try samples.withUnsafeBytes { bytes in
            try SDL.check(SDL_QueueAudio(device, bytes.baseAddress, UInt32(bytes.count)), "queue audio")
        }
    }

    var queuedBytes: Int { Int(SDL_GetQueuedAudioSize(device)) }

    func clear() { SDL_ClearQueuedAudio(device) }

    /// SDL reports a device it has disconnected as stopped, whatever its pause state.
    var isLost: Bool { SDL_GetAudioDeviceStatus(device) == SDL_AUDIO_STOPPED }

    func setPaused(_ paused: Bool) { SDL_PauseAudioDevice(device, paused ? 1 : 0) }
}
