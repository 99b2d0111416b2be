// Scan-limited decoding of progressive JPEGs. A DCT-scaled output reads only the top-left square of each
// block's coefficients (1×1 at 1/8 scale: the DC alone), so scans that refine only the other coefficients
// change nothing it shows. Before decoding, the rest of the file is walked marker by marker (the entropy-coded
// data is skipped with memchr, not decoded), the scans nobody needs are left out of what libjpeg reads, and the
// walk must reach EOI: a cut file still fails as truncated, and the scan-count guard still holds.
#include <stdlib.h>
#include <string.h>
#include "cjpeg_internal.h"

#define CJPEG_SOI 0xD8
#define CJPEG_SOS 0xDA

// The natural (row-major) position of each zigzag coefficient index, from the JPEG standard (ITU T.81, A.3.6).
static const int cjpeg_natural_order[DCTSIZE2] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

// Whether zigzag coefficient `index` lies in the top-left `size` × `size` square a reduced IDCT reads.
static int cjpeg_coefficient_is_read(int index, int size) {
    int natural = cjpeg_natural_order[index];
    return natural / DCTSIZE < size && natural % DCTSIZE < size;
}

int cjpeg_scan_is_needed(j_decompress_ptr info, const int *component_indices, int count, int Ss, int Se) {
    if (Ss == 0) return 1;  // DC scans are read at every scale
    for (int listed = 0; listed < count; listed++) {
        int size = info->comp_info[component_indices[listed]].DCT_scaled_size;
        for (int index = Ss; index <= Se && index < DCTSIZE2; index++) {
            if (cjpeg_coefficient_is_read(index, size)) return 1;
        }
    }
    return 0;
}

// --- The filtered source: the kept byte ranges in order; past the last one, a fake EOI as jpeg_mem_src gives.

static void cjpeg_filtered_init(j_decompress_ptr info) {
    (void)info;
}

static boolean cjpeg_filtered_fill(j_decompress_ptr info) {
    cjpeg_filtered_source *source = (cjpeg_filtered_source *)info->src;
    static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};
    if (source->next_range < source->range_count) {
        cjpeg_range range = source->ranges[source->next_range++];
        source->pub.next_input_byte = source->data + range.start;
        source->pub.bytes_in_buffer = range.end - range.start;
        return TRUE;
    }
    WARNMS(info, JWRN_JPEG_EOF);  // a truncation for our error manager; the walk makes it unreachable
    source->pub.next_input_byte = fake_eoi;
    source->pub.bytes_in_buffer = 2;
    return TRUE;
}

static void cjpeg_filtered_skip(j_decompress_ptr info, long count) {
    struct jpeg_source_mgr *source = info->src;
    if (count <= 0) return;
    size_t remaining = (size_t)count;
    while (remaining > source->bytes_in_buffer) {
        remaining -= source->bytes_in_buffer;
        (void)(*source->fill_input_buffer)(info);
    }
    source->next_input_byte += remaining;
    source->bytes_in_buffer -= remaining;
}

static void cjpeg_filtered_term(j_decompress_ptr info) {
    (void)info;
}

// --- The walk

/// A scan after the first: where its SOS marker starts and its entropy-coded data ends, and what it refines.
typedef struct {
    size_t start;
    size_t end;
    int components[MAX_COMPS_IN_SCAN];
    int count;
    int Ss, Se, Ah;
} cjpeg_scan;

typedef struct {
    const uint8_t *data;
    size_t size;
    cjpeg_scan *scans;
    size_t count;
    size_t capacity;
} cjpeg_walk;

static int cjpeg_walk_add(cjpeg_walk *walk, cjpeg_scan scan) {
    if (walk->count == walk->capacity) {
        size_t capacity = walk->capacity == 0 ? 16 : walk->capacity * 2;
        cjpeg_scan *scans = realloc(walk->scans, capacity * sizeof *scans);
        if (scans == NULL) return 0;
        walk->scans = scans;
        walk->capacity = capacity;
    }
    walk->scans[walk->count++] = scan;
    return 1;
}

// The offset of the next marker's 0xFF at or after `offset` (entropy-coded data, stuffed 0xFF00, restart
// markers and fill bytes skipped, as libjpeg's reader does), with its code in `*code`; `size` when none.
static size_t cjpeg_next_marker(const cjpeg_walk *walk, size_t offset, int *code) {
    while (offset < walk->size) {
        const uint8_t *found = memchr(walk->data + offset, 0xFF, walk->size - offset);
        if (found == NULL) return walk->size;
        size_t next = (size_t)(found - walk->data) + 1;
        while (next < walk->size && walk->data[next] == 0xFF) next++;
        if (next >= walk->size) return walk->size;
        int byte = walk->data[next];
        if (byte != 0x00 && !(byte >= JPEG_RST0 && byte <= JPEG_RST0 + 7)) {
            *code = byte;
            return next - 1;
        }
        offset = next + 1;
    }
    return walk->size;
}

// Markers libjpeg refuses in the middle of a file; the walk refuses them too, whichever scan they follow.
static int cjpeg_marker_is_refused(int code) {
    int frame = code >= 0xC0 && code <= 0xCF && code != 0xC4 && code != 0xCC;
    return frame || code == CJPEG_SOI || (code >= 0x02 && code <= 0xBF) || (code >= 0xF0 && code <= 0xFD);
}

// Walks from `offset` to EOI, listing the scans; sets `*eoi` to the EOI marker's offset. A status and message
// for a file libjpeg would also fail on: cut short, a bad segment, too many scans.
static cjpeg_status cjpeg_walk_scans(cjpeg_decoder *decoder, cjpeg_walk *walk, size_t offset, size_t *eoi,
                                     const char **message) {
    j_decompress_ptr info = &decoder->info;
    int scans = info->input_scan_number;
    for (;;) {
        int code = 0;
        size_t marker = cjpeg_next_marker(walk, offset, &code);
        if (marker >= walk->size) {
            *message = "the file ends before its EOI marker";
            return CJPEG_ERROR_TRUNCATED;
        }
        if (walk->count > 0 && walk->scans[walk->count - 1].end == 0) walk->scans[walk->count - 1].end = marker;
        if (code == JPEG_EOI) {
            *eoi = marker;
            return CJPEG_OK;
        }
        if (cjpeg_marker_is_refused(code)) {
            *message = "a marker libjpeg does not accept between scans";
            return CJPEG_ERROR_CORRUPT;
        }
        if (code == 0x01) {  // TEM: no length
            offset = marker + 2;
            continue;
        }
        if (marker + 4 > walk->size) {
            *message = "the file ends inside a marker";
            return CJPEG_ERROR_TRUNCATED;
        }
        size_t length = (size_t)walk->data[marker + 2] << 8 | walk->data[marker + 3];
        if (length < 2) {
            *message = "a marker segment shorter than its length field";
            return CJPEG_ERROR_CORRUPT;
        }
        if (marker + 2 + length > walk->size) {
            *message = "the file ends inside a marker segment";
            return CJPEG_ERROR_TRUNCATED;
        }
        offset = marker + 2 + length;
        if (code != CJPEG_SOS) continue;
        if (++scans > decoder->scan_limit) {
            *message = "more scans than the limit (a progressive scan bomb?)";
            return CJPEG_ERROR_CORRUPT;
        }
        // The component count is the segment's first byte: an SOS segment of length 2 has none, and at the end of
        // the file its first byte would lie past the data.
        if (length < 3) {
            *message = "a bad scan header";
            return CJPEG_ERROR_CORRUPT;
        }
        const uint8_t *header = walk->data + marker + 4;
        cjpeg_scan scan = {marker, 0, {0}, header[0], 0, 0, 0};
        if (scan.count < 1 || scan.count > MAX_COMPS_IN_SCAN || length != (size_t)(6 + 2 * scan.count)) {
            *message = "a bad scan header";
            return CJPEG_ERROR_CORRUPT;
        }
        int matched = 1;
        for (int listed = 0; listed < scan.count && matched; listed++) {
            matched = 0;
            for (int index = 0; index < info->num_components; index++) {
                if (info->comp_info[index].component_id == header[1 + 2 * listed]) {
                    scan.components[listed] = index;
                    matched = 1;
                }
            }
        }
        scan.Ss = header[1 + 2 * scan.count];
        scan.Se = header[2 + 2 * scan.count];
        scan.Ah = header[3 + 2 * scan.count] >> 4;
        // A scan libjpeg will reject is kept (marked as refining everything), so libjpeg reports it.
        if (!matched || scan.Ss > scan.Se || scan.Se >= DCTSIZE2) scan.Ss = 0;
        if (!cjpeg_walk_add(walk, scan)) {
            *message = "out of memory";
            return CJPEG_ERROR_OUT_OF_MEMORY;
        }
    }
}

cjpeg_status cjpeg_install_scan_filter(cjpeg_decoder *decoder) {
    j_decompress_ptr info = &decoder->info;
    cjpeg_walk walk = {decoder->data, decoder->size, NULL, 0, 0};
    size_t offset = (size_t)(info->src->next_input_byte - decoder->data);
    size_t eoi = 0;
    const char *message = NULL;
    cjpeg_status status = cjpeg_walk_scans(decoder, &walk, offset, &eoi, &message);
    if (status != CJPEG_OK) {
        free(walk.scans);
        return cjpeg_reject(decoder, status, message);
    }
    // From the last scan back: a scan is kept when the output reads a coefficient it refines, or when a kept
    // refinement scan depends on it (refinement decoding needs every earlier scan of its band), so every
    // coefficient the output reads ends at full precision and the output is the full decode's, pixel for pixel.
    unsigned char history[MAX_COMPONENTS][DCTSIZE2];
    memset(history, 0, sizeof history);
    cjpeg_range *ranges = malloc((walk.count + 1) * sizeof *ranges);
    if (ranges == NULL) {
        free(walk.scans);
        return cjpeg_reject(decoder, CJPEG_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    unsigned char *kept = calloc(walk.count + 1, 1);
    if (kept == NULL) {
        free(walk.scans);
        free(ranges);
        return cjpeg_reject(decoder, CJPEG_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t index = walk.count; index-- > 0;) {
        cjpeg_scan *scan = &walk.scans[index];
        int keep = cjpeg_scan_is_needed(info, scan->components, scan->count, scan->Ss, scan->Se);
        for (int listed = 0; listed < scan->count && !keep; listed++) {
            for (int coefficient = scan->Ss; coefficient <= scan->Se; coefficient++) {
                keep |= history[scan->components[listed]][coefficient];
            }
        }
        kept[index] = (unsigned char)keep;
        if (!keep || scan->Ah == 0) continue;
        for (int listed = 0; listed < scan->count; listed++) {
            memset(&history[scan->components[listed]][scan->Ss], 1, (size_t)(scan->Se - scan->Ss + 1));
        }
    }
    // The kept ranges: from the current position (the first scan's data) to EOI, less the scans left out.
    size_t range_count = 0;
    size_t from = offset;
    for (size_t index = 0; index < walk.count; index++) {
        if (kept[index]) continue;
        if (walk.scans[index].start > from) ranges[range_count++] = (cjpeg_range){from, walk.scans[index].start};
        from = walk.scans[index].end;
        decoder->scans_skipped++;
    }
    ranges[range_count++] = (cjpeg_range){from, eoi + 2};
    free(kept);
    free(walk.scans);
    cjpeg_filtered_source *source = &decoder->filtered;
    free(source->ranges);
    source->ranges = ranges;
    source->range_count = range_count;
    source->next_range = 0;
    source->data = decoder->data;
    source->pub.init_source = cjpeg_filtered_init;
    source->pub.fill_input_buffer = cjpeg_filtered_fill;
    source->pub.skip_input_data = cjpeg_filtered_skip;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = cjpeg_filtered_term;
    source->pub.next_input_byte = NULL;
    source->pub.bytes_in_buffer = 0;
    info->src = &source->pub;
    // libjpeg smooths blocks whose coefficients never all arrived; those the output reads all did.
    if (decoder->scans_skipped > 0) info->do_block_smoothing = FALSE;
    return CJPEG_OK;
}
