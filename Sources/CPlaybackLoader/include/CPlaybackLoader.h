#ifndef SHELF_CPLAYBACK_LOADER_H
#define SHELF_CPLAYBACK_LOADER_H
// FFmpeg and SDL2 are opened with dlopen, not linked, so that `shelf` itself can be the player without every
// other command paying for them: FFmpeg alone brings about 130 libraries, which take ~45 ms to map and bind
// (every one of them is linked BIND_NOW) and would then be loaded by `shelf list` too. The player starts the
// loading on a thread of its own while it reads the store, and the first FFmpeg or SDL call waits for it.
//
// loader.c defines, with hidden visibility, each FFmpeg and SDL function shelf calls, as a call through a pointer
// that the load fills with dlsym; a function used without a line there fails the link, naming it.

/// NULL once FFmpeg's libraries (libavformat, libavcodec, libswresample, libavutil) are open with every function
/// shelf calls; else one line saying why not (dlerror's). The first call loads; every other call, from any thread,
/// waits for that one and returns the same answer.
const char *CPlayback_load_ffmpeg(void);

/// The same for SDL2 (libSDL2-2.0.so.0).
const char *CPlayback_load_sdl(void);

/// The file names the loader opens, for messages: "libavformat.so.59, libavcodec.so.59, …" and SDL2's.
const char *CPlayback_ffmpeg_libraries(void);
const char *CPlayback_sdl_library(void);
#endif
