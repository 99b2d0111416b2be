#ifndef CPNG_INTERNAL_H
#define CPNG_INTERNAL_H

#include <png.h>
#include "CPNG.h"

#define CPNG_MESSAGE_SIZE 256

/// Error state shared by the read and write paths; libpng's error pointer points here.
typedef struct {
    cpng_status status;
    char message[CPNG_MESSAGE_SIZE];
} cpng_errors;

/// Records the message and longjmps back to the active setjmp (libpng's own jmp_buf).
void cpng_error_handler(png_structp png, png_const_charp message);
/// Drops warnings: a library must not print, and benign problems decode fine.
void cpng_warning_handler(png_structp png, png_const_charp message);

#endif
