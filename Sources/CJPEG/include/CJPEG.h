// A small shim over libjpeg(-turbo) for Swift.
//
// libjpeg reports fatal errors through `error_exit`, whose default calls exit(). Here every entry point sets a
// setjmp target; the error handler longjmps back to it, so a corrupt file becomes a status code and a message
// instead of ending the process. Swift never sees libjpeg's types: only the plain structs below.
#ifndef CJPEG_H
#define CJPEG_H

#include <stddef.h>
#include <stdint.h>

/// What a shim call ended with.
typedef enum {
    CJPEG_OK = 0,
    CJPEG_ERROR_CORRUPT = 1,
    CJPEG_ERROR_TRUNCATED = 2,
    CJPEG_ERROR_UNSUPPORTED = 3,
    CJPEG_ERROR_OUT_OF_MEMORY = 4,
    CJPEG_ERROR_INVALID_ARGUMENT = 5,
    /// An incremental decoder needs more bytes before it can go on (not an error).
    CJPEG_SUSPENDED = 6
} cjpeg_status;

/// The colour space the file's components are stored in.
typedef enum {
    CJPEG_COLOR_OTHER = 0,
    CJPEG_COLOR_GRAY = 1,
    CJPEG_COLOR_RGB = 2,
    CJPEG_COLOR_YCBCR = 3,
    CJPEG_COLOR_CMYK = 4,
    CJPEG_COLOR_YCCK = 5
} cjpeg_color;

/// What the header says, read without decoding any pixels.
typedef struct {
    int width;
    int height;
    int components;
    cjpeg_color color;
    /// 1 when an Adobe APP14 marker is present: CMYK/YCCK samples are then stored inverted (as Photoshop does).
    int adobe_marker;
    /// EXIF orientation 1–8 from the first APP1 "Exif" marker; 1 when absent or unreadable.
    int orientation;
    int progressive;
} cjpeg_header;

typedef struct cjpeg_decoder cjpeg_decoder;

/// Creates a decoder over `size` bytes at `data`, which must stay valid until `cjpeg_decoder_destroy`.
/// Returns NULL when out of memory.
cjpeg_decoder *cjpeg_decoder_create(const uint8_t *data, size_t size);
/// Reads the header (and the EXIF orientation). Call once, first.
cjpeg_status cjpeg_read_header(cjpeg_decoder *decoder, cjpeg_header *header);
/// The output size libjpeg produces at DCT scale `scale_numerator`/8 (1...8). After the header.
cjpeg_status cjpeg_scaled_size(cjpeg_decoder *decoder, int scale_numerator, int *width, int *height);
/// Starts decompressing at scale `scale_numerator`/8 into RGBA; returns the output size.
cjpeg_status cjpeg_start(cjpeg_decoder *decoder, int scale_numerator, int *width, int *height);
/// Decodes every row as opaque RGBA8 into `pixels` (`stride` bytes per row, `capacity` bytes in all).
/// CMYK and YCCK files are converted to RGB here. A file that ends early fails with CJPEG_ERROR_TRUNCATED.
cjpeg_status cjpeg_read_pixels(cjpeg_decoder *decoder, uint8_t *pixels, size_t stride, size_t capacity);
/// Decodes only the `width` × `height` rectangle at (`x`, `y`) of the output (in output pixels, after DCT
/// scaling) as opaque RGBA8 into `pixels` (`stride` bytes per row, `capacity` bytes in all), row 0 of `pixels`
/// being row `y`. libjpeg-turbo's jpeg_crop_scanline leaves out the inverse DCT, upsampling and colour
/// conversion of whole iMCU columns left and right of the rectangle, and jpeg_skip_scanlines those of the rows
/// above it (their entropy-coded data is still read: it has no index). The rows below are entropy-decoded too,
/// and the last one decoded, so a file cut anywhere still fails with CJPEG_ERROR_TRUNCATED. The rectangle must
/// lie inside the output; the whole output takes the same path as `cjpeg_read_pixels`.
cjpeg_status cjpeg_read_region(cjpeg_decoder *decoder, int x, int y, int width, int height,
                               uint8_t *pixels, size_t stride, size_t capacity);
/// Progressive files with more scans than this fail as corrupt (a scan-count bomb guard).
#define CJPEG_DEFAULT_SCAN_LIMIT 1000
/// Changes the scan limit (tests use a small one). Call before `cjpeg_start`.
void cjpeg_decoder_set_scan_limit(cjpeg_decoder *decoder, int limit);
/// Whether a progressive file decoded at a reduced DCT scale leaves out the scans the output does not read
/// (off by default). Each component's reduced inverse DCT reads only the top-left square of its coefficients
/// (the DC alone at 1/8), so a scan that refines none of those changes no output pixel; a refinement scan of a
/// band whose earlier scan was left out is left out too. Before decoding, the rest of the file is walked
/// marker by marker (entropy-coded bytes skipped, not decoded) to EOI: a file cut anywhere still fails with
/// CJPEG_ERROR_TRUNCATED, and the scan limit still holds. Call before `cjpeg_start`.
void cjpeg_decoder_set_skips_unneeded_scans(cjpeg_decoder *decoder, int enabled);
/// How many scans `cjpeg_start` left out (0 unless it skipped any).
int cjpeg_decoder_scans_skipped(const cjpeg_decoder *decoder);
/// The message of the last failure ("" when none). Owned by the decoder.
const char *cjpeg_decoder_message(const cjpeg_decoder *decoder);

/// Creates a decoder fed piece by piece (`cjpeg_append`) that decodes in libjpeg's buffered-image mode: call
/// `cjpeg_read_header_incremental` until it stops returning CJPEG_SUSPENDED, then `cjpeg_scaled_size` and
/// `cjpeg_start` as usual, then `cjpeg_consume` after each piece and `cjpeg_render_scan` for a preview.
/// Returns NULL when out of memory.
cjpeg_decoder *cjpeg_decoder_create_incremental(void);
/// Appends `size` bytes, copied: only the bytes libjpeg has not consumed yet are kept between calls.
cjpeg_status cjpeg_append(cjpeg_decoder *decoder, const uint8_t *data, size_t size);
/// How many appended bytes the decoder holds that libjpeg has not consumed yet.
size_t cjpeg_buffered_bytes(const cjpeg_decoder *decoder);
/// Reads the header once enough bytes arrived; CJPEG_SUSPENDED until then.
cjpeg_status cjpeg_read_header_incremental(cjpeg_decoder *decoder, cjpeg_header *header);
/// Consumes the bytes appended so far (each is entropy-decoded once). `*useful_scan` becomes the number of the
/// last completely received scan that changed coefficients the configured output reads and can be shown (once
/// the next scan has begun, or EOI was read: libjpeg's block smoothing reads ahead), 0 before the first;
/// `*complete` becomes 1 once the EOI marker was read. Failures are sticky.
cjpeg_status cjpeg_consume(cjpeg_decoder *decoder, int *useful_scan, int *complete);
/// Decodes the image as the scans up to `scan` (at most the last shown one) leave it, at the started scale,
/// and copies the `width` × `height` rectangle at (`x`, `y`) into `pixels` as RGBA8, like `cjpeg_read_region`.
cjpeg_status cjpeg_render_scan(cjpeg_decoder *decoder, int scan, int x, int y, int width, int height,
                               uint8_t *pixels, size_t stride, size_t capacity);
/// Releases the decoder and everything libjpeg allocated. Accepts NULL.
void cjpeg_decoder_destroy(cjpeg_decoder *decoder);

/// The pixel layout handed to the encoder.
typedef enum {
    CJPEG_INPUT_RGBA = 0,
    CJPEG_INPUT_RGB = 1,
    CJPEG_INPUT_GRAY = 2,
    CJPEG_INPUT_CMYK = 3
} cjpeg_input;

/// Encoder settings. Zero-initialised fields mean: baseline, default colour space, no markers.
typedef struct {
    int width;
    int height;
    size_t stride;
    cjpeg_input input;
    /// 1...100.
    int quality;
    int progressive;
    /// CMYK input only: store as YCCK instead of CMYK.
    int store_as_ycck;
    /// CMYK input only: leave out the Adobe marker (libjpeg writes one for CMYK by default).
    int omit_adobe_marker;
    /// Optional APP1 payload (e.g. "Exif\0\0" + TIFF), written after the JFIF/Adobe markers.
    const uint8_t *app1;
    size_t app1_size;
} cjpeg_encode_options;

/// Encodes `pixels` to a JPEG in memory. On success `*output` holds `*output_size` bytes to release with
/// `cjpeg_free`. On failure `message` (may be NULL) receives a reason.
cjpeg_status cjpeg_encode(const uint8_t *pixels, const cjpeg_encode_options *options,
                          uint8_t **output, size_t *output_size, char *message, size_t message_size);
/// Releases a buffer returned by `cjpeg_encode`.
void cjpeg_free(void *buffer);

#endif
