#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpng_internal.h"

struct cpng_decoder {
    png_structp png;
    png_infop info;
    cpng_errors errors;
    const uint8_t *data;
    size_t size;
    size_t offset;
    int header_read;
    int pixels_read;
    /// Rows read since `cpng_start_rows`.
    uint32_t rows_read;
    int rows_finished;
};

static cpng_status cpng_reject(cpng_decoder *decoder, cpng_status status, const char *message) {
    decoder->errors.status = status;
    snprintf(decoder->errors.message, sizeof decoder->errors.message, "%s", message);
    return status;
}

// A chunk header has just been read: its declared length must fit in what is left of the input (data and
// CRC). libpng allocates a text, pCAL, sCAL or sPLT chunk's whole declared length before reading it, so a
// 57-byte file declaring 2^30 bytes would cost 1 GiB before failing; checked here, a chunk never costs more
// memory than the bytes it carries.
static void cpng_check_chunk_length(png_structp png, cpng_decoder *decoder, const uint8_t *header) {
    uint32_t length = (uint32_t)header[0] << 24 | (uint32_t)header[1] << 16 | (uint32_t)header[2] << 8 | header[3];
    size_t remaining = decoder->size - decoder->offset;
    if (remaining >= 4 && length <= remaining - 4) return;
    char type[5] = {0};
    for (int index = 0; index < 4; index++) {
        uint8_t byte = header[4 + index];
        type[index] = (byte >= 0x20 && byte < 0x7F) ? (char)byte : '?';
    }
    decoder->errors.status = CPNG_ERROR_TRUNCATED;
    snprintf(decoder->errors.message, sizeof decoder->errors.message,
             "chunk %s at byte %zu declares %u bytes but the file ends %zu bytes later",
             type, decoder->offset - 8, length, remaining);
    png_error(png, "truncated");
}

// Reads from the in-memory buffer; asking past its end means the file was cut short.
static void cpng_read_callback(png_structp png, png_bytep target, size_t length) {
    cpng_decoder *decoder = png_get_io_ptr(png);
    if (length > decoder->size - decoder->offset) {
        decoder->errors.status = CPNG_ERROR_TRUNCATED;
        snprintf(decoder->errors.message, sizeof decoder->errors.message,
                 "file ends at byte %zu, %zu more bytes needed", decoder->size, length);
        png_error(png, "truncated");
    }
    memcpy(target, decoder->data + decoder->offset, length);
    decoder->offset += length;
    if (length == 8 && (png_get_io_state(png) & PNG_IO_MASK_LOC) == PNG_IO_CHUNK_HDR) {
        cpng_check_chunk_length(png, decoder, target);
    }
}

cpng_decoder *cpng_decoder_create(const uint8_t *data, size_t size) {
    cpng_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->size = data == NULL ? 0 : size;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &decoder->errors,
                                          cpng_error_handler, cpng_warning_handler);
    if (decoder->png == NULL) {
        free(decoder);
        return NULL;
    }
    decoder->info = png_create_info_struct(decoder->png);
    if (decoder->info == NULL) {
        png_destroy_read_struct(&decoder->png, NULL, NULL);
        free(decoder);
        return NULL;
    }
    png_set_read_fn(decoder->png, decoder, cpng_read_callback);
    // The caller enforces its own pixel limit after the header; libpng's default (1,000,000 per side) would
    // otherwise report a large but valid header as corrupt.
    png_set_user_limits(decoder->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    // Metadata the decoder never returns is skipped (its CRC still checked) instead of kept: no text
    // inflated (a zTXt/iTXt bomb), no buffers for pCAL, sCAL or sPLT.
    static const png_byte skipped_chunks[] = "tEXt\0zTXt\0iTXt\0pCAL\0sCAL\0sPLT";
    png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, skipped_chunks, 6);
    return decoder;
}

cpng_status cpng_read_header(cpng_decoder *decoder, cpng_header *header) {
    if (decoder == NULL || header == NULL) return CPNG_ERROR_INVALID_ARGUMENT;
    if (decoder->header_read) return cpng_reject(decoder, CPNG_ERROR_INVALID_ARGUMENT, "header already read");
    if (decoder->size < 8 || png_sig_cmp(decoder->data, 0, 8) != 0) {
        return cpng_reject(decoder, decoder->size < 8 ? CPNG_ERROR_TRUNCATED : CPNG_ERROR_CORRUPT,
                           "missing PNG signature");
    }
    if (setjmp(png_jmpbuf(decoder->png))) return decoder->errors.status;
    decoder->header_read = 1;
    png_read_info(decoder->png, decoder->info);
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    header->width = png_get_image_width(png, info);
    header->height = png_get_image_height(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->color_type = png_get_color_type(png, info);
    header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    header->has_alpha = (header->color_type & PNG_COLOR_MASK_ALPHA) != 0
                        || png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    return CPNG_OK;
}

// The transforms that turn every colour type and depth into 8-bit RGBA.
static void cpng_request_rgba(png_structp png, png_infop info) {
    int color_type = png_get_color_type(png, info);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    png_set_expand(png);  // palette to RGB, gray 1/2/4 to 8, tRNS to alpha
    if (png_get_bit_depth(png, info) == 16) png_set_scale_16(png);
    if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    if ((color_type & PNG_COLOR_MASK_ALPHA) == 0 && !has_trns) png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
}

// Sets up the RGBA8 transforms; 0 when libpng would not produce 8-bit RGBA rows of `width` × 4 bytes.
static int cpng_prepare_rgba(png_structp png, png_infop info, size_t width) {
    cpng_request_rgba(png, info);
    png_read_update_info(png, info);
    return png_get_channels(png, info) == 4 && png_get_bit_depth(png, info) == 8
           && png_get_rowbytes(png, info) == width * 4;
}

cpng_status cpng_read_rgba(cpng_decoder *decoder, uint8_t *pixels, size_t stride, size_t capacity) {
    if (decoder == NULL) return CPNG_ERROR_INVALID_ARGUMENT;
    if (!decoder->header_read || decoder->pixels_read || pixels == NULL) {
        return cpng_reject(decoder, CPNG_ERROR_INVALID_ARGUMENT, "pixels asked at the wrong time");
    }
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    size_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if (stride == 0 || stride / 4 < width || capacity / stride < height) {
        return cpng_reject(decoder, CPNG_ERROR_INVALID_ARGUMENT, "output buffer too small");
    }
    if (setjmp(png_jmpbuf(png))) return decoder->errors.status;
    decoder->pixels_read = 1;
    int passes = png_set_interlace_handling(png);
    if (!cpng_prepare_rgba(png, info, width)) {
        return cpng_reject(decoder, CPNG_ERROR_UNSUPPORTED, "could not convert to 8-bit RGBA");
    }
    // Each Adam7 pass fills its own pixels of every row, in place: no full-image scratch buffer.
    for (int pass = 0; pass < passes; pass++) {
        for (size_t y = 0; y < height; y++) png_read_row(png, pixels + y * stride, NULL);
    }
    png_read_end(png, NULL);
    return CPNG_OK;
}

cpng_status cpng_start_rows(cpng_decoder *decoder, size_t *row_bytes) {
    if (decoder == NULL || row_bytes == NULL) return CPNG_ERROR_INVALID_ARGUMENT;
    if (!decoder->header_read || decoder->pixels_read) {
        return cpng_reject(decoder, CPNG_ERROR_INVALID_ARGUMENT, "rows asked at the wrong time");
    }
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
        return cpng_reject(decoder, CPNG_ERROR_UNSUPPORTED, "an interlaced image cannot be read row by row");
    }
    if (setjmp(png_jmpbuf(png))) return decoder->errors.status;
    decoder->pixels_read = 1;
    size_t width = png_get_image_width(png, info);
    if (!cpng_prepare_rgba(png, info, width)) {
        return cpng_reject(decoder, CPNG_ERROR_UNSUPPORTED, "could not convert to 8-bit RGBA");
    }
    *row_bytes = width * 4;
    return CPNG_OK;
}

cpng_status cpng_read_next_row(cpng_decoder *decoder, uint8_t *row) {
    if (decoder == NULL) return CPNG_ERROR_INVALID_ARGUMENT;
    png_structp png = decoder->png;
    if (!decoder->pixels_read || decoder->rows_finished || row == NULL
        || decoder->rows_read >= png_get_image_height(png, decoder->info)) {
        return cpng_reject(decoder, CPNG_ERROR_INVALID_ARGUMENT, "row asked at the wrong time");
    }
    if (setjmp(png_jmpbuf(png))) return decoder->errors.status;
    png_read_row(png, row, NULL);
    decoder->rows_read++;
    return CPNG_OK;
}

cpng_status cpng_finish_rows(cpng_decoder *decoder) {
    if (decoder == NULL) return CPNG_ERROR_INVALID_ARGUMENT;
    png_structp png = decoder->png;
    if (!decoder->pixels_read || decoder->rows_finished
        || decoder->rows_read != png_get_image_height(png, decoder->info)) {
        return cpng_reject(decoder, CPNG_ERROR_INVALID_ARGUMENT, "finish asked before the last row");
    }
    if (setjmp(png_jmpbuf(png))) return decoder->errors.status;
    decoder->rows_finished = 1;
    png_read_end(png, NULL);
    return CPNG_OK;
}

const char *cpng_decoder_message(const cpng_decoder *decoder) {
    return decoder == NULL ? "" : decoder->errors.message;
}

void cpng_decoder_destroy(cpng_decoder *decoder) {
    if (decoder == NULL) return;
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder);
}
