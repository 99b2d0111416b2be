import Foundation
import TestSupport
import Testing

@testable import MediaAssets

#if canImport(Glibc)
import Glibc
#endif

/// The directory lock after `close()`. A `flock` belongs to the open file description, which a child
/// process shares from `fork`/`posix_spawn` until its `exec` closes the `O_CLOEXEC` descriptor: a test
/// process that starts helpers (cache-writer, redis-server, ffmpeg) while a cache closes holds the lock
/// for that window unless `close()` unlocks it explicitly.
@Suite("DiskCache lock")
struct DiskCacheLockTests {
    @Test func closeReleasesTheLockWhileACopyOfItsDescriptorIsStillOpen() async throws {
        // Given a cache whose lock descriptor was copied (as a child between fork and exec holds it:
        // a duplicate shares the open file description the same way)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        try await cache.store(CacheEntry(data: Data([1])), forKey: "k")
        let inherited = cache.lockDescriptor.withLock { dup($0) }
        #expect(inherited >= 0)
        defer { close(inherited) }

        // When the cache closes while the copy stays open
        await cache.close()

        // Then another instance opens the directory at once and reads the entry
        let reopened = try DiskCache(directory: directory.url)
        #expect(try await reopened.entry(forKey: "k")?.data == Data([1]))
    }

    @Test func closeReleasesTheLockWhileAChildProcessHoldsItsDescriptor() async throws {
        // Given a real child process that inherited the lock's open file description (cat, reading a
        // pipe this test controls, so it lives exactly as long as the test wants)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)
        let lock = cache.lockDescriptor.withLock { $0 }
        let child = try ChildHoldingDescriptor(lock)
        defer { child.finish() }

        // When the cache closes while the child still runs
        await cache.close()

        // Then the directory is free for another instance
        #expect(throws: Never.self) { _ = try DiskCache(directory: directory.url) }
    }
}

/// A `cat` child process with `descriptor` inherited as its descriptor 3 and a pipe as its input;
/// `finish()` closes the pipe, so it exits, and reaps it.
private final class ChildHoldingDescriptor {
    private var pid: pid_t = 0
    private let input: Int32

    init(_ descriptor: Int32) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EIO) }
        // Close-on-exec, so children that other tests start meanwhile do not keep the pipe open.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        input = pipeEnds[1]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("cat"), nil]
        defer { for argument in arguments { free(argument) } }
        let status = posix_spawnp(&pid, "cat", &actions, nil, arguments, environ)
        close(pipeEnds[0])
        guard status == 0 else {
            close(input)
            throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO)
        }
    }

    func finish() {
        close(input)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
}
