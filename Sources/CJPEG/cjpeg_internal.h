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

/// A byte range [start, end) of the input.
typedef struct {
    size_t start;
    size_t end;
} cjpeg_range;

/// The source of a scan-limited decode: the input with the scans the output does not need left out.
typedef struct {
    struct jpeg_source_mgr pub;
    const uint8_t *data;
    cjpeg_range *ranges;
    size_t range_count;
    size_t next_range;
} cjpeg_filtered_source;

/// The source of an incremental decode: the bytes appended so far that libjpeg has not consumed, kept in a
/// buffer of its own (a suspending source: libjpeg backs up to where it can resume when it runs out).
typedef struct {
    struct jpeg_source_mgr pub;
    uint8_t *buffer;
    size_t capacity;
    /// Bytes libjpeg asked to skip beyond what had arrived (a marker it ignores).
    size_t pending_skip;
    /// Total bytes appended.
    size_t received;
} cjpeg_suspending_source;

struct cjpeg_decoder {
    struct jpeg_decompress_struct info;
    cjpeg_error_manager errors;
    const uint8_t *data;
    size_t size;
    int created;
    int header_read;
    int started;
    int cmyk_inverted;
    int cmyk_output;
    int scan_limit;
    struct jpeg_progress_mgr progress;
    /// Scan-limited decoding (cjpeg_scans.c).
    int skips_unneeded_scans;
    int scans_skipped;
    cjpeg_filtered_source filtered;
    /// Incremental decoding (cjpeg_incremental.c).
    int incremental;
    int failed;
    int finishing_output;
    /// The last two completed scans that changed coefficients the output reads (0 when none).
    int last_useful_scan;
    int prior_useful_scan;
    JSAMPARRAY preview_row;
    cjpeg_suspending_source suspending;
};

/// Sets the output scale and colour space; YCCK and CMYK come out as CMYK, the rest as RGBA.
void cjpeg_configure(cjpeg_decoder *decoder, int scale_numerator);
/// Converts `width` CMYK pixels of `row` to opaque RGBA in place.
void cjpeg_cmyk_row_to_rgba(uint8_t *row, size_t width, int inverted);
/// Records `message` with `status` as the decoder's failure and returns `status`.
cjpeg_status cjpeg_reject(cjpeg_decoder *decoder, cjpeg_status status, const char *message);
/// Checks that the `width` × `height` rectangle at (`x`, `y`) lies inside the started output and that `stride`
/// and `capacity` hold it as RGBA8; CJPEG_ERROR_INVALID_ARGUMENT (recorded) otherwise.
cjpeg_status cjpeg_check_rect(cjpeg_decoder *decoder, int x, int y, int width, int height, size_t stride,
                              size_t capacity);
/// Fills the header from libjpeg's state once jpeg_read_header returned.
void cjpeg_fill_header(cjpeg_decoder *decoder, cjpeg_header *header);
/// Whether scan `Ss`..`Se` of the listed components changes a coefficient the output at the configured scale
/// reads (each component's reduced inverse DCT reads only its top-left `DCT_scaled_size` square).
int cjpeg_scan_is_needed(j_decompress_ptr info, const int *component_indices, int count, int Ss, int Se);
/// Replaces the source by one that leaves out the scans the configured output does not need, after checking
/// that the rest of the file reaches EOI (CJPEG_ERROR_TRUNCATED otherwise). Call between the header and
/// jpeg_start_decompress of a progressive file.
cjpeg_status cjpeg_install_scan_filter(cjpeg_decoder *decoder);

#endif
