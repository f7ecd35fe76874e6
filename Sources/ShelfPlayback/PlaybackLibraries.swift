import CPlaybackLoader
import Foundation

/// FFmpeg and SDL2, which shelf opens with dlopen when it first plays or reads audio rather than linking them, so
/// that no other command loads them (FFmpeg alone is about 130 libraries and ~45 ms to load; see CPlaybackLoader).
public enum PlaybackLibraries {
    /// Starts opening both on a thread of its own, so the player reads the store meanwhile; the first FFmpeg or SDL
    /// call waits for it, and a library that cannot be opened is reported then. FFmpeg first: the first sound
    /// waits for it to decode, while the device opens only with the first samples (and the player's own start of
    /// SDL's audio, on another thread, opens SDL itself if it comes first).
    public static func preload() {
        Thread.detachNewThread {
            _ = CPlayback_load_ffmpeg()
            _ = CPlayback_load_sdl()
        }
    }

    /// Waits for both to be open (opening them if `preload` did not start to), or throws
    /// `PlaybackError.libraryMissing` naming the one that cannot be.
    public static func require() throws {
        try SDL.load()
        try FFmpeg.load()
    }
}
