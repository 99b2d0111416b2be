// Shared by the decoder and the encoder: an error manager that longjmps instead of exiting.
#ifndef CJPEG_INTERNAL_H
#define CJPEG_INTERNAL_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include "CJPEG.h"

#define CJPEG_MESSAGE_SIZE 256

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    cjpeg_status status;
    char message[CJPEG_MESSAGE_SIZE];
} cjpeg_error_manager;

/// Installs the handlers on `manager` and returns it as libjpeg's `err` pointer.
struct jpeg_error_mgr *cjpeg_error_manager_init(cjpeg_error_manager *manager);

/// Records `message` with `status` and longjmps to the active setjmp.
void cjpeg_abort(j_common_ptr info, cjpeg_status status, const char *message);

/// The EXIF orientation (1–8) in an APP1 payload, or 0 when it has none.
int cjpeg_exif_orientation(const uint8_t *payload, size_t length);

#endif
