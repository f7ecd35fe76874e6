import CPlaybackLoader
import Foundation

/// FFmpeg and SDL2, which shelf opens with dlopen when it first plays or reads audio rather than linking them, so
/// that no other command loads them (FFmpeg alone is about 130 libraries and ~45 ms to load; see CPlaybackLoader).
public enum PlaybackLibraries {
    /// Starts opening both on a thread of its own, so the player reads the store meanwhile; the first FFmpeg or SDL
    /// call waits for it, and a library that cannot be opened is reported then. SDL first: it is the smaller, and
    /// the sound server's connection waits for it.
    public static func preload() {
        Thread.detachNewThread {
            _ = CPlayback_load_sdl()
            _ = CPlayback_load_ffmpeg()
        }
    }

    /// Waits for both to be open (opening them if `preload` did not start to), or throws
    /// `PlaybackError.libraryMissing` naming the one that cannot be.
    public static func require() throws {
        try SDL.load()
        try FFmpeg.load()
    }
}
