// Incremental decoding of progressive JPEGs for previews: bytes are appended as they arrive, libjpeg consumes
// them through a suspending source in buffered-image mode (each byte entropy-decoded once, into its coefficient
// buffer), and a preview is an output pass over the scans received so far at the configured DCT scale.
#include <stdlib.h>
#include <string.h>
#include "cjpeg_internal.h"

/// The most unconsumed bytes kept: libjpeg backs up at most one marker segment or one MCU, so more means it
/// stopped making progress on hostile input.
#define CJPEG_MAXIMUM_BACKLOG (16u << 20)

static void cjpeg_suspending_init(j_decompress_ptr info) {
    (void)info;
}

// No more bytes for now: libjpeg suspends and resumes from `next_input_byte` once more are appended.
static boolean cjpeg_suspending_fill(j_decompress_ptr info) {
    (void)info;
    return FALSE;
}

static void cjpeg_suspending_skip(j_decompress_ptr info, long count) {
    cjpeg_suspending_source *source = (cjpeg_suspending_source *)info->src;
    if (count <= 0) return;
    size_t skip = (size_t)count;
    if (skip > source->pub.bytes_in_buffer) {
        source->pending_skip += skip - source->pub.bytes_in_buffer;
        skip = source->pub.bytes_in_buffer;
    }
    source->pub.next_input_byte += skip;
    source->pub.bytes_in_buffer -= skip;
}

static void cjpeg_suspending_term(j_decompress_ptr info) {
    (void)info;
}

cjpeg_decoder *cjpeg_decoder_create_incremental(void) {
    cjpeg_decoder *decoder = cjpeg_decoder_create(NULL, 0);
    if (decoder == NULL) return NULL;
    decoder->incremental = 1;
    cjpeg_suspending_source *source = &decoder->suspending;
    source->pub.init_source = cjpeg_suspending_init;
    source->pub.fill_input_buffer = cjpeg_suspending_fill;
    source->pub.skip_input_data = cjpeg_suspending_skip;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = cjpeg_suspending_term;
    decoder->info.src = &source->pub;
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 1, 0xFFFF);
    return decoder;
}

cjpeg_status cjpeg_append(cjpeg_decoder *decoder, const uint8_t *data, size_t size) {
    if (decoder == NULL || (data == NULL && size > 0)) return CJPEG_ERROR_INVALID_ARGUMENT;
    if (!decoder->incremental) return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "not incremental");
    if (decoder->failed) return decoder->errors.status;
    cjpeg_suspending_source *source = &decoder->suspending;
    size_t dropped = size < source->pending_skip ? size : source->pending_skip;
    source->pending_skip -= dropped;
    data += dropped;
    size -= dropped;
    size_t kept = source->pub.bytes_in_buffer;
    size_t kept_offset = kept == 0 ? 0 : (size_t)(source->pub.next_input_byte - source->buffer);
    if (kept + size > CJPEG_MAXIMUM_BACKLOG) {
        decoder->failed = 1;
        return cjpeg_reject(decoder, CJPEG_ERROR_CORRUPT, "the decoder stopped consuming its input");
    }
    if (kept + size > source->capacity) {
        size_t capacity = source->capacity < 4096 ? 4096 : source->capacity;
        while (capacity < kept + size) capacity *= 2;
        uint8_t *buffer = malloc(capacity);
        if (buffer == NULL) return cjpeg_reject(decoder, CJPEG_ERROR_OUT_OF_MEMORY, "out of memory");
        if (kept > 0) memcpy(buffer, source->buffer + kept_offset, kept);
        free(source->buffer);
        source->buffer = buffer;
        source->capacity = capacity;
    } else if (kept > 0 && kept_offset > 0) {
        memmove(source->buffer, source->buffer + kept_offset, kept);
    }
    if (size > 0) memcpy(source->buffer + kept, data, size);
    source->pub.next_input_byte = source->buffer;
    source->pub.bytes_in_buffer = kept + size;
    source->received += size + dropped;
    return CJPEG_OK;
}

size_t cjpeg_buffered_bytes(const cjpeg_decoder *decoder) {
    return decoder == NULL ? 0 : decoder->suspending.pub.bytes_in_buffer;
}

cjpeg_status cjpeg_read_header_incremental(cjpeg_decoder *decoder, cjpeg_header *header) {
    if (decoder == NULL || header == NULL || !decoder->incremental) return CJPEG_ERROR_INVALID_ARGUMENT;
    if (decoder->failed) return decoder->errors.status;
    if (decoder->header_read) return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "header already read");
    if (setjmp(decoder->errors.jump)) {
        decoder->failed = 1;
        return decoder->errors.status;
    }
    if (jpeg_read_header(&decoder->info, TRUE) == JPEG_SUSPENDED) return CJPEG_SUSPENDED;
    decoder->header_read = 1;
    cjpeg_fill_header(decoder, header);
    return CJPEG_OK;
}

// libjpeg's block smoothing reads the DC of the rows below the one it outputs, and asks for input until the
// scan after the one shown has started: a completed scan is shown once the next one began (or EOI was read).
static int cjpeg_displayable_scan(cjpeg_decoder *decoder) {
    j_decompress_ptr info = &decoder->info;
    int moved_on = decoder->last_useful_scan < info->input_scan_number || jpeg_input_complete(info);
    return moved_on ? decoder->last_useful_scan : decoder->prior_useful_scan;
}

cjpeg_status cjpeg_consume(cjpeg_decoder *decoder, int *useful_scan, int *complete) {
    if (decoder == NULL || useful_scan == NULL || complete == NULL) return CJPEG_ERROR_INVALID_ARGUMENT;
    if (!decoder->incremental || !decoder->started) {
        return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "consume asked before start");
    }
    if (decoder->failed) return decoder->errors.status;
    j_decompress_ptr info = &decoder->info;
    if (setjmp(decoder->errors.jump)) {
        decoder->failed = 1;
        return decoder->errors.status;
    }
    *complete = 0;
    int suspended = 0;
    if (decoder->finishing_output) {
        if (jpeg_finish_output(info)) {
            decoder->finishing_output = 0;
        } else {
            suspended = 1;
        }
    }
    while (!suspended && !jpeg_input_complete(info)) {
        int event = jpeg_consume_input(info);
        if (info->input_scan_number > decoder->scan_limit) {
            cjpeg_abort((j_common_ptr)info, CJPEG_ERROR_CORRUPT,
                        "more scans than the limit (a progressive scan bomb?)");
        }
        if (event == JPEG_SUSPENDED) suspended = 1;
        if (event == JPEG_SCAN_COMPLETED) {
            int components[MAX_COMPS_IN_SCAN];
            for (int listed = 0; listed < info->comps_in_scan; listed++) {
                components[listed] = info->cur_comp_info[listed]->component_index;
            }
            if (cjpeg_scan_is_needed(info, components, info->comps_in_scan, info->Ss, info->Se)) {
                decoder->prior_useful_scan = decoder->last_useful_scan;
                decoder->last_useful_scan = info->input_scan_number;
            }
        }
    }
    *complete = jpeg_input_complete(info) ? 1 : 0;
    *useful_scan = cjpeg_displayable_scan(decoder);
    return CJPEG_OK;
}

cjpeg_status cjpeg_render_scan(cjpeg_decoder *decoder, int scan, int x, int y, int width, int height,
                               uint8_t *pixels, size_t stride, size_t capacity) {
    if (decoder == NULL || pixels == NULL) return CJPEG_ERROR_INVALID_ARGUMENT;
    j_decompress_ptr info = &decoder->info;
    if (!decoder->incremental || !decoder->started || decoder->finishing_output || scan < 1
        || scan > cjpeg_displayable_scan(decoder)) {
        return cjpeg_reject(decoder, CJPEG_ERROR_INVALID_ARGUMENT, "render asked at the wrong time");
    }
    if (decoder->failed) return decoder->errors.status;
    cjpeg_status checked = cjpeg_check_rect(decoder, x, y, width, height, stride, capacity);
    if (checked != CJPEG_OK) return checked;
    size_t output_width = info->output_width, output_height = info->output_height;
    size_t row_bytes = (size_t)width * 4;
    if (setjmp(decoder->errors.jump)) {
        decoder->failed = 1;
        return decoder->errors.status;
    }
    if (decoder->preview_row == NULL) {
        decoder->preview_row =
            (*info->mem->alloc_sarray)((j_common_ptr)info, JPOOL_IMAGE, (JDIMENSION)output_width * 4, 1);
    }
    jpeg_start_output(info, scan);
    JSAMPROW row = decoder->preview_row[0];
    while (info->output_scanline < output_height) {
        size_t line = info->output_scanline;
        if (jpeg_read_scanlines(info, &row, 1) != 1) {
            cjpeg_abort((j_common_ptr)info, CJPEG_ERROR_CORRUPT, "the preview made no progress");
        }
        if (line < (size_t)y || line >= (size_t)(y + height)) continue;
        if (decoder->cmyk_output) cjpeg_cmyk_row_to_rgba(row + (size_t)x * 4, (size_t)width, decoder->cmyk_inverted);
        memcpy(pixels + (line - (size_t)y) * stride, row + (size_t)x * 4, row_bytes);
    }
    decoder->finishing_output = !jpeg_finish_output(info);
    return CJPEG_OK;
}
