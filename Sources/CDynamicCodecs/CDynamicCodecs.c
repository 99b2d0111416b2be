// The declarations are in include/CDynamicCodecs.h; the one helper defined here needs _GNU_SOURCE.
#define _GNU_SOURCE
#include <sys/mman.h>

#include "CDynamicCodecs.h"

int ma_memory_file(const char *name) { return memfd_create(name, MFD_CLOEXEC); }
