#include "CVideoFrames.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: - FFmpeg's declarations, restated (types are opaque; only the fields below are read)

typedef struct { int num; int den; } ma_rational;

#define MA_AVSEEK_FLAG_BACKWARD 1
#define MA_AVSEEK_FLAG_BYTE 2
#define MA_AVMEDIA_TYPE_VIDEO 0
#define MA_AVDISCARD_ALL 48
#define MA_AV_PIX_FMT_RGBA 26
#define MA_SWS_AREA 0x20
#define MA_SWS_ACCURATE_RND 0x40000
#define MA_AV_LOG_QUIET (-8)
#define MA_MAX_ALLOCATION ((size_t)64 << 20)
#define MA_AV_NOPTS_VALUE ((int64_t)UINT64_C(0x8000000000000000))

// Field offsets that differ between major versions, from the headers of FFmpeg 5.1, 6.1 and 7.1 and checked
// against their libraries: libavformat 60 put `av_class` and `codecpar` at the head of AVStream; libavformat 61
// added stream groups to AVFormatContext before `duration`; libavcodec 61 added coded side data to
// AVCodecParameters before `width`. The first fields of AVFormatContext, AVPacket and AVFrame read here have
// not moved.
typedef struct {
    size_t stream_time_base;
    size_t stream_start_time;
    size_t stream_duration;
    size_t stream_discard;
    size_t stream_codecpar;
    size_t format_duration;
    size_t codecpar_width;
    size_t codecpar_height;
} ma_layout;

static const size_t format_pb = 32, format_nb_streams = 44, format_streams = 48;
static const size_t codecpar_codec_type = 0;
static const size_t packet_dts = 16, packet_stream_index = 36;
static const size_t frame_data = 0, frame_linesize = 64, frame_width = 104, frame_height = 108, frame_format = 116,
                    frame_pts = 136;
static const size_t io_buffer = 8;

#define FIELD(type, base, offset) (*(type *)((uint8_t *)(base) + (offset)))

typedef unsigned (*version_fn)(void);
typedef void *(*format_alloc_fn)(void);
typedef int (*open_input_fn)(void **, const char *, const void *, void **);
typedef int (*find_stream_info_fn)(void *, void **);
typedef int (*find_best_stream_fn)(void *, int, int, int, const void **, int);
typedef int (*seek_frame_fn)(void *, int, int64_t, int);
typedef int (*read_frame_fn)(void *, void *);
typedef void (*close_input_fn)(void **);
typedef void *(*avio_alloc_fn)(unsigned char *, int, int, void *, ma_ff_read_fn, void *, ma_ff_seek_fn);
typedef void (*avio_free_fn)(void **);
typedef void *(*codec_alloc_fn)(const void *);
typedef void (*codec_free_fn)(void **);
typedef int (*parameters_to_context_fn)(void *, const void *);
typedef int (*codec_open_fn)(void *, const void *, void **);
typedef int (*send_packet_fn)(void *, const void *);
typedef int (*receive_frame_fn)(void *, void *);
typedef void (*flush_buffers_fn)(void *);
typedef void *(*packet_alloc_fn)(void);
typedef void (*packet_free_fn)(void **);
typedef void (*packet_unref_fn)(void *);
typedef void *(*frame_alloc_fn)(void);
typedef void (*frame_free_fn)(void **);
typedef void (*frame_unref_fn)(void *);
typedef void *(*malloc_fn)(size_t);
typedef void (*free_fn)(void *);
typedef int (*dict_set_fn)(void **, const char *, const char *, int);
typedef void (*dict_free_fn)(void **);
typedef void (*log_set_level_fn)(int);
typedef void (*max_alloc_fn)(size_t);
typedef int (*strerror_fn)(int, char *, size_t);
typedef void *(*sws_get_context_fn)(int, int, int, int, int, int, int, void *, void *, const double *);
typedef int (*sws_scale_fn)(void *, const uint8_t *const[], const int[], int, int, uint8_t *const[], const int[]);
typedef void (*sws_free_fn)(void *);

struct ma_ff_library {
    ma_layout layout;
    version_fn avformat_version;
    format_alloc_fn format_alloc;
    open_input_fn open_input;
    find_stream_info_fn find_stream_info;
    find_best_stream_fn find_best_stream;
    seek_frame_fn seek_frame;
    read_frame_fn read_frame;
    close_input_fn close_input;
    avio_alloc_fn avio_alloc;
    avio_free_fn avio_free;
    codec_alloc_fn codec_alloc;
    codec_free_fn codec_free;
    parameters_to_context_fn parameters_to_context;
    codec_open_fn codec_open;
    send_packet_fn send_packet;
    receive_frame_fn receive_frame;
    flush_buffers_fn flush_buffers;
    packet_alloc_fn packet_alloc;
    packet_free_fn packet_free;
    packet_unref_fn packet_unref;
    frame_alloc_fn frame_alloc;
    frame_free_fn frame_free;
    frame_unref_fn frame_unref;
    malloc_fn av_malloc;
    free_fn av_free;
    dict_set_fn dict_set;
    dict_free_fn dict_free;
    strerror_fn strerror;
    sws_get_context_fn sws_get_context;
    sws_scale_fn sws_scale;
    sws_free_fn sws_free;
};

// MARK: - Loading

static void *open_library(const char *name, char *reason, size_t reason_size) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *error = dlerror();
        snprintf(reason, reason_size, "%s", error ? error : name);
    }
    return handle;
}

#define RESOLVE(handle, field, symbol)                                                                    \
    do {                                                                                                  \
        *(void **)(&library->field) = dlsym(handle, symbol);                                              \
        if (!library->field) {                                                                            \
            snprintf(reason, reason_size, "%s has no %s", #handle, symbol);                                 \
            free(library);                                                                                \
            return NULL;                                                                                  \
        }                                                                                                 \
    } while (0)

ma_ff_library *ma_ff_load(
    const char *avformat_name, const char *avcodec_name, const char *avutil_name, const char *swscale_name,
    int avformat_major, char *reason, size_t reason_size) {
    if (avformat_major < 59 || avformat_major > 61) {
        snprintf(reason, reason_size, "libavformat %d is not one of the versions this build declares (59-61)",
                 avformat_major);
        return NULL;
    }
    void *avutil = open_library(avutil_name, reason, reason_size);
    if (!avutil) return NULL;
    void *avcodec = open_library(avcodec_name, reason, reason_size);
    if (!avcodec) return NULL;
    void *avformat = open_library(avformat_name, reason, reason_size);
    if (!avformat) return NULL;
    void *swscale = open_library(swscale_name, reason, reason_size);
    if (!swscale) return NULL;
    ma_ff_library *library = calloc(1, sizeof(ma_ff_library));
    if (!library) {
        snprintf(reason, reason_size, "out of memory");
        return NULL;
    }
    RESOLVE(avformat, avformat_version, "avformat_version");
    unsigned major = library->avformat_version() >> 16;
    if ((int)major != avformat_major) {
        snprintf(reason, reason_size, "%s is libavformat %u, not %d", avformat_name, major, avformat_major);
        free(library);
        return NULL;
    }
    // Each FFmpeg release bumps libavformat and libavcodec together: 59 with 59, 60 with 60, 61 with 61.
    size_t head = avformat_major >= 60 ? 16 : 0;  // AVStream.av_class and .codecpar moved ahead of time_base
    library->layout.stream_time_base = 16 + head;
    library->layout.stream_start_time = 24 + head;
    library->layout.stream_duration = 32 + head;
    library->layout.stream_discard = 52 + head;
    library->layout.stream_codecpar = avformat_major >= 60 ? 16 : 208;
    library->layout.format_duration = avformat_major >= 61 ? 104 : 72;
    library->layout.codecpar_width = avformat_major >= 61 ? 72 : 56;
    library->layout.codecpar_height = avformat_major >= 61 ? 76 : 60;
    RESOLVE(avformat, format_alloc, "avformat_alloc_context");
    RESOLVE(avformat, open_input, "avformat_open_input");
    RESOLVE(avformat, find_stream_info, "avformat_find_stream_info");
    RESOLVE(avformat, find_best_stream, "av_find_best_stream");
    RESOLVE(avformat, seek_frame, "av_seek_frame");
    RESOLVE(avformat, read_frame, "av_read_frame");
    RESOLVE(avformat, close_input, "avformat_close_input");
    RESOLVE(avformat, avio_alloc, "avio_alloc_context");
    RESOLVE(avformat, avio_free, "avio_context_free");
    RESOLVE(avcodec, codec_alloc, "avcodec_alloc_context3");
    RESOLVE(avcodec, codec_free, "avcodec_free_context");
    RESOLVE(avcodec, parameters_to_context, "avcodec_parameters_to_context");
    RESOLVE(avcodec, codec_open, "avcodec_open2");
    RESOLVE(avcodec, send_packet, "avcodec_send_packet");
    RESOLVE(avcodec, receive_frame, "avcodec_receive_frame");
    RESOLVE(avcodec, flush_buffers, "avcodec_flush_buffers");
    RESOLVE(avcodec, packet_alloc, "av_packet_alloc");
    RESOLVE(avcodec, packet_free, "av_packet_free");
    RESOLVE(avcodec, packet_unref, "av_packet_unref");
    RESOLVE(avutil, frame_alloc, "av_frame_alloc");
    RESOLVE(avutil, frame_free, "av_frame_free");
    RESOLVE(avutil, frame_unref, "av_frame_unref");
    RESOLVE(avutil, av_malloc, "av_malloc");
    RESOLVE(avutil, av_free, "av_free");
    RESOLVE(avutil, dict_set, "av_dict_set");
    RESOLVE(avutil, dict_free, "av_dict_free");
    RESOLVE(avutil, strerror, "av_strerror");
    RESOLVE(swscale, sws_get_context, "sws_getContext");
    RESOLVE(swscale, sws_scale, "sws_scale");
    RESOLVE(swscale, sws_free, "sws_freeContext");
    log_set_level_fn set_level = (log_set_level_fn)dlsym(avutil, "av_log_set_level");
    if (set_level) set_level(MA_AV_LOG_QUIET);  // failures come back as codes, never as lines on stderr
    // A hostile header can ask a demuxer for a table of hundreds of megabytes from a few kilobytes of file:
    // no single allocation of a still's work needs more than an 8K frame's planes.
    max_alloc_fn max_alloc = (max_alloc_fn)dlsym(avutil, "av_max_alloc");
    if (max_alloc) max_alloc(MA_MAX_ALLOCATION);
    return library;
}

unsigned ma_ff_avformat_version(const ma_ff_library *library) { return library->avformat_version(); }

// MARK: - Decoding

typedef struct {
    const ma_ff_library *library;
    void *io;
    void *format;
    void *codec;
    void *packet;
    void *frame;
    void *scaler;
} session;

static void close_session(session *s) {
    const ma_ff_library *l = s->library;
    if (s->scaler) l->sws_free(s->scaler);
    if (s->frame) l->frame_free(&s->frame);
    if (s->packet) l->packet_free(&s->packet);
    if (s->codec) l->codec_free(&s->codec);
    if (s->format) l->close_input(&s->format);
    if (s->io) {
        l->av_free(FIELD(void *, s->io, io_buffer));  // avio may have replaced the buffer it was given
        l->avio_free(&s->io);
    }
}

static int fail(const ma_ff_library *l, int code, int av_error, const char *what, char *message, size_t size) {
    char detail[128] = "";
    if (av_error < 0 && l->strerror(av_error, detail, sizeof detail) < 0) {
        snprintf(detail, sizeof detail, "error %d", av_error);
    }
    snprintf(message, size, "%s%s%s", what, detail[0] ? ": " : "", detail);
    return code;
}

/// Opens the container behind `read`/`seek` into `s` (its I/O context and format context).
static int open_session(session *s, void *opaque, ma_ff_read_fn read, ma_ff_seek_fn seek, int io_buffer_size,
                        char *message, size_t message_size) {
    const ma_ff_library *l = s->library;
    int buffer_size = io_buffer_size > 0 ? io_buffer_size : 32768;
    unsigned char *buffer = l->av_malloc((size_t)buffer_size);
    if (!buffer) return fail(l, MA_FF_OUT_OF_MEMORY, 0, "out of memory", message, message_size);
    s->io = l->avio_alloc(buffer, buffer_size, 0, opaque, read, NULL, seek);
    if (!s->io) {
        l->av_free(buffer);
        return fail(l, MA_FF_OUT_OF_MEMORY, 0, "out of memory", message, message_size);
    }
    s->format = l->format_alloc();
    if (!s->format) return fail(l, MA_FF_OUT_OF_MEMORY, 0, "out of memory", message, message_size);
    FIELD(void *, s->format, format_pb) = s->io;
    int status = l->open_input(&s->format, NULL, NULL, NULL);
    if (status < 0) {  // avformat_open_input frees the context on failure
        s->format = NULL;
        return fail(l, MA_FF_UNREADABLE, status, "the container could not be opened", message, message_size);
    }
    return MA_FF_OK;
}

static double seconds_of(int64_t value, ma_rational base) {
    if (value == MA_AV_NOPTS_VALUE || base.den == 0) return NAN;
    return (double)value * base.num / base.den;
}

/// Scales `source` into a new RGBA buffer fitting the request's box.
static int scale_frame(session *s, const ma_ff_frame_request *request, void *source, ma_ff_frame *out, char *message,
                       size_t message_size) {
    const ma_ff_library *l = s->library;
    int width = FIELD(int, source, frame_width), height = FIELD(int, source, frame_height);
    int format = FIELD(int, source, frame_format);
    double scale = 1;
    if (request->max_width > 0 && width > request->max_width) scale = fmin(scale, (double)request->max_width / width);
    if (request->max_height > 0 && height > request->max_height) {
        scale = fmin(scale, (double)request->max_height / height);
    }
    int out_width = (int)fmax(1, lround(width * scale)), out_height = (int)fmax(1, lround(height * scale));
    s->scaler = l->sws_get_context(width, height, format, out_width, out_height, MA_AV_PIX_FMT_RGBA,
                                   MA_SWS_AREA | MA_SWS_ACCURATE_RND, NULL, NULL, NULL);
    if (!s->scaler) return fail(l, MA_FF_UNREADABLE, 0, "no conversion from the frame's pixel format", message,
                                message_size);
    size_t stride = (size_t)out_width * 4;
    uint8_t *pixels = malloc(stride * (size_t)out_height);
    if (!pixels) return fail(l, MA_FF_OUT_OF_MEMORY, 0, "out of memory", message, message_size);
    uint8_t *destination[4] = {pixels, NULL, NULL, NULL};
    int destination_stride[4] = {(int)stride, 0, 0, 0};
    const uint8_t *const *planes = (const uint8_t *const *)((uint8_t *)source + frame_data);
    const int *strides = (const int *)((uint8_t *)source + frame_linesize);
    if (l->sws_scale(s->scaler, planes, strides, 0, height, destination, destination_stride) != out_height) {
        free(pixels);
        return fail(l, MA_FF_UNREADABLE, 0, "the frame could not be converted", message, message_size);
    }
    out->rgba = pixels;
    out->width = out_width;
    out->height = out_height;
    out->source_width = width;
    out->source_height = height;
    return MA_FF_OK;
}

int ma_ff_decode_frame(const ma_ff_library *l, void *opaque, ma_ff_read_fn read, ma_ff_seek_fn seek,
                       const ma_ff_frame_request *request, ma_ff_frame *out, char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    if (message_size > 0) message[0] = 0;
    session s = {.library = l};
    int status;
    int result = open_session(&s, opaque, read, seek, request->io_buffer_size, message, message_size);
    if (result != MA_FF_OK) goto done;
    const void *decoder = NULL;
    int index = l->find_best_stream(s.format, MA_AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    unsigned stream_count = FIELD(unsigned, s.format, format_nb_streams);
    void **streams = FIELD(void **, s.format, format_streams);
    void *stream = index >= 0 && (unsigned)index < stream_count ? streams[index] : NULL;
    void *parameters = stream ? FIELD(void *, stream, l->layout.stream_codecpar) : NULL;
    if (parameters && (FIELD(int, parameters, l->layout.codecpar_width) <= 0 ||
                       FIELD(int, parameters, l->layout.codecpar_height) <= 0)) {
        // Containers without a header that states the size (MPEG-TS): read a few packets to learn it.
        status = l->find_stream_info(s.format, NULL);
        if (status < 0) {
            result = fail(l, MA_FF_UNREADABLE, status, "the streams could not be read", message, message_size);
            goto done;
        }
        index = l->find_best_stream(s.format, MA_AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
        stream_count = FIELD(unsigned, s.format, format_nb_streams);
        streams = FIELD(void **, s.format, format_streams);
        stream = index >= 0 && (unsigned)index < stream_count ? streams[index] : NULL;
        parameters = stream ? FIELD(void *, stream, l->layout.stream_codecpar) : NULL;
    }
    if (!stream || !parameters || !decoder || FIELD(int, parameters, codecpar_codec_type) != MA_AVMEDIA_TYPE_VIDEO) {
        result = fail(l, MA_FF_NO_VIDEO, index < 0 ? index : 0, "no decodable video stream", message, message_size);
        goto done;
    }
    int64_t width = FIELD(int, parameters, l->layout.codecpar_width);
    int64_t height = FIELD(int, parameters, l->layout.codecpar_height);
    out->source_width = (int)width;
    out->source_height = (int)height;
    if (request->max_source_pixels > 0 && width * height > request->max_source_pixels) {
        snprintf(message, message_size, "%lldx%lld exceeds the limit of %lld pixels", (long long)width,
                 (long long)height, (long long)request->max_source_pixels);
        result = MA_FF_TOO_LARGE;
        goto done;
    }
    for (unsigned i = 0; i < stream_count; i++) {
        if ((int)i != index) FIELD(int, streams[i], l->layout.stream_discard) = MA_AVDISCARD_ALL;
    }
    ma_rational base = FIELD(ma_rational, stream, l->layout.stream_time_base);
    double start = seconds_of(FIELD(int64_t, stream, l->layout.stream_start_time), base);
    if (isnan(start)) start = 0;
    double duration = seconds_of(FIELD(int64_t, stream, l->layout.stream_duration), base);
    if (isnan(duration)) {  // the container's, in microseconds (WebM states no stream duration)
        duration = seconds_of(FIELD(int64_t, s.format, l->layout.format_duration), (ma_rational){1, 1000000});
    }
    out->duration = isnan(duration) ? -1 : duration;
    double target = request->seconds;
    if (request->fraction >= 0) {
        if (isnan(duration)) {
            result = fail(l, MA_FF_NO_DURATION, 0, "the container does not state the duration", message, message_size);
            goto done;
        }
        target = duration * fmin(1, request->fraction);
    }
    if (target < 0 || isnan(target)) target = 0;
    // Times are from the first frame: MPEG-TS streams, for one, start at 1.4 s.
    int64_t target_pts = base.num > 0 ? (int64_t)floor((start + target) * base.den / base.num + 0.5) : 0;
    int64_t start_pts = base.num > 0 ? (int64_t)floor(start * base.den / base.num + 0.5) : 0;

    s.codec = l->codec_alloc(decoder);
    if (!s.codec) {
        result = fail(l, MA_FF_OUT_OF_MEMORY, 0, "out of memory", message, message_size);
        goto done;
    }
    status = l->parameters_to_context(s.codec, parameters);
    if (status >= 0) {
        void *options = NULL;
        l->dict_set(&options, "threads", "1", 0);  // one frame in flight: the least memory and no extra threads
        status = l->codec_open(s.codec, decoder, &options);
        l->dict_free(&options);
    }
    if (status < 0) {
        result = fail(l, MA_FF_NO_VIDEO, status, "the video decoder could not be opened", message, message_size);
        goto done;
    }
    if (target_pts > start_pts) {
        // To the keyframe at or before the time; a container that cannot seek is read from the start.
        (void)l->seek_frame(s.format, index, target_pts, MA_AVSEEK_FLAG_BACKWARD);
    }
    int reseeks = 0;
    s.packet = l->packet_alloc();
    s.frame = l->frame_alloc();
    if (!s.packet || !s.frame) {
        result = fail(l, MA_FF_OUT_OF_MEMORY, 0, "out of memory", message, message_size);
        goto done;
    }
    int have_frame = 0, draining = 0, first_after_seek = 1, pending_flush = 0;
    while (!have_frame) {
        if (!draining) {
            status = l->read_frame(s.format, s.packet);
            if (status < 0) {
                draining = 1;
                l->send_packet(s.codec, NULL);
            } else {
                if (FIELD(int, s.packet, packet_stream_index) == index) {
                    // A damaged packet is skipped, as a player does: its error is not the still's.
                    (void)l->send_packet(s.codec, s.packet);
                }
                l->packet_unref(s.packet);
            }
        }
        while (1) {
            status = l->receive_frame(s.codec, s.frame);
            if (status < 0) break;
            int64_t pts = FIELD(int64_t, s.frame, frame_pts);
            int overshot = first_after_seek && pts != MA_AV_NOPTS_VALUE && pts > target_pts;
            first_after_seek = 0;
            if (request->exact && overshot && reseeks < 2 && target_pts > start_pts) {
                // A seek by bytes (MPEG-TS) landed after the time: start again further back, then from the start.
                // First 10 s further back by time, then from byte 0 (a seek by time may land past it again).
                reseeks += 1;
                int64_t back = target_pts - (int64_t)(10.0 * base.den / base.num);
                l->frame_unref(s.frame);
                int moved = reseeks == 1 && back > start_pts
                                ? l->seek_frame(s.format, index, back, MA_AVSEEK_FLAG_BACKWARD)
                                : l->seek_frame(s.format, index, 0, MA_AVSEEK_FLAG_BYTE);
                if (moved < 0 && l->seek_frame(s.format, index, start_pts, MA_AVSEEK_FLAG_BACKWARD) < 0) reseeks = 2;
                if (reseeks == 1 && back <= start_pts) reseeks = 2;  // already read from the start
                pending_flush = 1;
                break;
            }
            if (!request->exact || pts == MA_AV_NOPTS_VALUE || pts >= target_pts) {
                have_frame = 1;
                break;
            }
            l->frame_unref(s.frame);
        }
        if (pending_flush) {
            l->flush_buffers(s.codec);
            pending_flush = 0;
            first_after_seek = 1;
            draining = 0;
            continue;
        }
        if (!have_frame && draining) {
            if (!request->exact || reseeks >= 2 || target_pts <= start_pts) break;
            // The seek landed past every frame (MPEG-TS seeks by bytes): read again from the start.
            reseeks = 2;
            if (l->seek_frame(s.format, index, 0, MA_AVSEEK_FLAG_BYTE) < 0 &&
                l->seek_frame(s.format, index, start_pts, MA_AVSEEK_FLAG_BACKWARD) < 0) {
                break;
            }
            l->flush_buffers(s.codec);
            first_after_seek = 1;
            draining = 0;
        }
    }
    if (!have_frame) {
        result = fail(l, MA_FF_NO_FRAME, 0, "no frame could be decoded at that time", message, message_size);
        goto done;
    }
    double seconds = seconds_of(FIELD(int64_t, s.frame, frame_pts), base);
    out->seconds = isnan(seconds) ? target : seconds - start;
    result = scale_frame(&s, request, s.frame, out, message, message_size);
done:
    close_session(&s);
    return result;
}

int ma_ff_scan(const ma_ff_library *l, void *opaque, ma_ff_read_fn read, ma_ff_seek_fn seek, double seconds,
               int io_buffer_size, double *reached, char *message, size_t message_size) {
    *reached = 0;
    if (message_size > 0) message[0] = 0;
    session s = {.library = l};
    int result = open_session(&s, opaque, read, seek, io_buffer_size, message, message_size);
    if (result != MA_FF_OK) goto done;
    int index = l->find_best_stream(s.format, MA_AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    unsigned stream_count = FIELD(unsigned, s.format, format_nb_streams);
    void **streams = FIELD(void **, s.format, format_streams);
    if (index < 0 || (unsigned)index >= stream_count) {
        result = fail(l, MA_FF_NO_VIDEO, index, "no video stream", message, message_size);
        goto done;
    }
    void *stream = streams[index];
    ma_rational base = FIELD(ma_rational, stream, l->layout.stream_time_base);
    double start = seconds_of(FIELD(int64_t, stream, l->layout.stream_start_time), base);
    if (isnan(start)) start = 0;
    s.packet = l->packet_alloc();
    if (!s.packet) {
        result = fail(l, MA_FF_OUT_OF_MEMORY, 0, "out of memory", message, message_size);
        goto done;
    }
    // Every stream is read (a player needs the audio beside the video) until the video passes the time.
    while (l->read_frame(s.format, s.packet) >= 0) {
        if (FIELD(int, s.packet, packet_stream_index) == index) {
            double time = seconds_of(FIELD(int64_t, s.packet, packet_dts), base) - start;
            if (!isnan(time) && time > *reached) *reached = time;
        }
        l->packet_unref(s.packet);
        if (*reached >= seconds) break;
    }
done:
    close_session(&s);
    return result;
}

void ma_ff_frame_free(ma_ff_frame *frame) {
    free(frame->rgba);
    frame->rgba = NULL;
}
