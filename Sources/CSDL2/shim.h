#ifndef SHELF_CSDL2_SHIM_H
#define SHELF_CSDL2_SHIM_H
#define SDL_MAIN_HANDLED
#include <SDL2/SDL.h>

static inline SDL_AudioFormat CSDL2_AUDIO_S16SYS(void) { return AUDIO_S16SYS; }
static inline Uint32 CSDL2_INIT_AUDIO(void) { return SDL_INIT_AUDIO; }
#endif
