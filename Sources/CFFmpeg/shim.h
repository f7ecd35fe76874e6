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
#include <libavutil/audio_fifo.h>
#include <libavutil/mem.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

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

// libavfilter (the tempo filter, for speeds other than 1x) is opened with dlopen the first time a speed other than
// 1x is asked for, not linked: with the thirty-odd libraries it alone pulls in (flite's voices, vulkan, placebo,
// rubberband, lapack…) it is about 11 MB of the player's memory, and most listening is at 1x.
typedef AVFilterGraph *(*CFFmpeg_graph_alloc_f)(void);
typedef void (*CFFmpeg_graph_free_f)(AVFilterGraph **);
typedef const AVFilter *(*CFFmpeg_get_by_name_f)(const char *);
typedef int (*CFFmpeg_create_filter_f)(AVFilterContext **, const AVFilter *, const char *, const char *, void *,
                                       AVFilterGraph *);
typedef int (*CFFmpeg_link_f)(AVFilterContext *, unsigned, AVFilterContext *, unsigned);
typedef int (*CFFmpeg_graph_config_f)(AVFilterGraph *, void *);
typedef int (*CFFmpeg_frame_f)(AVFilterContext *, AVFrame *);

struct CFFmpeg_avfilter {
    const char *error;
    CFFmpeg_graph_alloc_f graph_alloc;
    CFFmpeg_graph_free_f graph_free;
    CFFmpeg_get_by_name_f get_by_name;
    CFFmpeg_create_filter_f create_filter;
    CFFmpeg_link_f link;
    CFFmpeg_graph_config_f graph_config;
    CFFmpeg_frame_f buffersrc_add_frame;
    CFFmpeg_frame_f buffersink_get_frame;
};

// The state lives in function-local statics: Swift emits those with the inline functions, not file-scope ones.
static inline struct CFFmpeg_avfilter *CFFmpeg_avfilter_table(void) {
    static struct CFFmpeg_avfilter table;
    return &table;
}

static inline void CFFmpeg_avfilter_open(void) {
    struct CFFmpeg_avfilter *f = CFFmpeg_avfilter_table();
    static char message[512];
    void *library = dlopen("libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(message, sizeof message, "%s", reason ? reason : "libavfilter could not be opened");
        f->error = message;
        return;
    }
    f->graph_alloc = (CFFmpeg_graph_alloc_f)dlsym(library, "avfilter_graph_alloc");
    f->graph_free = (CFFmpeg_graph_free_f)dlsym(library, "avfilter_graph_free");
    f->get_by_name = (CFFmpeg_get_by_name_f)dlsym(library, "avfilter_get_by_name");
    f->create_filter = (CFFmpeg_create_filter_f)dlsym(library, "avfilter_graph_create_filter");
    f->link = (CFFmpeg_link_f)dlsym(library, "avfilter_link");
    f->graph_config = (CFFmpeg_graph_config_f)dlsym(library, "avfilter_graph_config");
    f->buffersrc_add_frame = (CFFmpeg_frame_f)dlsym(library, "av_buffersrc_add_frame");
    f->buffersink_get_frame = (CFFmpeg_frame_f)dlsym(library, "av_buffersink_get_frame");
    if (!f->graph_alloc || !f->graph_free || !f->get_by_name || !f->create_filter || !f->link || !f->graph_config
        || !f->buffersrc_add_frame || !f->buffersink_get_frame) {
        f->error = "libavfilter lacks a function the tempo filter needs";
    }
}

/// NULL once libavfilter is open with every function; else why it is not.
static inline const char *CFFmpeg_avfilter_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CFFmpeg_avfilter_open);
    return CFFmpeg_avfilter_table()->error;
}

// Each of these is called only after CFFmpeg_avfilter_load() returned NULL.
static inline AVFilterGraph *CFFmpeg_avfilter_graph_alloc(void) { return CFFmpeg_avfilter_table()->graph_alloc(); }
static inline void CFFmpeg_avfilter_graph_free(AVFilterGraph **graph) { CFFmpeg_avfilter_table()->graph_free(graph); }
static inline int CFFmpeg_avfilter_graph_create_filter(AVFilterContext **context, const char *name,
                                                       const char *arguments, AVFilterGraph *graph) {
    return CFFmpeg_avfilter_table()->create_filter(context, CFFmpeg_avfilter_table()->get_by_name(name), name,
                                                    arguments, NULL, graph);
}
static inline int CFFmpeg_avfilter_link(AVFilterContext *source, AVFilterContext *destination) {
    return CFFmpeg_avfilter_table()->link(source, 0, destination, 0);
}
static inline int CFFmpeg_avfilter_graph_config(AVFilterGraph *graph) {
    return CFFmpeg_avfilter_table()->graph_config(graph, NULL);
}
static inline int CFFmpeg_av_buffersrc_add_frame(AVFilterContext *source, AVFrame *frame) {
    return CFFmpeg_avfilter_table()->buffersrc_add_frame(source, frame);
}
static inline int CFFmpeg_av_buffersink_get_frame(AVFilterContext *sink, AVFrame *frame) {
    return CFFmpeg_avfilter_table()->buffersink_get_frame(sink, frame);
}
#endif
