#include <string.h>
#include "cjpeg_internal.h"

static uint32_t read16(const uint8_t *bytes, int little) {
    return little ? (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 : (uint32_t)bytes[0] << 8 | (uint32_t)bytes[1];
}

static uint32_t read32(const uint8_t *bytes, int little) {
    return little ? read16(bytes, 1) | read16(bytes + 2, 1) << 16 : read16(bytes, 0) << 16 | read16(bytes + 2, 0);
}

// Walks IFD0 of the TIFF structure after "Exif\0\0" looking for tag 0x0112. Every offset is checked against
// `length` before it is read: the payload comes from the file.
int cjpeg_exif_orientation(const uint8_t *payload, size_t length) {
    static const uint8_t signature[6] = {'E', 'x', 'i', 'f', 0, 0};
    if (payload == NULL || length < 6 + 8 || memcmp(payload, signature, 6) != 0) return 0;
    const uint8_t *tiff = payload + 6;
    size_t size = length - 6;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') {
        little = 1;
    } else if (tiff[0] == 'M' && tiff[1] == 'M') {
        little = 0;
    } else {
        return 0;
    }
    if (read16(tiff + 2, little) != 42) return 0;
    size_t directory = read32(tiff + 4, little);
    if (directory < 8 || directory > size || size - directory < 2) return 0;
    size_t count = read16(tiff + directory, little);
    for (size_t index = 0; index < count; index++) {
        size_t entry = directory + 2 + index * 12;
        if (entry > size || size - entry < 12) return 0;
        if (read16(tiff + entry, little) != 0x0112) continue;
        uint32_t type = read16(tiff + entry + 2, little);
        uint32_t value = 0;
        if (type == 3) {            // SHORT, stored in the first two bytes of the value field
            value = read16(tiff + entry + 8, little);
        } else if (type == 4) {     // LONG: not what the spec says, but some writers do it
            value = read32(tiff + entry + 8, little);
        }
        return (value >= 1 && value <= 8) ? (int)value : 0;
    }
    return 0;
}
