#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpng_internal.h"

typedef struct {
    cpng_errors errors;
    png_structp png;
    png_infop info;
    uint8_t *buffer;
    size_t size;
    size_t capacity;
} cpng_encoder;

static void cpng_write_callback(png_structp png, png_bytep bytes, size_t length) {
    cpng_encoder *encoder = png_get_io_ptr(png);
    if (length > encoder->capacity - encoder->size) {
        size_t capacity = encoder->capacity == 0 ? 8192 : encoder->capacity;
        while (length > capacity - encoder->size) {
            if (capacity > SIZE_MAX / 2) png_error(png, "output too large");
            capacity *= 2;
        }
        uint8_t *buffer = realloc(encoder->buffer, capacity);
        if (buffer == NULL) {
            encoder->errors.status = CPNG_ERROR_OUT_OF_MEMORY;
            png_error(png, "out of memory growing the output");
        }
        encoder->buffer = buffer;
        encoder->capacity = capacity;
    }
    memcpy(encoder->buffer + encoder->size, bytes, length);
    encoder->size += length;
}

static void cpng_flush_callback(png_structp png) {
    (void)png;
}

static cpng_status cpng_run(cpng_encoder *encoder, const uint8_t *rows, const cpng_encode_options *options) {
    png_structp png = encoder->png;
    png_infop info = encoder->info;
    if (setjmp(png_jmpbuf(png))) return encoder->errors.status;
    png_set_write_fn(png, encoder, cpng_write_callback, cpng_flush_callback);
    if (options->compression_level >= 0) png_set_compression_level(png, options->compression_level);
    if (options->filters != 0) png_set_filter(png, PNG_FILTER_TYPE_BASE, options->filters);
    png_set_IHDR(png, info, options->width, options->height, options->bit_depth, options->color_type,
                 options->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (options->color_type == PNG_COLOR_TYPE_PALETTE && options->palette != NULL) {
        png_color palette[256];
        int count = options->palette_count;
        for (int index = 0; index < count; index++) {
            palette[index].red = options->palette[index * 3];
            palette[index].green = options->palette[index * 3 + 1];
            palette[index].blue = options->palette[index * 3 + 2];
        }
        png_set_PLTE(png, info, palette, count);
        if (options->trans_alpha != NULL && options->trans_alpha_count > 0) {
            png_set_tRNS(png, info, options->trans_alpha, options->trans_alpha_count, NULL);
        }
    } else if (options->has_trans_color) {
        png_color_16 color = {0, options->trans_red, options->trans_green, options->trans_blue, options->trans_gray};
        png_set_tRNS(png, info, NULL, 0, &color);
    }
    png_write_info(png, info);
    if (options->strip_filler) png_set_filler(png, 0, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++) {
        for (size_t y = 0; y < options->height; y++) png_write_row(png, rows + y * options->stride);
    }
    png_write_end(png, NULL);
    return CPNG_OK;
}

static int cpng_options_valid(const cpng_encode_options *options) {
    if (options->width == 0 || options->height == 0 || options->width > PNG_UINT_31_MAX
        || options->height > PNG_UINT_31_MAX || options->palette_count < 0 || options->palette_count > 256
        || options->trans_alpha_count < 0 || options->trans_alpha_count > options->palette_count
        || (options->filters & ~0xF8) != 0) {
        return 0;
    }
    if (options->strip_filler) {
        return options->color_type == PNG_COLOR_TYPE_RGB && options->bit_depth == 8
               && options->stride / 4 >= options->width;
    }
    static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
    if (options->color_type < 0 || options->color_type > 6 || channels[options->color_type] == 0) return 0;
    size_t bits = (size_t)options->width * (size_t)channels[options->color_type] * (size_t)options->bit_depth;
    return options->bit_depth > 0 && options->stride >= (bits + 7) / 8;
}

cpng_status cpng_encode(const uint8_t *rows, const cpng_encode_options *options,
                        uint8_t **output, size_t *output_size, char *message, size_t message_size) {
    if (message != NULL && message_size > 0) message[0] = '\0';
    if (rows == NULL || options == NULL || output == NULL || output_size == NULL) return CPNG_ERROR_INVALID_ARGUMENT;
    if (!cpng_options_valid(options)) {
        if (message != NULL) snprintf(message, message_size, "invalid size, stride, palette or colour type");
        return CPNG_ERROR_INVALID_ARGUMENT;
    }
    cpng_encoder *encoder = calloc(1, sizeof *encoder);
    if (encoder == NULL) return CPNG_ERROR_OUT_OF_MEMORY;
    cpng_status status = CPNG_ERROR_OUT_OF_MEMORY;
    encoder->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &encoder->errors,
                                           cpng_error_handler, cpng_warning_handler);
    if (encoder->png != NULL) encoder->info = png_create_info_struct(encoder->png);
    if (encoder->info != NULL) status = cpng_run(encoder, rows, options);
    if (status == CPNG_OK) {
        *output = encoder->buffer;
        *output_size = encoder->size;
    } else {
        free(encoder->buffer);
        if (message != NULL) snprintf(message, message_size, "%s", encoder->errors.message);
    }
    png_destroy_write_struct(&encoder->png, &encoder->info);
    free(encoder);
    return status;
}

void cpng_free(void *buffer) {
    free(buffer);
}
