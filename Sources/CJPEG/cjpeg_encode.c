#include <stdlib.h>
#include <string.h>
#include "cjpeg_internal.h"

// A growable in-memory destination. libjpeg-turbo's jpeg_mem_dest leaks (or worse, frees twice) its buffer when
// an error interrupts it mid-growth, so the buffer is owned here, where the error path can release it.
typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;
    size_t capacity;
} cjpeg_destination;

typedef struct {
    struct jpeg_compress_struct info;
    cjpeg_error_manager errors;
    cjpeg_destination destination;
    int created;
} cjpeg_encoder;

static void cjpeg_destination_init(j_compress_ptr info) {
    (void)info;
}

static boolean cjpeg_destination_grow(j_compress_ptr info) {
    cjpeg_destination *destination = (cjpeg_destination *)info->dest;
    size_t capacity = destination->capacity * 2;
    uint8_t *buffer = realloc(destination->buffer, capacity);
    if (buffer == NULL) ERREXIT1(info, JERR_OUT_OF_MEMORY, 10);
    destination->buffer = buffer;
    // libjpeg calls this only when the buffer is full: the used part is exactly the old capacity.
    destination->pub.next_output_byte = buffer + destination->capacity;
    destination->pub.free_in_buffer = capacity - destination->capacity;
    destination->capacity = capacity;
    return TRUE;
}

static void cjpeg_destination_term(j_compress_ptr info) {
    (void)info;
}

static J_COLOR_SPACE cjpeg_input_space(cjpeg_input input, int *components) {
    switch (input) {
    case CJPEG_INPUT_RGB: *components = 3; return JCS_RGB;
    case CJPEG_INPUT_GRAY: *components = 1; return JCS_GRAYSCALE;
    case CJPEG_INPUT_CMYK: *components = 4; return JCS_CMYK;
    case CJPEG_INPUT_RGBA:
    default: *components = 4; return JCS_EXT_RGBA;
    }
}

static cjpeg_status cjpeg_run(cjpeg_encoder *encoder, const uint8_t *pixels, const cjpeg_encode_options *options) {
    if (setjmp(encoder->errors.jump)) return encoder->errors.status;
    j_compress_ptr info = &encoder->info;
    jpeg_create_compress(info);
    encoder->created = 1;
    encoder->destination.capacity = 16384;
    encoder->destination.buffer = malloc(encoder->destination.capacity);
    if (encoder->destination.buffer == NULL) ERREXIT1(info, JERR_OUT_OF_MEMORY, 11);
    encoder->destination.pub.next_output_byte = encoder->destination.buffer;
    encoder->destination.pub.free_in_buffer = encoder->destination.capacity;
    encoder->destination.pub.init_destination = cjpeg_destination_init;
    encoder->destination.pub.empty_output_buffer = cjpeg_destination_grow;
    encoder->destination.pub.term_destination = cjpeg_destination_term;
    info->dest = &encoder->destination.pub;

    int components = 0;
    info->image_width = (JDIMENSION)options->width;
    info->image_height = (JDIMENSION)options->height;
    info->in_color_space = cjpeg_input_space(options->input, &components);
    info->input_components = components;
    jpeg_set_defaults(info);
    if (options->input == CJPEG_INPUT_CMYK) {
        jpeg_set_colorspace(info, options->store_as_ycck ? JCS_YCCK : JCS_CMYK);
        if (options->omit_adobe_marker) info->write_Adobe_marker = FALSE;
    }
    jpeg_set_quality(info, options->quality, TRUE);
    if (options->progressive) jpeg_simple_progression(info);
    jpeg_start_compress(info, TRUE);
    if (options->app1 != NULL && options->app1_size > 0) {
        jpeg_write_marker(info, JPEG_APP0 + 1, options->app1, (unsigned int)options->app1_size);
    }
    JSAMPROW rows[16];
    while (info->next_scanline < info->image_height) {
        size_t first = info->next_scanline;
        size_t count = info->image_height - first < 16 ? info->image_height - first : 16;
        for (size_t index = 0; index < count; index++) {
            rows[index] = (JSAMPROW)(pixels + (first + index) * options->stride);
        }
        jpeg_write_scanlines(info, rows, (JDIMENSION)count);
    }
    jpeg_finish_compress(info);
    return CJPEG_OK;
}

cjpeg_status cjpeg_encode(const uint8_t *pixels, const cjpeg_encode_options *options,
                          uint8_t **output, size_t *output_size, char *message, size_t message_size) {
    if (message != NULL && message_size > 0) message[0] = '\0';
    if (pixels == NULL || options == NULL || output == NULL || output_size == NULL) {
        return CJPEG_ERROR_INVALID_ARGUMENT;
    }
    int components = 0;
    cjpeg_input_space(options->input, &components);
    if (options->width < 1 || options->height < 1 || options->width > JPEG_MAX_DIMENSION
        || options->height > JPEG_MAX_DIMENSION || options->stride < (size_t)options->width * (size_t)components
        || options->quality < 1 || options->quality > 100 || options->app1_size > 65533) {
        if (message != NULL) snprintf(message, message_size, "invalid size, stride, quality or APP1 length");
        return CJPEG_ERROR_INVALID_ARGUMENT;
    }
    cjpeg_encoder *encoder = calloc(1, sizeof *encoder);
    if (encoder == NULL) return CJPEG_ERROR_OUT_OF_MEMORY;
    encoder->info.err = cjpeg_error_manager_init(&encoder->errors);
    cjpeg_status status = cjpeg_run(encoder, pixels, options);
    if (status == CJPEG_OK) {
        *output = encoder->destination.buffer;
        *output_size = encoder->destination.capacity - encoder->destination.pub.free_in_buffer;
    } else {
        free(encoder->destination.buffer);
        if (message != NULL) snprintf(message, message_size, "%s", encoder->errors.message);
    }
    if (encoder->created) jpeg_destroy_compress(&encoder->info);
    free(encoder);
    return status;
}

void cjpeg_free(void *buffer) {
    free(buffer);
}
