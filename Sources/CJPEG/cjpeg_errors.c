#include <string.h>
#include "cjpeg_internal.h"

// libjpeg's emit_message(-1) is a warning. Only "premature end of data" is fatal for us: a truncated download
// would otherwise decode with grey rows at the bottom and be cached as if it were whole. Other warnings (extra
// bytes between markers, a bad Huffman code in one block) are common in real files and decode fine.
static void cjpeg_fail(j_common_ptr info, cjpeg_status status) {
    cjpeg_error_manager *manager = (cjpeg_error_manager *)info->err;
    char buffer[JMSG_LENGTH_MAX];
    buffer[0] = '\0';
    (*info->err->format_message)(info, buffer);
    snprintf(manager->message, sizeof manager->message, "%s", buffer);
    manager->status = status;
    longjmp(manager->jump, 1);
}

void cjpeg_abort(j_common_ptr info, cjpeg_status status, const char *message) {
    cjpeg_error_manager *manager = (cjpeg_error_manager *)info->err;
    snprintf(manager->message, sizeof manager->message, "%s", message);
    manager->status = status;
    longjmp(manager->jump, 1);
}

static void cjpeg_error_exit(j_common_ptr info) {
    int code = info->err->msg_code;
    cjpeg_status status = CJPEG_ERROR_CORRUPT;
    if (code == JERR_OUT_OF_MEMORY) {
        status = CJPEG_ERROR_OUT_OF_MEMORY;
    } else if (code == JERR_CONVERSION_NOTIMPL || code == JERR_NOT_COMPILED || code == JERR_BAD_PRECISION) {
        status = CJPEG_ERROR_UNSUPPORTED;
    } else if (code == JERR_INPUT_EMPTY) {
        status = CJPEG_ERROR_TRUNCATED;
    }
    cjpeg_fail(info, status);
}

static void cjpeg_emit_message(j_common_ptr info, int level) {
    if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) {
        cjpeg_fail(info, CJPEG_ERROR_TRUNCATED);
    }
    if (level < 0) {
        info->err->num_warnings++;
    }
}

static void cjpeg_output_message(j_common_ptr info) {
    (void)info;  // Never print to stderr from a library.
}

struct jpeg_error_mgr *cjpeg_error_manager_init(cjpeg_error_manager *manager) {
    struct jpeg_error_mgr *err = jpeg_std_error(&manager->pub);
    err->error_exit = cjpeg_error_exit;
    err->emit_message = cjpeg_emit_message;
    err->output_message = cjpeg_output_message;
    manager->status = CJPEG_OK;
    manager->message[0] = '\0';
    return err;
}
