#ifndef CFUZZSUPPORT_H
#define CFUZZSUPPORT_H

#include <stddef.h>
#include <stdint.h>
// zlib for the seed generator (CRC-32 and compression of zip entries and PNG chunks).
#include <zlib.h>

// libFuzzer's driver (compiler-rt's libclang_rt.fuzzer, linked by -sanitize=fuzzer). SwiftPM gives every
// executable its own `main`, so the targets' mains call the driver instead of relying on libFuzzer's.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
