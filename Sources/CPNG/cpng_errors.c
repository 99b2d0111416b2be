#include <stdio.h>
#include <string.h>
#include "cpng_internal.h"

void cpng_error_handler(png_structp png, png_const_charp message) {
    cpng_errors *errors = png_get_error_ptr(png);
    if (errors != NULL) {
        // A status set before the error (truncated input, found by the read callback) is the more precise one.
        if (errors->status == CPNG_OK) errors->status = CPNG_ERROR_CORRUPT;
        if (errors->message[0] == '\0') snprintf(errors->message, sizeof errors->message, "%s", message);
    }
    png_longjmp(png, 1);
}

void cpng_warning_handler(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}
