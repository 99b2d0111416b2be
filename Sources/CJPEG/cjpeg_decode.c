#include <stdlib.h>
#include <string.h>
#include "cjpeg_internal.h"

// A progressive file can carry thousands of tiny scans, each a full pass over the coefficients: a few KB that
// take minutes to decode. libjpeg-turbo's djpeg guards with -maxscans through the progress monitor; so do we.
static void cjpeg_check_scans(j_common_ptr common) {
    cjpeg_decoder *decoder = (cjpeg_decoder *)common->client_data;
    j_decompress_ptr info = (j_decompress_ptr)common;
    if (common->is_decompressor && info->input_scan_number > decoder->scan_limit) {
        char message[96];
        snprintf(message, sizeof message, "more than %d scans (a progressive scan bomb?)", decoder->scan_limit);
        cjpeg_abort(common, CJPEG_ERROR_CORRUPT, message);
    }
}

// Every entry point that calls into libjpeg starts with this: a longjmp from the error handler lands here and
// the function returns the status the handler recorded.
#define CJPEG_GUARD(decoder) \
    if (setjmp((decoder)->errors.jump)) return (decoder)->errors.status

cjpeg_status cjpeg_reject(cjpeg_decoder *decoder, cjpeg_status status, const char *message) {
    decoder->errors.status = status;
    snprintf(decoder->errors.message, sizeof decoder->errors.message, "%s", message);
    return status;
}

cjpeg_decoder *cjpeg_decoder_create(const uint8_t *data, size_t size) {
    cjpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->info.err = cjpeg_error_manager_init(&decoder->errors);
    if (setjmp(decoder->errors.jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    decoder->created = 1;
    decoder->scan_limit = CJPEG_DEFAULT_SCAN_LIMIT;
    decoder->info.client_data = decoder;
    decoder->progress.progress_monitor = cjpeg_check_scans;
    decoder->info.progress = &decoder->progress;
    return decoder;
}

static int cjpeg_find_orientation(j_decompress_ptr info) {
    for (jpeg_saved_marker_ptr marker = info->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1) continue;
        int orientation = cjpeg_exif_orientation(marker->data, marker->data_length);
        if (orientation != 0) return orientation;
    }
    return 1;
}

static cjpeg_color cjpeg_color_of(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return CJPEG_COLOR_GRAY;
    case JCS_RGB: return CJPEG_COLOR_RGB;
    case JCS_YCbCr: return CJPEG_COLOR_YCBCR;
    case JCS_CMYK: return CJPEG_COLOR_CMYK;
    case JCS_YCCK: return CJPEG_COLOR_YCCK;
    default: return CJPEG_COLOR_OTHER;
    }
}

cjpeg_status cjpeg_read_header(cjpeg_decoder *decoder, cjpeg_header *header) {
    if (decoder == NULL || header == NULL || decoder->header_read) {
        return decoder == NULL ? CJPEG_ERROR_INVALID_ARGUMENT
                               : cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "header already read");
    }
    if (decoder->incremental) return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "incremental decoder");
    if (decoder->data == NULL || decoder->size == 0) {
        return cjpeg_reject(decoder, CJPEG_ERROR_TRUNCATED, "empty input");
    }
    CJPEG_GUARD(decoder);
    j_decompress_ptr info = &decoder->info;
    jpeg_mem_src(info, decoder->data, (unsigned long)decoder->size);
    jpeg_save_markers(info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(info, TRUE);
    decoder->header_read = 1;
    cjpeg_fill_header(decoder, header);
    return CJPEG_OK;
}

void cjpeg_fill_header(cjpeg_decoder *decoder, cjpeg_header *header) {
    j_decompress_ptr info = &decoder->info;
    header->width = (int)info->image_width;
    header->height = (int)info->image_height;
    header->components = info->num_components;
    header->color = cjpeg_color_of(info->jpeg_color_space);
    header->adobe_marker = info->saw_Adobe_marker ? 1 : 0;
    header->orientation = cjpeg_find_orientation(info);
    header->progressive = info->progressive_mode ? 1 : 0;
}

void cjpeg_configure(cjpeg_decoder *decoder, int scale_numerator) {
    j_decompress_ptr info = &decoder->info;
    info->scale_num = (unsigned int)scale_numerator;
    info->scale_denom = 8;
    decoder->cmyk_output = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
    decoder->cmyk_inverted = decoder->cmyk_output && info->saw_Adobe_marker;
    // libjpeg converts YCCK to CMYK itself; CMYK to RGB is ours (below). Everything else goes straight to RGBA.
    info->out_color_space = decoder->cmyk_output ? JCS_CMYK : JCS_EXT_RGBA;
}

cjpeg_status cjpeg_scaled_size(cjpeg_decoder *decoder, int scale_numerator, int *width, int *height) {
    if (decoder == NULL || width == NULL || height == NULL) return CJPEG_ERROR_INVALID_ARGUMENT;
    if (!decoder->header_read || decoder->started || scale_numerator < 1 || scale_numerator > 8) {
        return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "scaled size asked at the wrong time");
    }
    CJPEG_GUARD(decoder);
    cjpeg_configure(decoder, scale_numerator);
    jpeg_calc_output_dimensions(&decoder->info);
    *width = (int)decoder->info.output_width;
    *height = (int)decoder->info.output_height;
    return CJPEG_OK;
}

cjpeg_status cjpeg_start(cjpeg_decoder *decoder, int scale_numerator, int *width, int *height) {
    if (decoder == NULL || width == NULL || height == NULL) return CJPEG_ERROR_INVALID_ARGUMENT;
    if (!decoder->header_read || decoder->started || scale_numerator < 1 || scale_numerator > 8) {
        return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "start asked at the wrong time");
    }
    CJPEG_GUARD(decoder);
    cjpeg_configure(decoder, scale_numerator);
    decoder->started = 1;
    if (decoder->skips_unneeded_scans && decoder->info.progressive_mode && !decoder->incremental) {
        jpeg_calc_output_dimensions(&decoder->info);
        cjpeg_status status = cjpeg_install_scan_filter(decoder);
        if (status != CJPEG_OK) return status;
    }
    if (decoder->incremental) decoder->info.buffered_image = TRUE;
    jpeg_start_decompress(&decoder->info);
    if (decoder->info.output_components != 4) {
        return cjpeg_reject(decoder, CJPEG_ERROR_UNSUPPORTED, "unexpected output component count");
    }
    *width = (int)decoder->info.output_width;
    *height = (int)decoder->info.output_height;
    return CJPEG_OK;
}

// CMYK to RGB the way Photoshop-compatible readers do: R = (1 - C)(1 - K). Adobe files store inverted samples,
// so there the stored values already are (1 - C) and (1 - K).
void cjpeg_cmyk_row_to_rgba(uint8_t *row, size_t width, int inverted) {
    for (size_t x = 0; x < width; x++) {
        uint8_t *pixel = row + x * 4;
        unsigned int c = pixel[0], m = pixel[1], y = pixel[2], k = pixel[3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        pixel[0] = (uint8_t)((c * k + 127) / 255);
        pixel[1] = (uint8_t)((m * k + 127) / 255);
        pixel[2] = (uint8_t)((y * k + 127) / 255);
        pixel[3] = 255;
    }
}

cjpeg_status cjpeg_read_pixels(cjpeg_decoder *decoder, uint8_t *pixels, size_t stride, size_t capacity) {
    if (decoder == NULL) return CJPEG_ERROR_INVALID_ARGUMENT;
    if (!decoder->started) return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "read asked before start");
    j_decompress_ptr info = &decoder->info;
    return cjpeg_read_region(decoder, 0, 0, (int)info->output_width, (int)info->output_height, pixels, stride,
                             capacity);
}

// Reads up to 16 rows into `rows` and converts CMYK pixels [first_column, first_column + columns) of each.
// Returns the number of rows read; libjpeg making no progress is a corrupt file.
static JDIMENSION cjpeg_read_rows(cjpeg_decoder *decoder, JSAMPROW *rows, JDIMENSION count, size_t first_column,
                                  size_t columns) {
    JDIMENSION read = jpeg_read_scanlines(&decoder->info, rows, count);
    if (read == 0) cjpeg_abort((j_common_ptr)&decoder->info, CJPEG_ERROR_CORRUPT, "decoder made no progress");
    if (decoder->cmyk_output) {
        for (JDIMENSION index = 0; index < read; index++) {
            cjpeg_cmyk_row_to_rgba(rows[index] + first_column * 4, columns, decoder->cmyk_inverted);
        }
    }
    return read;
}

// The output rows of one iMCU row, the unit jpeg_skip_scanlines counts in.
static JDIMENSION cjpeg_rows_per_imcu_row(j_decompress_ptr info) {
#if JPEG_LIB_VERSION >= 70
    return (JDIMENSION)(info->max_v_samp_factor * info->min_DCT_v_scaled_size);
#else
    return (JDIMENSION)(info->max_v_samp_factor * info->min_DCT_scaled_size);
#endif
}

// Entropy-decodes every row below the region and fully decodes the last one, so that a file cut after the
// region is still reported as truncated (jpeg_skip_scanlines to the very end would stop reading instead).
//
// The skip starts on an iMCU row boundary: rows up to it are decoded into `scratch` first. libjpeg-turbo
// (2.1.5 here) mis-counts a skip that starts inside a row group (its issue #915); with a component
// sampled 1×4 beside one sampled 2×2 the count never reaches its end and jpeg_skip_scanlines loops forever
// (Fuzz/Regressions/jpeg/timeout-2a32fe…).
static void cjpeg_drain_rows(cjpeg_decoder *decoder, JSAMPARRAY scratch) {
    j_decompress_ptr info = &decoder->info;
    JDIMENSION group = cjpeg_rows_per_imcu_row(info);
    while (group > 1 && info->output_scanline % group != 0 && info->output_height - info->output_scanline > 1) {
        JDIMENSION to_boundary = group - info->output_scanline % group;
        JDIMENSION count = to_boundary < 16 ? to_boundary : 16;
        cjpeg_read_rows(decoder, scratch, count, 0, 0);
    }
    JDIMENSION remaining = info->output_height - info->output_scanline;
    if (remaining == 0) return;
    if (remaining > 1 && jpeg_skip_scanlines(info, remaining - 1) != remaining - 1) {
        cjpeg_abort((j_common_ptr)info, CJPEG_ERROR_CORRUPT, "could not skip the rows below the region");
    }
    cjpeg_read_rows(decoder, scratch, 1, 0, 0);
}

cjpeg_status cjpeg_check_rect(cjpeg_decoder *decoder, int x, int y, int width, int height, size_t stride,
                              size_t capacity) {
    size_t output_width = decoder->info.output_width, output_height = decoder->info.output_height;
    if (x < 0 || y < 0 || width < 1 || height < 1 || (size_t)width > output_width
        || (size_t)x > output_width - (size_t)width || (size_t)height > output_height
        || (size_t)y > output_height - (size_t)height) {
        return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "region outside the image");
    }
    if (stride < (size_t)width * 4 || capacity / stride < (size_t)height) {
        return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "output buffer too small");
    }
    return CJPEG_OK;
}

cjpeg_status cjpeg_read_region(cjpeg_decoder *decoder, int x, int y, int width, int height,
                               uint8_t *pixels, size_t stride, size_t capacity) {
    if (decoder == NULL) return CJPEG_ERROR_INVALID_ARGUMENT;
    j_decompress_ptr info = &decoder->info;
    if (!decoder->started || pixels == NULL || info->output_scanline != 0) {
        return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "read asked before start or twice");
    }
    cjpeg_status checked = cjpeg_check_rect(decoder, x, y, width, height, stride, capacity);
    if (checked != CJPEG_OK) return checked;
    size_t output_width = info->output_width, output_height = info->output_height;
    size_t row_bytes = (size_t)width * 4;
    CJPEG_GUARD(decoder);
    int full_rows = x == 0 && (size_t)width == output_width;
    JDIMENSION crop_x = (JDIMENSION)x, crop_width = (JDIMENSION)width;
    // libjpeg-turbo widens the crop to whole iMCU columns: decoded rows then start `x - crop_x` pixels early.
    if (!full_rows) jpeg_crop_scanline(info, &crop_x, &crop_width);
    size_t skipped_columns = (size_t)x - crop_x;
    JSAMPARRAY scratch = NULL;
    if (!full_rows || (size_t)(y + height) < output_height) {
        scratch = (*info->mem->alloc_sarray)((j_common_ptr)info, JPOOL_IMAGE, crop_width * 4, 16);
    }
    if (y > 0 && jpeg_skip_scanlines(info, (JDIMENSION)y) != (JDIMENSION)y) {
        return cjpeg_reject(decoder, CJPEG_ERROR_CORRUPT, "could not skip the rows above the region");
    }
    JSAMPROW rows[16];
    JDIMENSION end = (JDIMENSION)(y + height);
    while (info->output_scanline < end) {
        size_t first = info->output_scanline - (size_t)y;
        JDIMENSION count = end - info->output_scanline < 16 ? end - info->output_scanline : 16;
        // Full rows go straight into the caller's buffer; cropped ones through the scratch rows.
        for (JDIMENSION index = 0; index < count; index++) {
            rows[index] = full_rows ? pixels + (first + index) * stride : scratch[index];
        }
        JDIMENSION read = cjpeg_read_rows(decoder, rows, count, skipped_columns, (size_t)width);
        if (!full_rows) {
            for (JDIMENSION index = 0; index < read; index++) {
                memcpy(pixels + (first + index) * stride, scratch[index] + skipped_columns * 4, row_bytes);
            }
        }
    }
    cjpeg_drain_rows(decoder, scratch);
    return CJPEG_OK;
}

void cjpeg_decoder_set_scan_limit(cjpeg_decoder *decoder, int limit) {
    if (decoder != NULL && limit > 0) decoder->scan_limit = limit;
}

const char *cjpeg_decoder_message(const cjpeg_decoder *decoder) {
    return decoder == NULL ? "" : decoder->errors.message;
}

void cjpeg_decoder_set_skips_unneeded_scans(cjpeg_decoder *decoder, int enabled) {
    if (decoder != NULL) decoder->skips_unneeded_scans = enabled != 0;
}

int cjpeg_decoder_scans_skipped(const cjpeg_decoder *decoder) {
    return decoder == NULL ? 0 : decoder->scans_skipped;
}

void cjpeg_decoder_destroy(cjpeg_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->info);
    free(decoder->filtered.ranges);
    free(decoder->suspending.buffer);
    free(decoder);
}
