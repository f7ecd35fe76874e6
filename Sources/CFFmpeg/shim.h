#ifndef SHELF_CFFMPEG_SHIM_H
#define SHELF_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>

// Function-like and compound macros Swift does not import.
static inline int CFFmpeg_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int CFFmpeg_EOF(void) { return AVERROR_EOF; }
static inline int64_t CFFmpeg_NOPTS(void) { return AV_NOPTS_VALUE; }
#endif
