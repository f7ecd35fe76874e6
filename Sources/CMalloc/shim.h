#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H

#include <malloc.h>

/* M_MMAP_THRESHOLD is a macro; a function keeps the knob typed for Swift. */
static inline int CMalloc_setMmapThreshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

#endif
