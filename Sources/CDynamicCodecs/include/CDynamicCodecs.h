// Declarations of the few entry points MediaAssetsImage loads at run time with dlopen/dlsym from libwebp.so.7,
// libwebpdemux.so.2, libgif.so.7 and libheif.so.1. Their -dev packages (headers) are not installed on a user's
// machine, so the signatures and struct layouts are restated here, copied from and checked against the headers
// of the Debian 12 packages: libwebp 1.2.4 (decoder ABI 0x0209, demux ABI 0x0107), giflib 5.2.1, libheif 1.15.1.
// Only function pointer types are declared: nothing here is linked, so the package builds without the libraries.
// Every type carries the `ma_` prefix so it never clashes with the real headers if they are installed.
#ifndef CDYNAMICCODECS_H
#define CDYNAMICCODECS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// MARK: - libwebp (webp/decode.h, webp/encode.h, webp/types.h)

/// WEBP_DECODER_ABI_VERSION of libwebp 1.2.4; the major byte must match the installed library's.
#define MA_WEBP_DECODER_ABI_VERSION 0x0209
/// WEBP_DEMUX_ABI_VERSION of libwebp 1.2.4.
#define MA_WEBP_DEMUX_ABI_VERSION 0x0107

/// struct WebPBitstreamFeatures.
typedef struct {
    int width;
    int height;
    int has_alpha;
    int has_animation;
    int format;  // 0 mixed/undefined, 1 lossy, 2 lossless
    uint32_t pad[5];
} ma_webp_bitstream_features;

/// VP8StatusCode: 0 is VP8_STATUS_OK.
typedef int ma_webp_status;

/// WebPGetFeaturesInternal(data, size, features, version).
typedef ma_webp_status (*ma_webp_get_features_fn)(const uint8_t *, size_t, ma_webp_bitstream_features *, int);
/// WebPDecodeRGBAInto(data, size, output, output_size, stride): straight RGBA, NULL on failure.
typedef uint8_t *(*ma_webp_decode_rgba_into_fn)(const uint8_t *, size_t, uint8_t *, size_t, int);
/// WebPEncodeRGBA(rgba, width, height, stride, quality, &output) and WebPEncodeLosslessRGBA (no quality).
typedef size_t (*ma_webp_encode_rgba_fn)(const uint8_t *, int, int, int, float, uint8_t **);
typedef size_t (*ma_webp_encode_lossless_rgba_fn)(const uint8_t *, int, int, int, uint8_t **);
/// WebPGetDecoderVersion(): 0xMMmmrr (1.2.4 is 0x010204).
typedef int (*ma_webp_get_version_fn)(void);
/// WebPFree(pointer).
typedef void (*ma_webp_free_fn)(void *);

/// struct WebPRGBABuffer: the RGBA view of struct WebPDecBuffer's union.
typedef struct {
    uint8_t *rgba;
    int stride;
    size_t size;
} ma_webp_rgba_buffer;

/// struct WebPYUVABuffer: the union's larger member, declared so the union has libwebp's size.
typedef struct {
    uint8_t *y, *u, *v, *a;
    int y_stride;
    int u_stride, v_stride;
    int a_stride;
    size_t y_size;
    size_t u_size, v_size;
    size_t a_size;
} ma_webp_yuva_buffer;

/// struct WebPDecBuffer.
typedef struct {
    int colorspace;  // WEBP_CSP_MODE
    int width, height;
    int is_external_memory;
    union {
        ma_webp_rgba_buffer RGBA;
        ma_webp_yuva_buffer YUVA;
    } u;
    uint32_t pad[4];
    uint8_t *private_memory;
} ma_webp_dec_buffer;

/// struct WebPDecoderOptions: cropping is applied first (its origin snapped to even values), then scaling.
typedef struct {
    int bypass_filtering;
    int no_fancy_upsampling;
    int use_cropping;
    int crop_left, crop_top;
    int crop_width, crop_height;
    int use_scaling;
    int scaled_width, scaled_height;
    int use_threads;
    int dithering_strength;
    int flip;
    int alpha_dithering_strength;
    uint32_t pad[5];
} ma_webp_decoder_options;

/// struct WebPDecoderConfig.
typedef struct {
    ma_webp_bitstream_features input;
    ma_webp_dec_buffer output;
    ma_webp_decoder_options options;
} ma_webp_decoder_config;

/// WebPInitDecoderConfigInternal(config, version): nonzero on success.
typedef int (*ma_webp_init_decoder_config_fn)(ma_webp_decoder_config *, int);
/// WebPDecode(data, size, config): a VP8StatusCode (7 is VP8_STATUS_NOT_ENOUGH_DATA).
typedef ma_webp_status (*ma_webp_decode_fn)(const uint8_t *, size_t, ma_webp_decoder_config *);
/// WebPFreeDecBuffer(buffer): releases memory libwebp allocated for the output (none when external).
typedef void (*ma_webp_free_dec_buffer_fn)(ma_webp_dec_buffer *);

// MARK: - libwebpdemux (webp/demux.h, webp/mux_types.h)

/// struct WebPData.
typedef struct {
    const uint8_t *bytes;
    size_t size;
} ma_webp_data;

/// WEBP_CSP_MODE values the animation decoder accepts; MODE_rgbA is premultiplied RGBA.
#define MA_WEBP_MODE_RGBA 1
#define MA_WEBP_MODE_PREMULTIPLIED_RGBA 7

/// WebPFormatFeature.
#define MA_WEBP_FF_CANVAS_WIDTH 1
#define MA_WEBP_FF_CANVAS_HEIGHT 2
#define MA_WEBP_FF_LOOP_COUNT 3
#define MA_WEBP_FF_FRAME_COUNT 5

/// struct WebPAnimDecoderOptions.
typedef struct {
    int color_mode;  // WEBP_CSP_MODE
    int use_threads;
    uint32_t padding[7];
} ma_webp_anim_decoder_options;

/// struct WebPAnimInfo.
typedef struct {
    uint32_t canvas_width;
    uint32_t canvas_height;
    uint32_t loop_count;
    uint32_t bgcolor;
    uint32_t frame_count;
    uint32_t pad[4];
} ma_webp_anim_info;

/// WebPDemuxInternal(data, allow_partial, state, version), WebPDemuxGetI(demux, feature), WebPDemuxDelete.
typedef void *(*ma_webp_demux_fn)(const ma_webp_data *, int, int *, int);
typedef uint32_t (*ma_webp_demux_get_fn)(const void *, int);
typedef void (*ma_webp_demux_delete_fn)(void *);
/// WebPAnimDecoderOptionsInitInternal(options, version): nonzero on success.
typedef int (*ma_webp_anim_options_init_fn)(ma_webp_anim_decoder_options *, int);
/// WebPAnimDecoderNewInternal(data, options, version): NULL on a parse error.
typedef void *(*ma_webp_anim_decoder_new_fn)(const ma_webp_data *, const ma_webp_anim_decoder_options *, int);
/// WebPAnimDecoderGetInfo(decoder, info): nonzero on success.
typedef int (*ma_webp_anim_get_info_fn)(const void *, ma_webp_anim_info *);
/// WebPAnimDecoderGetNext(decoder, &canvas, &timestamp_ms): nonzero on success; the canvas is the decoder's.
typedef int (*ma_webp_anim_get_next_fn)(void *, uint8_t **, int *);
/// WebPAnimDecoderDelete(decoder).
typedef void (*ma_webp_anim_delete_fn)(void *);

// MARK: - giflib 5.2 (gif_lib.h)

typedef struct {
    uint8_t Red, Green, Blue;
} ma_gif_color;

/// ColorMapObject.
typedef struct {
    int ColorCount;
    int BitsPerPixel;
    bool SortFlag;
    ma_gif_color *Colors;
} ma_gif_color_map;

/// GifImageDesc.
typedef struct {
    int Left, Top, Width, Height;
    bool Interlace;
    ma_gif_color_map *ColorMap;
} ma_gif_image_desc;

/// GifFileType (only read up to `UserData`; the rest is the library's).
typedef struct {
    int SWidth, SHeight;
    int SColorResolution;
    int SBackGroundColor;
    uint8_t AspectByte;
    ma_gif_color_map *SColorMap;
    int ImageCount;
    ma_gif_image_desc Image;
    void *SavedImages;
    int ExtensionBlockCount;
    void *ExtensionBlocks;
    int Error;
    void *UserData;
    void *Private;
} ma_gif_file;

/// GraphicsControlBlock.
typedef struct {
    int DisposalMode;  // 0 unspecified, 1 keep, 2 background, 3 previous
    bool UserInputFlag;
    int DelayTime;         // hundredths of a second
    int TransparentColor;  // palette index, -1 when none
} ma_gif_graphics_control;

/// GifRecordType.
#define MA_GIF_RECORD_IMAGE 2
#define MA_GIF_RECORD_EXTENSION 3
#define MA_GIF_RECORD_TERMINATE 4
#define MA_GIF_ERROR 0
#define MA_GIF_OK 1

/// InputFunc / OutputFunc: read or write `length` bytes, returning the count moved.
typedef int (*ma_gif_input_fn)(ma_gif_file *, uint8_t *, int);
typedef int (*ma_gif_output_fn)(ma_gif_file *, const uint8_t *, int);

typedef ma_gif_file *(*ma_gif_open_fn)(void *, ma_gif_input_fn, int *);
typedef int (*ma_gif_close_fn)(ma_gif_file *, int *);
typedef int (*ma_gif_get_record_type_fn)(ma_gif_file *, int *);
typedef int (*ma_gif_get_image_desc_fn)(ma_gif_file *);
typedef int (*ma_gif_get_line_fn)(ma_gif_file *, uint8_t *, int);
typedef int (*ma_gif_get_extension_fn)(ma_gif_file *, int *, uint8_t **);
typedef int (*ma_gif_get_extension_next_fn)(ma_gif_file *, uint8_t **);
/// DGifGetCode / DGifGetCodeNext: skip an image's compressed data (a frame with no pixels).
typedef int (*ma_gif_get_code_fn)(ma_gif_file *, int *, uint8_t **);
typedef int (*ma_gif_get_code_next_fn)(ma_gif_file *, uint8_t **);
typedef int (*ma_gif_extension_to_gcb_fn)(size_t, const uint8_t *, ma_gif_graphics_control *);
typedef const char *(*ma_gif_error_string_fn)(int);

/// The writer, used by tests to generate fixtures through giflib.
typedef ma_gif_file *(*ma_gif_egif_open_fn)(void *, ma_gif_output_fn, int *);
typedef int (*ma_gif_put_screen_desc_fn)(ma_gif_file *, int, int, int, int, const ma_gif_color_map *);
typedef int (*ma_gif_put_image_desc_fn)(ma_gif_file *, int, int, int, int, bool, const ma_gif_color_map *);
typedef int (*ma_gif_put_line_fn)(ma_gif_file *, uint8_t *, int);
typedef int (*ma_gif_put_extension_fn)(ma_gif_file *, int, int, const void *);
typedef int (*ma_gif_egif_close_fn)(ma_gif_file *, int *);
typedef void (*ma_gif_set_version_fn)(ma_gif_file *, bool);
typedef int (*ma_gif_put_extension_leader_fn)(ma_gif_file *, int);
typedef int (*ma_gif_put_extension_block_fn)(ma_gif_file *, int, const void *);
typedef int (*ma_gif_put_extension_trailer_fn)(ma_gif_file *);
typedef ma_gif_color_map *(*ma_gif_make_map_fn)(int, const ma_gif_color *);
typedef void (*ma_gif_free_map_fn)(ma_gif_color_map *);

// MARK: - libheif 1.15 (libheif/heif.h)

/// struct heif_error, returned by value.
typedef struct {
    int code;  // 0 is heif_error_Ok
    int subcode;
    const char *message;
} ma_heif_error;

#define MA_HEIF_COLORSPACE_RGB 1
#define MA_HEIF_CHROMA_INTERLEAVED_RGB 10
#define MA_HEIF_CHROMA_INTERLEAVED_RGBA 11
#define MA_HEIF_CHANNEL_INTERLEAVED 10
#define MA_HEIF_COMPRESSION_HEVC 1
#define MA_HEIF_COMPRESSION_AV1 4

/// struct heif_encoding_options up to version 5 (allocated by the library; only `image_orientation` is set).
typedef struct {
    uint8_t version;
    uint8_t save_alpha_channel;
    uint8_t macOS_compatibility_workaround;
    uint8_t save_two_colr_boxes_when_ICC_and_nclx_available;
    void *output_nclx_profile;
    uint8_t macOS_compatibility_workaround_no_nclx_profile;
    int image_orientation;  // enum heif_orientation, 1...8 as EXIF
} ma_heif_encoding_options;

/// heif_init(params): registers the built-in plugins; NULL params take the defaults.
typedef ma_heif_error (*ma_heif_init_fn)(const void *);
/// heif_get_version_number_major() / _minor().
typedef int (*ma_heif_get_version_part_fn)(void);
typedef void *(*ma_heif_context_alloc_fn)(void);
typedef void (*ma_heif_context_free_fn)(void *);
typedef ma_heif_error (*ma_heif_read_from_memory_fn)(void *, const void *, size_t, const void *);
typedef ma_heif_error (*ma_heif_get_primary_handle_fn)(void *, void **);
typedef void (*ma_heif_handle_release_fn)(const void *);
typedef int (*ma_heif_handle_get_int_fn)(const void *);
typedef ma_heif_error (*ma_heif_decode_image_fn)(const void *, void **, int, int, const void *);
/// heif_image_handle_get_list_of_thumbnail_IDs(handle, ids, count): the number of ids written.
typedef int (*ma_heif_handle_get_thumbnail_ids_fn)(const void *, uint32_t *, int);
/// heif_image_handle_get_thumbnail(handle, id, &thumbnail_handle).
typedef ma_heif_error (*ma_heif_handle_get_thumbnail_fn)(const void *, uint32_t, void **);
/// heif_context_assign_thumbnail(context, master_handle, thumbnail_handle): marks an encoded image as the
/// other's thumbnail (a `thmb` reference).
typedef ma_heif_error (*ma_heif_assign_thumbnail_fn)(void *, const void *, const void *);
/// heif_encoder_set_parameter_string(encoder, name, value): x265's "preset", for example.
typedef ma_heif_error (*ma_heif_encoder_set_parameter_string_fn)(void *, const char *, const char *);
typedef int (*ma_heif_image_get_width_fn)(const void *, int);
typedef const uint8_t *(*ma_heif_image_get_plane_readonly_fn)(const void *, int, int *);
typedef void (*ma_heif_image_release_fn)(const void *);
/// heif_context_debug_dump_boxes_to_file(context, fd): libheif's own reading of the boxes, as text, written to fd.
typedef void (*ma_heif_context_dump_boxes_fn)(void *, int);
/// heif_context_set_maximum_image_size_limit(context, limit): a derived (grid or overlay) image whose width or
/// height is at least `limit` is refused before its pixels are allocated.
typedef void (*ma_heif_context_set_size_limit_fn)(void *, int);

/// The encoder: AVIF output (AVIFEncoder), and the HEIC and AVIF fixtures of tests and benchmarks.
typedef struct {
    int writer_api_version;
    ma_heif_error (*write)(void *, const void *, size_t, void *);
} ma_heif_writer;

typedef ma_heif_error (*ma_heif_get_encoder_fn)(void *, int, void **);
typedef void (*ma_heif_encoder_release_fn)(void *);
typedef ma_heif_error (*ma_heif_encoder_set_int_fn)(void *, int);
typedef ma_heif_error (*ma_heif_image_create_fn)(int, int, int, int, void **);
typedef ma_heif_error (*ma_heif_image_add_plane_fn)(void *, int, int, int, int);
typedef uint8_t *(*ma_heif_image_get_plane_fn)(void *, int, int *);
typedef ma_heif_encoding_options *(*ma_heif_encoding_options_alloc_fn)(void);
typedef void (*ma_heif_encoding_options_free_fn)(ma_heif_encoding_options *);
typedef ma_heif_error (*ma_heif_encode_image_fn)(void *, const void *, void *, const ma_heif_encoding_options *,
                                                 void **);
typedef ma_heif_error (*ma_heif_context_write_fn)(void *, ma_heif_writer *, void *);
/// heif_have_encoder_for_format(compression): non-zero when the build has an encoder plugin for it.
typedef int (*ma_heif_have_encoder_for_format_fn)(int);

#endif
