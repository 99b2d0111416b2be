// Teaches ThreadSanitizer about Synchronization.Mutex on Linux. .ci/sanitizers builds it and preloads it
// (LD_PRELOAD) into the TSan-built test process, after proving it on .ci/tsan/TSanControl.swift.
//
// Mutex's fast paths are inlined into the caller's (instrumented) code as atomic compare-and-swaps on the
// lock word, which TSan sees. Its contended paths (_lockSlow, _tryLockSlow, _unlockSlow) live in the
// uninstrumented libswiftSynchronization.so and hand the lock over through futex(FUTEX_LOCK_PI/UNLOCK_PI), so
// TSan sees no happens-before edge and reports every access the lock protects as a race. This shim
// interposes those three functions and adds the edge on the lock word: a release before the slow unlock, an
// acquire after a slow lock. Nothing else is annotated or suppressed, so real races are still reported.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// TSan's happens-before annotations; weak so a process without TSan (swift-test itself) still loads.
extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));

// The Swift methods take `self` (the _MutexHandle, whose first field is the lock word) in the swiftself
// register: clang's swiftcall convention with a swift_context parameter matches it.
#define SWIFTCALL __attribute__((swiftcall))
#define SELF __attribute__((swift_context))

typedef SWIFTCALL void (*lock_slow_fn)(uint32_t thread_id, SELF void *handle);
typedef SWIFTCALL bool (*try_lock_slow_fn)(SELF void *handle);
typedef SWIFTCALL void (*unlock_slow_fn)(SELF void *handle);

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

static void *real_function(const char *name) {
    void *function = dlsym(RTLD_NEXT, name);
    if (function == NULL) {
        fprintf(stderr, "swift_mutex_annotations: %s not found (Synchronization changed?)\n", name);
        abort();
    }
    return function;
}

SWIFTCALL void lock_slow(uint32_t thread_id, SELF void *handle) __asm__(LOCK_SLOW);
SWIFTCALL void lock_slow(uint32_t thread_id, SELF void *handle) {
    static lock_slow_fn real;
    if (real == NULL) real = (lock_slow_fn)real_function(LOCK_SLOW);
    real(thread_id, handle);
    if (__tsan_acquire) __tsan_acquire(handle);
}

SWIFTCALL bool try_lock_slow(SELF void *handle) __asm__(TRY_LOCK_SLOW);
SWIFTCALL bool try_lock_slow(SELF void *handle) {
    static try_lock_slow_fn real;
    if (real == NULL) real = (try_lock_slow_fn)real_function(TRY_LOCK_SLOW);
    bool locked = real(handle);
    if (locked && __tsan_acquire) __tsan_acquire(handle);
    return locked;
}

SWIFTCALL void unlock_slow(SELF void *handle) __asm__(UNLOCK_SLOW);
SWIFTCALL void unlock_slow(SELF void *handle) {
    static unlock_slow_fn real;
    if (real == NULL) real = (unlock_slow_fn)real_function(UNLOCK_SLOW);
    if (__tsan_release) __tsan_release(handle);
    real(handle);
}
