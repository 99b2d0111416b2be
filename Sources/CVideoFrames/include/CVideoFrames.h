// The video still decoder of MediaAssetsVideo: FFmpeg's libavformat, libavcodec, libavutil and libswscale,
// loaded at run time with dlopen/dlsym (their -dev headers are not on a user's machine). The few structure
// fields read are located by offsets per major version (FFmpeg 5, 6 and 7: libavformat 59, 60 and 61), taken
// from the headers of those releases; every other access goes through FFmpeg's functions.
#ifndef CVIDEOFRAMES_H
#define CVIDEOFRAMES_H

#include <stddef.h>
#include <stdint.h>

/// A loaded set of FFmpeg libraries (opaque).
typedef struct ma_ff_library ma_ff_library;

/// Loads the four libraries by file name (a soname or a path) and checks that libavformat's major version is
/// `avformat_major` (59, 60 or 61). Returns NULL with `reason` filled when a library, a function or the version
/// is missing. A library that loaded is kept for the life of the process, with its log silenced and its largest
/// single allocation capped at 64 MiB (`av_max_alloc`, process-wide).
ma_ff_library *ma_ff_load(
    const char *avformat, const char *avcodec, const char *avutil, const char *swscale, int avformat_major,
    char *reason, size_t reason_size);

/// libavformat's version as FFmpeg packs it (major << 16 | minor << 8 | micro).
unsigned ma_ff_avformat_version(const ma_ff_library *library);

/// Reads up to `size` bytes at the current position into `buffer`: the count read, 0 at the end, or a negative
/// value for a failure (which ends the decode with MA_FF_READ_FAILED).
typedef int (*ma_ff_read_fn)(void *opaque, uint8_t *buffer, int size);
/// Moves to `offset` (`whence` 0: from the start, 1: from the current position, 2: from the end), returning
/// the new position, or with `whence` 0x10000 (AVSEEK_SIZE) the total size; negative on failure.
typedef int64_t (*ma_ff_seek_fn)(void *opaque, int64_t offset, int whence);

/// What to decode.
typedef struct {
    /// The time of the frame, in seconds from the start of the video (ignored when `fraction` ≥ 0).
    double seconds;
    /// A fraction of the duration (0 to 1), or a negative value to use `seconds`.
    double fraction;
    /// 1: the first frame at or after the time; 0: the keyframe at or before it (no frames decoded past it).
    int exact;
    /// The box the frame is scaled to fit (keeping its aspect ratio, never enlarged); 0 means no bound.
    int max_width;
    int max_height;
    /// Videos whose coded width times height exceeds this are refused before anything is decoded.
    int64_t max_source_pixels;
    /// The size of the buffer the demuxer reads through.
    int io_buffer_size;
} ma_ff_frame_request;

/// A decoded, scaled frame: straight RGBA8 rows without padding (`width * 4` bytes each), freed with
/// `ma_ff_frame_free`.
typedef struct {
    uint8_t *rgba;
    int width;
    int height;
    int source_width;
    int source_height;
    /// The frame's presentation time, in seconds.
    double seconds;
    /// The video's duration in seconds, or a negative value when the container does not say.
    double duration;
} ma_ff_frame;

enum {
    MA_FF_OK = 0,
    /// The container could not be read (the message says why).
    MA_FF_UNREADABLE = 1,
    /// The container has no video stream, or no decoder for it.
    MA_FF_NO_VIDEO = 2,
    /// The video is larger than `max_source_pixels`.
    MA_FF_TOO_LARGE = 3,
    /// No frame could be decoded at or after the time.
    MA_FF_NO_FRAME = 4,
    /// The read callback failed.
    MA_FF_READ_FAILED = 5,
    /// FFmpeg could not allocate memory.
    MA_FF_OUT_OF_MEMORY = 6,
    /// The duration is unknown, so a fraction of it cannot be found.
    MA_FF_NO_DURATION = 7,
};

/// Demuxes through `read`/`seek` and decodes one frame. Returns an MA_FF_ code; on failure `message` says why.
int ma_ff_decode_frame(
    const ma_ff_library *library, void *opaque, ma_ff_read_fn read, ma_ff_seek_fn seek,
    const ma_ff_frame_request *request, ma_ff_frame *frame, char *message, size_t message_size);

/// Demuxes through `read`/`seek` from the start until the video stream reaches `seconds` (or the file ends),
/// decoding nothing: the bytes this reads are those a player needs to start and play that long. `reached` is set
/// to the seconds of video read. Returns an MA_FF_ code; on failure `message` says why.
int ma_ff_scan(
    const ma_ff_library *library, void *opaque, ma_ff_read_fn read, ma_ff_seek_fn seek, double seconds,
    int io_buffer_size, double *reached, char *message, size_t message_size);

/// Frees a frame's pixels.
void ma_ff_frame_free(ma_ff_frame *frame);

#endif
