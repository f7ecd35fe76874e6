#ifndef SHELF_CFFMPEG_SHIM_H
#define SHELF_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/mem.h>

// Function-like and compound macros Swift does not import.
static inline int CFFmpeg_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int CFFmpeg_EOF(void) { return AVERROR_EOF; }
static inline int64_t CFFmpeg_NOPTS(void) { return AV_NOPTS_VALUE; }
static inline int CFFmpeg_ENOMEM(void) { return AVERROR(ENOMEM); }

// Adds a chapter to a muxer's context (the library's own helper for this, avpriv_new_chapter, is private);
// avformat_free_context frees it with the context.
static inline int CFFmpeg_add_chapter(AVFormatContext *context, int64_t id, AVRational time_base, int64_t start,
                                      int64_t end, const char *title) {
    AVChapter *chapter = av_mallocz(sizeof(AVChapter));
    if (!chapter) return AVERROR(ENOMEM);
    chapter->id = id;
    chapter->time_base = time_base;
    chapter->start = start;
    chapter->end = end;
    int result = av_dict_set(&chapter->metadata, "title", title, 0);
    if (result >= 0) result = av_dynarray_add_nofree(&context->chapters, (int *)&context->nb_chapters, chapter);
    if (result < 0) {
        av_dict_free(&chapter->metadata);
        av_free(chapter);
    }
    return result;
}
#endif
