// A small shim over libpng 1.6 for Swift.
//
// libpng reports errors by longjmp. Every entry point here sets the setjmp target itself, so a corrupt or
// truncated file becomes a status code and a message instead of a crash. Swift never sees libpng's types.
#ifndef CPNG_H
#define CPNG_H

#include <stddef.h>
#include <stdint.h>

/// What a shim call ended with.
typedef enum {
    CPNG_OK = 0,
    CPNG_ERROR_CORRUPT = 1,
    CPNG_ERROR_TRUNCATED = 2,
    CPNG_ERROR_UNSUPPORTED = 3,
    CPNG_ERROR_OUT_OF_MEMORY = 4,
    CPNG_ERROR_INVALID_ARGUMENT = 5
} cpng_status;

/// PNG colour types, as in the IHDR chunk.
enum {
    CPNG_COLOR_GRAY = 0,
    CPNG_COLOR_RGB = 2,
    CPNG_COLOR_PALETTE = 3,
    CPNG_COLOR_GRAY_ALPHA = 4,
    CPNG_COLOR_RGBA = 6
};

/// What the header (IHDR and the chunks before IDAT) says.
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    /// 1 when the decoded pixels can be non-opaque: an alpha channel or a tRNS chunk.
    int has_alpha;
} cpng_header;

typedef struct cpng_decoder cpng_decoder;

/// Creates a decoder over `size` bytes at `data`, which must stay valid until `cpng_decoder_destroy`.
/// Returns NULL when out of memory.
cpng_decoder *cpng_decoder_create(const uint8_t *data, size_t size);
/// Checks the signature and reads the chunks up to the image data. Call once, first.
cpng_status cpng_read_header(cpng_decoder *decoder, cpng_header *header);
/// Decodes every row as straight (not premultiplied) RGBA8: any colour type and bit depth, palette and tRNS
/// expanded, 16-bit scaled to 8, Adam7 deinterlaced. Then reads to IEND, so a truncated file fails.
cpng_status cpng_read_rgba(cpng_decoder *decoder, uint8_t *pixels, size_t stride, size_t capacity);
/// Prepares to read the rows one at a time as straight RGBA8, with the transforms of `cpng_read_rgba`; sets
/// `*row_bytes` to the bytes each row takes (width × 4). Interlaced files fail with CPNG_ERROR_UNSUPPORTED:
/// their passes need the whole image in memory (use `cpng_read_rgba`).
cpng_status cpng_start_rows(cpng_decoder *decoder, size_t *row_bytes);
/// Reads the next row into `row` (`row_bytes` long). Call once per row, top to bottom, after `cpng_start_rows`.
cpng_status cpng_read_next_row(cpng_decoder *decoder, uint8_t *row);
/// After the last row: reads the chunks up to IEND, so a file cut after its image data still fails.
cpng_status cpng_finish_rows(cpng_decoder *decoder);
/// The message of the last failure ("" when none). Owned by the decoder.
const char *cpng_decoder_message(const cpng_decoder *decoder);
/// Releases the decoder. Accepts NULL.
void cpng_decoder_destroy(cpng_decoder *decoder);

/// Encoder settings. `rows` handed to `cpng_encode` are in PNG's own packing for `color_type` and
/// `bit_depth` (16-bit samples big-endian), unless `strip_filler` is set.
typedef struct {
    uint32_t width;
    uint32_t height;
    size_t stride;
    int color_type;
    int bit_depth;
    int interlaced;
    /// zlib level 0...9, or -1 for libpng's default.
    int compression_level;
    /// The row filters libpng may choose from, a mask of `CPNG_FILTER_*`; 0 for libpng's default (all five,
    /// chosen per row).
    int filters;
    /// RGB only: the rows are 8-bit RGBA and the fourth byte of each pixel is dropped.
    int strip_filler;
    /// Palette: `palette_count` RGB triples.
    const uint8_t *palette;
    int palette_count;
    /// Palette: tRNS alpha for the first `trans_alpha_count` entries.
    const uint8_t *trans_alpha;
    int trans_alpha_count;
    /// Gray or RGB: a tRNS colour that decodes as transparent.
    int has_trans_color;
    uint16_t trans_gray;
    uint16_t trans_red;
    uint16_t trans_green;
    uint16_t trans_blue;
} cpng_encode_options;

/// Row filters for `cpng_encode_options.filters` (libpng's PNG_FILTER_* values).
#define CPNG_FILTER_NONE 0x08
#define CPNG_FILTER_SUB 0x10
#define CPNG_FILTER_UP 0x20
#define CPNG_FILTER_AVG 0x40
#define CPNG_FILTER_PAETH 0x80

/// Encodes rows to a PNG in memory. On success `*output` holds `*output_size` bytes to release with
/// `cpng_free`. On failure `message` (may be NULL) receives a reason.
cpng_status cpng_encode(const uint8_t *rows, const cpng_encode_options *options,
                        uint8_t **output, size_t *output_size, char *message, size_t message_size);
/// Releases a buffer returned by `cpng_encode`.
void cpng_free(void *buffer);

#endif
