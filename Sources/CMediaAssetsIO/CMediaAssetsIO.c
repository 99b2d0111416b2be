// Linux system calls Swift cannot reach: openat2(2) has no glibc wrapper before 2.40 (and syscall(2) is
// variadic), and preadv2(2), memfd_create(2) and pthread_setname_np(3) are declared only under _GNU_SOURCE.
// The disk cache reads small entries on the caller's thread only when neither the lookup nor the read can wait
// for the disk; the HEIF decoder reads libheif's box dump through a memory file.
#define _GNU_SOURCE
#include "CMediaAssetsIO.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>

#ifdef __linux__
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#endif

int ma_open_cached(int directory, const char *name, int flags) {
#if defined(__linux__) && defined(SYS_openat2)
    struct open_how how = {0};
    how.flags = (unsigned long long)(O_RDONLY | O_CLOEXEC | flags);
    how.resolve = RESOLVE_CACHED | RESOLVE_BENEATH;
    return (int)syscall(SYS_openat2, directory, name, &how, sizeof how);
#else
    (void)directory;
    (void)name;
    (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

ssize_t ma_pread_nowait(int descriptor, void *buffer, size_t count, off_t offset) {
#if defined(__linux__) && defined(RWF_NOWAIT)
    struct iovec vector = {.iov_base = buffer, .iov_len = count};
    return preadv2(descriptor, &vector, 1, offset, RWF_NOWAIT);
#else
    (void)descriptor;
    (void)buffer;
    (void)count;
    (void)offset;
    errno = ENOSYS;
    return -1;
#endif
}

int ma_memory_file(const char *name) {
#if defined(__linux__) && defined(MFD_CLOEXEC)
    return memfd_create(name, MFD_CLOEXEC);
#else
    (void)name;
    errno = ENOSYS;
    return -1;
#endif
}

void ma_set_thread_name(const char *name) {
#if defined(__linux__)
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    pthread_setname_np(pthread_self(), shortened);
#elif defined(__APPLE__)
    pthread_setname_np(name);
#else
    (void)name;
#endif
}
