// FFmpeg's and SDL2's functions, as shelf calls them, through pointers filled by dlopen and dlsym (see
// include/CPlaybackLoader.h). Each definition has hidden visibility, so that the libraries, once loaded, never bind
// to these stand-ins instead of to each other.
//
// To call another FFmpeg or SDL function from Swift, add it in three places below: its pointer in the table, its
// name in the list of symbols, and its definition; without them the link fails, naming it.
#define SDL_MAIN_HANDLED
#define DECLSPEC /* SDL declares its functions default-visible, which the hidden stand-ins would contradict */
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/mem.h>
#include <SDL2/SDL.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "CPlaybackLoader.h"

#define NAME(library, major) library ".so." AV_STRINGIFY(major)
static const char *const ffmpeg_names[] = {
    NAME("libavutil", LIBAVUTIL_VERSION_MAJOR),
    NAME("libswresample", LIBSWRESAMPLE_VERSION_MAJOR),
    NAME("libavcodec", LIBAVCODEC_VERSION_MAJOR),
    NAME("libavformat", LIBAVFORMAT_VERSION_MAJOR),
};
#define FFMPEG_LIBRARIES (sizeof ffmpeg_names / sizeof ffmpeg_names[0])
static const char sdl_name[] = "libSDL2-2.0.so.0";

static struct {
    AVAudioFifo *(*av_audio_fifo_alloc)(enum AVSampleFormat sample_fmt, int channels, int nb_samples);
    void (*av_audio_fifo_free)(AVAudioFifo *af);
    int (*av_audio_fifo_read)(AVAudioFifo *af, void **data, int nb_samples);
    int (*av_audio_fifo_size)(AVAudioFifo *af);
    int (*av_audio_fifo_write)(AVAudioFifo *af, void **data, int nb_samples);
    int (*av_channel_layout_copy)(AVChannelLayout *dst, const AVChannelLayout *src);
    void (*av_channel_layout_default)(AVChannelLayout *ch_layout, int nb_channels);
    void (*av_channel_layout_uninit)(AVChannelLayout *channel_layout);
    void (*av_dict_free)(AVDictionary **m);
    AVDictionaryEntry *(*av_dict_get)(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags);
    int (*av_dict_set)(AVDictionary **pm, const char *key, const char *value, int flags);
    int (*av_dynarray_add_nofree)(void *tab_ptr, int *nb_ptr, void *elem);
    int (*av_find_best_stream)(AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags);
    AVFrame *(*av_frame_alloc)(void);
    void (*av_frame_free)(AVFrame **frame);
    int (*av_frame_get_buffer)(AVFrame *frame, int align);
    void (*av_frame_unref)(AVFrame *frame);
    void (*av_free)(void *ptr);
    void (*av_freep)(void *ptr);
    void (*av_log_set_level)(int level);
    void *(*av_mallocz)(size_t size);
    AVPacket *(*av_packet_alloc)(void);
    void (*av_packet_free)(AVPacket **pkt);
    void (*av_packet_rescale_ts)(AVPacket *pkt, AVRational tb_src, AVRational tb_dst);
    void (*av_packet_unref)(AVPacket *pkt);
    int (*av_read_frame)(AVFormatContext *s, AVPacket *pkt);
    int (*av_samples_alloc_array_and_samples)(uint8_t ***audio_data, int *linesize, int nb_channels, int nb_samples, enum AVSampleFormat sample_fmt, int align);
    int (*av_seek_frame)(AVFormatContext *s, int stream_index, int64_t timestamp, int flags);
    int (*av_strerror)(int errnum, char *errbuf, size_t errbuf_size);
    int (*av_write_frame)(AVFormatContext *s, AVPacket *pkt);
    int (*av_write_trailer)(AVFormatContext *s);
    int (*swr_alloc_set_opts2)(struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx);
    int (*swr_convert)(struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in , int in_count);
    void (*swr_free)(struct SwrContext **s);
    int64_t (*swr_get_delay)(struct SwrContext *s, int64_t base);
    int (*swr_get_out_samples)(struct SwrContext *s, int in_samples);
    int (*swr_init)(struct SwrContext *s);
    AVCodecContext *(*avcodec_alloc_context3)(const AVCodec *codec);
    const AVCodec *(*avcodec_find_decoder)(enum AVCodecID id);
    const AVCodec *(*avcodec_find_encoder)(enum AVCodecID id);
    void (*avcodec_flush_buffers)(AVCodecContext *avctx);
    void (*avcodec_free_context)(AVCodecContext **avctx);
    int (*avcodec_open2)(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options);
    int (*avcodec_parameters_copy)(AVCodecParameters *dst, const AVCodecParameters *src);
    int (*avcodec_parameters_from_context)(AVCodecParameters *par, const AVCodecContext *codec);
    int (*avcodec_parameters_to_context)(AVCodecContext *codec, const AVCodecParameters *par);
    int (*avcodec_receive_frame)(AVCodecContext *avctx, AVFrame *frame);
    int (*avcodec_receive_packet)(AVCodecContext *avctx, AVPacket *avpkt);
    int (*avcodec_send_frame)(AVCodecContext *avctx, const AVFrame *frame);
    int (*avcodec_send_packet)(AVCodecContext *avctx, const AVPacket *avpkt);
    int (*avformat_alloc_output_context2)(AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename);
    void (*avformat_close_input)(AVFormatContext **s);
    int (*avformat_find_stream_info)(AVFormatContext *ic, AVDictionary **options);
    void (*avformat_free_context)(AVFormatContext *s);
    AVStream *(*avformat_new_stream)(AVFormatContext *s, const AVCodec *c);
    int (*avformat_open_input)(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options);
    int (*avformat_write_header)(AVFormatContext *s, AVDictionary **options);
    int (*avio_closep)(AVIOContext **s);
    int (*avio_open)(AVIOContext **s, const char *url, int flags);
} ffmpeg;

static struct {
    void (*SDL_ClearQueuedAudio)(SDL_AudioDeviceID dev);
    void (*SDL_CloseAudioDevice)(SDL_AudioDeviceID dev);
    SDL_AudioStatus (*SDL_GetAudioDeviceStatus)(SDL_AudioDeviceID dev);
    const char *(*SDL_GetError)(void);
    Uint32 (*SDL_GetQueuedAudioSize)(SDL_AudioDeviceID dev);
    int (*SDL_InitSubSystem)(Uint32 flags);
    SDL_AudioDeviceID (*SDL_OpenAudioDevice)(const char *device, int iscapture, const SDL_AudioSpec *desired, SDL_AudioSpec *obtained, int allowed_changes);
    void (*SDL_PauseAudioDevice)(SDL_AudioDeviceID dev, int pause_on);
    int (*SDL_QueueAudio)(SDL_AudioDeviceID dev, const void *data, Uint32 len);
    void (*SDL_QuitSubSystem)(Uint32 flags);
    void (*SDL_SetMainReady)(void);
    SDL_bool (*SDL_SetHint)(const char *name, const char *value);
} sdl;

struct symbol {
    const char *name;
    size_t offset;
};

#define SYMBOL(name) {#name, offsetof(__typeof__(TABLE), name)}
#define TABLE ffmpeg
static const struct symbol ffmpeg_symbols[] = {
    SYMBOL(av_audio_fifo_alloc),
    SYMBOL(av_audio_fifo_free),
    SYMBOL(av_audio_fifo_read),
    SYMBOL(av_audio_fifo_size),
    SYMBOL(av_audio_fifo_write),
    SYMBOL(av_channel_layout_copy),
    SYMBOL(av_channel_layout_default),
    SYMBOL(av_channel_layout_uninit),
    SYMBOL(av_dict_free),
    SYMBOL(av_dict_get),
    SYMBOL(av_dict_set),
    SYMBOL(av_dynarray_add_nofree),
    SYMBOL(av_find_best_stream),
    SYMBOL(av_frame_alloc),
    SYMBOL(av_frame_free),
    SYMBOL(av_frame_get_buffer),
    SYMBOL(av_frame_unref),
    SYMBOL(av_free),
    SYMBOL(av_freep),
    SYMBOL(av_log_set_level),
    SYMBOL(av_mallocz),
    SYMBOL(av_packet_alloc),
    SYMBOL(av_packet_free),
    SYMBOL(av_packet_rescale_ts),
    SYMBOL(av_packet_unref),
    SYMBOL(av_read_frame),
    SYMBOL(av_samples_alloc_array_and_samples),
    SYMBOL(av_seek_frame),
    SYMBOL(av_strerror),
    SYMBOL(av_write_frame),
    SYMBOL(av_write_trailer),
    SYMBOL(swr_alloc_set_opts2),
    SYMBOL(swr_convert),
    SYMBOL(swr_free),
    SYMBOL(swr_get_delay),
    SYMBOL(swr_get_out_samples),
    SYMBOL(swr_init),
    SYMBOL(avcodec_alloc_context3),
    SYMBOL(avcodec_find_decoder),
    SYMBOL(avcodec_find_encoder),
    SYMBOL(avcodec_flush_buffers),
    SYMBOL(avcodec_free_context),
    SYMBOL(avcodec_open2),
    SYMBOL(avcodec_parameters_copy),
    SYMBOL(avcodec_parameters_from_context),
    SYMBOL(avcodec_parameters_to_context),
    SYMBOL(avcodec_receive_frame),
    SYMBOL(avcodec_receive_packet),
    SYMBOL(avcodec_send_frame),
    SYMBOL(avcodec_send_packet),
    SYMBOL(avformat_alloc_output_context2),
    SYMBOL(avformat_close_input),
    SYMBOL(avformat_find_stream_info),
    SYMBOL(avformat_free_context),
    SYMBOL(avformat_new_stream),
    SYMBOL(avformat_open_input),
    SYMBOL(avformat_write_header),
    SYMBOL(avio_closep),
    SYMBOL(avio_open),
};
#undef TABLE
#define TABLE sdl
static const struct symbol sdl_symbols[] = {
    SYMBOL(SDL_ClearQueuedAudio),
    SYMBOL(SDL_CloseAudioDevice),
    SYMBOL(SDL_GetAudioDeviceStatus),
    SYMBOL(SDL_GetError),
    SYMBOL(SDL_GetQueuedAudioSize),
    SYMBOL(SDL_InitSubSystem),
    SYMBOL(SDL_OpenAudioDevice),
    SYMBOL(SDL_PauseAudioDevice),
    SYMBOL(SDL_QueueAudio),
    SYMBOL(SDL_QuitSubSystem),
    SYMBOL(SDL_SetMainReady),
    SYMBOL(SDL_SetHint),
};
#undef TABLE

/// Opens `names` in order and fills `table` from them; NULL, or why not in `message`.
static const char *load(const char *const *names, size_t count, const struct symbol *symbols, size_t wanted,
                        void *table, char *message, size_t size) {
    void *handles[8] = {0};
    for (size_t i = 0; i < count; i++) {
        handles[i] = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            const char *reason = dlerror();
            snprintf(message, size, "%s", reason ? reason : names[i]);
            return message;
        }
    }
    for (size_t s = 0; s < wanted; s++) {
        void *address = NULL;
        for (size_t i = count; i-- > 0 && !address;) address = dlsym(handles[i], symbols[s].name);
        if (!address) {
            snprintf(message, size, "%s lacks %s, which shelf calls", names[count - 1], symbols[s].name);
            return message;
        }
        memcpy((char *)table + symbols[s].offset, &address, sizeof address);
    }
    return NULL;
}

static char ffmpeg_message[512];
static const char *ffmpeg_failure;
static void load_ffmpeg(void) {
    ffmpeg_failure = load(ffmpeg_names, FFMPEG_LIBRARIES, ffmpeg_symbols,
                          sizeof ffmpeg_symbols / sizeof ffmpeg_symbols[0], &ffmpeg, ffmpeg_message,
                          sizeof ffmpeg_message);
}

const char *CPlayback_load_ffmpeg(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_ffmpeg);
    return ffmpeg_failure;
}

static char sdl_message[512];
static const char *sdl_failure;
static void load_sdl(void) {
    const char *names[] = {sdl_name};
    sdl_failure = load(names, 1, sdl_symbols, sizeof sdl_symbols / sizeof sdl_symbols[0], &sdl, sdl_message,
                       sizeof sdl_message);
}

const char *CPlayback_load_sdl(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_sdl);
    return sdl_failure;
}

const char *CPlayback_ffmpeg_libraries(void) {
    return NAME("libavformat", LIBAVFORMAT_VERSION_MAJOR) ", " NAME("libavcodec", LIBAVCODEC_VERSION_MAJOR) ", "
        NAME("libswresample", LIBSWRESAMPLE_VERSION_MAJOR) " and " NAME("libavutil", LIBAVUTIL_VERSION_MAJOR);
}

const char *CPlayback_sdl_library(void) { return sdl_name; }

#define STAND_IN __attribute__((visibility("hidden")))

// The stand-ins. Each is called after its library's load returned NULL; if it did not (a cleanup after a failed
// load, say), it does nothing and fails as FFmpeg or SDL would: a negative error, NULL, or zero.
STAND_IN AVAudioFifo *av_audio_fifo_alloc(enum AVSampleFormat sample_fmt, int channels, int nb_samples) {
    if (!ffmpeg.av_audio_fifo_alloc) return NULL;
    return ffmpeg.av_audio_fifo_alloc(sample_fmt, channels, nb_samples);
}
STAND_IN void av_audio_fifo_free(AVAudioFifo *af) {
    if (!ffmpeg.av_audio_fifo_free) return;
    ffmpeg.av_audio_fifo_free(af);
}
STAND_IN int av_audio_fifo_read(AVAudioFifo *af, void **data, int nb_samples) {
    if (!ffmpeg.av_audio_fifo_read) return AVERROR(ENOSYS);
    return ffmpeg.av_audio_fifo_read(af, data, nb_samples);
}
STAND_IN int av_audio_fifo_size(AVAudioFifo *af) {
    if (!ffmpeg.av_audio_fifo_size) return AVERROR(ENOSYS);
    return ffmpeg.av_audio_fifo_size(af);
}
STAND_IN int av_audio_fifo_write(AVAudioFifo *af, void **data, int nb_samples) {
    if (!ffmpeg.av_audio_fifo_write) return AVERROR(ENOSYS);
    return ffmpeg.av_audio_fifo_write(af, data, nb_samples);
}
STAND_IN int av_channel_layout_copy(AVChannelLayout *dst, const AVChannelLayout *src) {
    if (!ffmpeg.av_channel_layout_copy) return AVERROR(ENOSYS);
    return ffmpeg.av_channel_layout_copy(dst, src);
}
STAND_IN void av_channel_layout_default(AVChannelLayout *ch_layout, int nb_channels) {
    if (!ffmpeg.av_channel_layout_default) return;
    ffmpeg.av_channel_layout_default(ch_layout, nb_channels);
}
STAND_IN void av_channel_layout_uninit(AVChannelLayout *channel_layout) {
    if (!ffmpeg.av_channel_layout_uninit) return;
    ffmpeg.av_channel_layout_uninit(channel_layout);
}
STAND_IN void av_dict_free(AVDictionary **m) {
    if (!ffmpeg.av_dict_free) return;
    ffmpeg.av_dict_free(m);
}
STAND_IN AVDictionaryEntry *av_dict_get(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags) {
    if (!ffmpeg.av_dict_get) return NULL;
    return ffmpeg.av_dict_get(m, key, prev, flags);
}
STAND_IN int av_dict_set(AVDictionary **pm, const char *key, const char *value, int flags) {
    if (!ffmpeg.av_dict_set) return AVERROR(ENOSYS);
    return ffmpeg.av_dict_set(pm, key, value, flags);
}
STAND_IN int av_dynarray_add_nofree(void *tab_ptr, int *nb_ptr, void *elem) {
    if (!ffmpeg.av_dynarray_add_nofree) return AVERROR(ENOSYS);
    return ffmpeg.av_dynarray_add_nofree(tab_ptr, nb_ptr, elem);
}
STAND_IN int av_find_best_stream(AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags) {
    if (!ffmpeg.av_find_best_stream) return AVERROR(ENOSYS);
    return ffmpeg.av_find_best_stream(ic, type, wanted_stream_nb, related_stream, decoder_ret, flags);
}
STAND_IN AVFrame *av_frame_alloc(void) {
    if (!ffmpeg.av_frame_alloc) return NULL;
    return ffmpeg.av_frame_alloc();
}
STAND_IN void av_frame_free(AVFrame **frame) {
    if (!ffmpeg.av_frame_free) return;
    ffmpeg.av_frame_free(frame);
}
STAND_IN int av_frame_get_buffer(AVFrame *frame, int align) {
    if (!ffmpeg.av_frame_get_buffer) return AVERROR(ENOSYS);
    return ffmpeg.av_frame_get_buffer(frame, align);
}
STAND_IN void av_frame_unref(AVFrame *frame) {
    if (!ffmpeg.av_frame_unref) return;
    ffmpeg.av_frame_unref(frame);
}
STAND_IN void av_free(void *ptr) {
    if (!ffmpeg.av_free) return;
    ffmpeg.av_free(ptr);
}
STAND_IN void av_freep(void *ptr) {
    if (!ffmpeg.av_freep) return;
    ffmpeg.av_freep(ptr);
}
STAND_IN void av_log_set_level(int level) {
    if (!ffmpeg.av_log_set_level) return;
    ffmpeg.av_log_set_level(level);
}
STAND_IN void *av_mallocz(size_t size) {
    if (!ffmpeg.av_mallocz) return NULL;
    return ffmpeg.av_mallocz(size);
}
STAND_IN AVPacket *av_packet_alloc(void) {
    if (!ffmpeg.av_packet_alloc) return NULL;
    return ffmpeg.av_packet_alloc();
}
STAND_IN void av_packet_free(AVPacket **pkt) {
    if (!ffmpeg.av_packet_free) return;
    ffmpeg.av_packet_free(pkt);
}
STAND_IN void av_packet_rescale_ts(AVPacket *pkt, AVRational tb_src, AVRational tb_dst) {
    if (!ffmpeg.av_packet_rescale_ts) return;
    ffmpeg.av_packet_rescale_ts(pkt, tb_src, tb_dst);
}
STAND_IN void av_packet_unref(AVPacket *pkt) {
    if (!ffmpeg.av_packet_unref) return;
    ffmpeg.av_packet_unref(pkt);
}
STAND_IN int av_read_frame(AVFormatContext *s, AVPacket *pkt) {
    if (!ffmpeg.av_read_frame) return AVERROR(ENOSYS);
    return ffmpeg.av_read_frame(s, pkt);
}
STAND_IN int av_samples_alloc_array_and_samples(uint8_t ***audio_data, int *linesize, int nb_channels, int nb_samples, enum AVSampleFormat sample_fmt, int align) {
    if (!ffmpeg.av_samples_alloc_array_and_samples) return AVERROR(ENOSYS);
    return ffmpeg.av_samples_alloc_array_and_samples(audio_data, linesize, nb_channels, nb_samples, sample_fmt, align);
}
STAND_IN int av_seek_frame(AVFormatContext *s, int stream_index, int64_t timestamp, int flags) {
    if (!ffmpeg.av_seek_frame) return AVERROR(ENOSYS);
    return ffmpeg.av_seek_frame(s, stream_index, timestamp, flags);
}
STAND_IN int av_strerror(int errnum, char *errbuf, size_t errbuf_size) {
    if (!ffmpeg.av_strerror) return AVERROR(ENOSYS);
    return ffmpeg.av_strerror(errnum, errbuf, errbuf_size);
}
STAND_IN int av_write_frame(AVFormatContext *s, AVPacket *pkt) {
    if (!ffmpeg.av_write_frame) return AVERROR(ENOSYS);
    return ffmpeg.av_write_frame(s, pkt);
}
STAND_IN int av_write_trailer(AVFormatContext *s) {
    if (!ffmpeg.av_write_trailer) return AVERROR(ENOSYS);
    return ffmpeg.av_write_trailer(s);
}
STAND_IN int swr_alloc_set_opts2(struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx) {
    if (!ffmpeg.swr_alloc_set_opts2) return AVERROR(ENOSYS);
    return ffmpeg.swr_alloc_set_opts2(ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, log_offset, log_ctx);
}
STAND_IN int swr_convert(struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in , int in_count) {
    if (!ffmpeg.swr_convert) return AVERROR(ENOSYS);
    return ffmpeg.swr_convert(s, out, out_count, in, in_count);
}
STAND_IN void swr_free(struct SwrContext **s) {
    if (!ffmpeg.swr_free) return;
    ffmpeg.swr_free(s);
}
STAND_IN int64_t swr_get_delay(struct SwrContext *s, int64_t base) {
    if (!ffmpeg.swr_get_delay) return AVERROR(ENOSYS);
    return ffmpeg.swr_get_delay(s, base);
}
STAND_IN int swr_get_out_samples(struct SwrContext *s, int in_samples) {
    if (!ffmpeg.swr_get_out_samples) return AVERROR(ENOSYS);
    return ffmpeg.swr_get_out_samples(s, in_samples);
}
STAND_IN int swr_init(struct SwrContext *s) {
    if (!ffmpeg.swr_init) return AVERROR(ENOSYS);
    return ffmpeg.swr_init(s);
}
STAND_IN AVCodecContext *avcodec_alloc_context3(const AVCodec *codec) {
    if (!ffmpeg.avcodec_alloc_context3) return NULL;
    return ffmpeg.avcodec_alloc_context3(codec);
}
STAND_IN const AVCodec *avcodec_find_decoder(enum AVCodecID id) {
    if (!ffmpeg.avcodec_find_decoder) return NULL;
    return ffmpeg.avcodec_find_decoder(id);
}
STAND_IN const AVCodec *avcodec_find_encoder(enum AVCodecID id) {
    if (!ffmpeg.avcodec_find_encoder) return NULL;
    return ffmpeg.avcodec_find_encoder(id);
}
STAND_IN void avcodec_flush_buffers(AVCodecContext *avctx) {
    if (!ffmpeg.avcodec_flush_buffers) return;
    ffmpeg.avcodec_flush_buffers(avctx);
}
STAND_IN void avcodec_free_context(AVCodecContext **avctx) {
    if (!ffmpeg.avcodec_free_context) return;
    ffmpeg.avcodec_free_context(avctx);
}
STAND_IN int avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options) {
    if (!ffmpeg.avcodec_open2) return AVERROR(ENOSYS);
    return ffmpeg.avcodec_open2(avctx, codec, options);
}
STAND_IN int avcodec_parameters_copy(AVCodecParameters *dst, const AVCodecParameters *src) {
    if (!ffmpeg.avcodec_parameters_copy) return AVERROR(ENOSYS);
    return ffmpeg.avcodec_parameters_copy(dst, src);
}
STAND_IN int avcodec_parameters_from_context(AVCodecParameters *par, const AVCodecContext *codec) {
    if (!ffmpeg.avcodec_parameters_from_context) return AVERROR(ENOSYS);
    return ffmpeg.avcodec_parameters_from_context(par, codec);
}
STAND_IN int avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par) {
    if (!ffmpeg.avcodec_parameters_to_context) return AVERROR(ENOSYS);
    return ffmpeg.avcodec_parameters_to_context(codec, par);
}
STAND_IN int avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame) {
    if (!ffmpeg.avcodec_receive_frame) return AVERROR(ENOSYS);
    return ffmpeg.avcodec_receive_frame(avctx, frame);
}
STAND_IN int avcodec_receive_packet(AVCodecContext *avctx, AVPacket *avpkt) {
    if (!ffmpeg.avcodec_receive_packet) return AVERROR(ENOSYS);
    return ffmpeg.avcodec_receive_packet(avctx, avpkt);
}
STAND_IN int avcodec_send_frame(AVCodecContext *avctx, const AVFrame *frame) {
    if (!ffmpeg.avcodec_send_frame) return AVERROR(ENOSYS);
    return ffmpeg.avcodec_send_frame(avctx, frame);
}
STAND_IN int avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt) {
    if (!ffmpeg.avcodec_send_packet) return AVERROR(ENOSYS);
    return ffmpeg.avcodec_send_packet(avctx, avpkt);
}
STAND_IN int avformat_alloc_output_context2(AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename) {
    if (!ffmpeg.avformat_alloc_output_context2) return AVERROR(ENOSYS);
    return ffmpeg.avformat_alloc_output_context2(ctx, oformat, format_name, filename);
}
STAND_IN void avformat_close_input(AVFormatContext **s) {
    if (!ffmpeg.avformat_close_input) return;
    ffmpeg.avformat_close_input(s);
}
STAND_IN int avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options) {
    if (!ffmpeg.avformat_find_stream_info) return AVERROR(ENOSYS);
    return ffmpeg.avformat_find_stream_info(ic, options);
}
STAND_IN void avformat_free_context(AVFormatContext *s) {
    if (!ffmpeg.avformat_free_context) return;
    ffmpeg.avformat_free_context(s);
}
STAND_IN AVStream *avformat_new_stream(AVFormatContext *s, const AVCodec *c) {
    if (!ffmpeg.avformat_new_stream) return NULL;
    return ffmpeg.avformat_new_stream(s, c);
}
STAND_IN int avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options) {
    if (!ffmpeg.avformat_open_input) return AVERROR(ENOSYS);
    return ffmpeg.avformat_open_input(ps, url, fmt, options);
}
STAND_IN int avformat_write_header(AVFormatContext *s, AVDictionary **options) {
    if (!ffmpeg.avformat_write_header) return AVERROR(ENOSYS);
    return ffmpeg.avformat_write_header(s, options);
}
STAND_IN int avio_closep(AVIOContext **s) {
    if (!ffmpeg.avio_closep) return AVERROR(ENOSYS);
    return ffmpeg.avio_closep(s);
}
STAND_IN int avio_open(AVIOContext **s, const char *url, int flags) {
    if (!ffmpeg.avio_open) return AVERROR(ENOSYS);
    return ffmpeg.avio_open(s, url, flags);
}

STAND_IN void SDL_ClearQueuedAudio(SDL_AudioDeviceID dev) {
    if (!sdl.SDL_ClearQueuedAudio) return;
    sdl.SDL_ClearQueuedAudio(dev);
}
STAND_IN void SDL_CloseAudioDevice(SDL_AudioDeviceID dev) {
    if (!sdl.SDL_CloseAudioDevice) return;
    sdl.SDL_CloseAudioDevice(dev);
}
STAND_IN SDL_AudioStatus SDL_GetAudioDeviceStatus(SDL_AudioDeviceID dev) {
    if (!sdl.SDL_GetAudioDeviceStatus) return SDL_AUDIO_STOPPED;
    return sdl.SDL_GetAudioDeviceStatus(dev);
}
STAND_IN const char *SDL_GetError(void) {
    if (!sdl.SDL_GetError) return "SDL2 is not loaded";
    return sdl.SDL_GetError();
}
STAND_IN Uint32 SDL_GetQueuedAudioSize(SDL_AudioDeviceID dev) {
    if (!sdl.SDL_GetQueuedAudioSize) return 0;
    return sdl.SDL_GetQueuedAudioSize(dev);
}
STAND_IN int SDL_InitSubSystem(Uint32 flags) {
    if (!sdl.SDL_InitSubSystem) return AVERROR(ENOSYS);
    return sdl.SDL_InitSubSystem(flags);
}
STAND_IN SDL_AudioDeviceID SDL_OpenAudioDevice(const char *device, int iscapture, const SDL_AudioSpec *desired, SDL_AudioSpec *obtained, int allowed_changes) {
    if (!sdl.SDL_OpenAudioDevice) return 0;
    return sdl.SDL_OpenAudioDevice(device, iscapture, desired, obtained, allowed_changes);
}
STAND_IN void SDL_PauseAudioDevice(SDL_AudioDeviceID dev, int pause_on) {
    if (!sdl.SDL_PauseAudioDevice) return;
    sdl.SDL_PauseAudioDevice(dev, pause_on);
}
STAND_IN int SDL_QueueAudio(SDL_AudioDeviceID dev, const void *data, Uint32 len) {
    if (!sdl.SDL_QueueAudio) return AVERROR(ENOSYS);
    return sdl.SDL_QueueAudio(dev, data, len);
}
STAND_IN void SDL_QuitSubSystem(Uint32 flags) {
    if (!sdl.SDL_QuitSubSystem) return;
    sdl.SDL_QuitSubSystem(flags);
}
STAND_IN void SDL_SetMainReady(void) {
    if (!sdl.SDL_SetMainReady) return;
    sdl.SDL_SetMainReady();
}
STAND_IN SDL_bool SDL_SetHint(const char *name, const char *value) {
    if (!sdl.SDL_SetHint) return SDL_FALSE;
    return sdl.SDL_SetHint(name, value);
}
