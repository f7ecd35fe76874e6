#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/* deflateInit2 is a macro, which Swift does not import. */
static inline int CZlib_deflateInit2(z_streamp stream, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

#endif
