#ifndef C_MEDIA_ASSETS_IO_H
#define C_MEDIA_ASSETS_IO_H

#include <stddef.h>
#include <sys/types.h>

/// Opens `name` relative to `directory` (read-only, with `flags` added) only if the kernel can resolve
/// the path from its caches: openat2(2) with RESOLVE_CACHED (Linux 5.12). Returns the descriptor, or -1
/// with errno EAGAIN when the lookup would have to read the disk, ENOSYS or EINVAL where openat2 or the
/// flag is not available (other systems, older kernels, a seccomp filter).
int ma_open_cached(int directory, const char *name, int flags);

/// Reads up to `count` bytes at `offset` only from the page cache: preadv2(2) with RWF_NOWAIT (Linux
/// 4.14). Returns the bytes read (fewer than `count` when only a part is cached), or -1 with errno EAGAIN
/// when none is cached, EOPNOTSUPP where the file system cannot read without waiting, ENOSYS elsewhere.
ssize_t ma_pread_nowait(int descriptor, void *buffer, size_t count, off_t offset);

/// A file in memory (memfd_create(2) with MFD_CLOEXEC, Linux 3.17), for a library that writes only to a
/// descriptor. Returns the descriptor, or -1 with errno (ENOSYS where the call does not exist).
int ma_memory_file(const char *name);

/// Names the calling thread for debuggers and `top -H` (the first 15 bytes on Linux); does nothing
/// where the system has no such call.
void ma_set_thread_name(const char *name);

#endif
