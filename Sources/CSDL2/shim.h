#ifndef SHELF_CSDL2_SHIM_H
#define SHELF_CSDL2_SHIM_H
#define SDL_MAIN_HANDLED
#include <SDL2/SDL.h>
#include <dlfcn.h>

static inline SDL_AudioFormat CSDL2_AUDIO_S16SYS(void) { return AUDIO_S16SYS; }
static inline Uint32 CSDL2_INIT_AUDIO(void) { return SDL_INIT_AUDIO; }

/// Drops libasound's messages (alsa-lib's `snd_lib_error_handler_t` is variadic, so it cannot be written in Swift).
static inline void CSDL2_drop_alsa_message(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/// Silences libasound's own error messages ("ALSA lib confmisc.c:… cannot find card '0'"…), which it prints on
/// stderr when there is no sound card, if SDL has loaded it: SDL loads libasound with dlopen itself, so shelf
/// neither links nor loads it. The handler stays while the library is loaded. The corresponding C function is
/// `snd_lib_error_set_handler`.
static inline void CSDL2_silence_alsa(void) {
    void *alsa = dlopen("libasound.so.2", RTLD_NOW | RTLD_NOLOAD);
    if (!alsa) return;
    typedef void (*handler_t)(const char *, int, const char *, int, const char *, ...);
    int (*set_handler)(handler_t) = (int (*)(handler_t))dlsym(alsa, "snd_lib_error_set_handler");
    if (set_handler) set_handler(CSDL2_drop_alsa_message);
    dlclose(alsa);
}
#endif
