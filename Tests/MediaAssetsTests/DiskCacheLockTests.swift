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

@Suite("The lock test's child process")
struct ChildHoldingDescriptorTests {
    @Test func theChildHoldsTheLockDescriptorAndNothingElseOfOurs() throws {
        // Given a pipe such as Foundation makes for a program another test runs (not close-on-exec)
        let unrelated = Pipe()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try DiskCache(directory: directory.url)

        // When the child that holds the cache's lock is started, and is past its start-up (while the dynamic
        // loader and the locale set-up run, it has their files open too)
        let child = try ChildHoldingDescriptor(cache.lockDescriptor.withLock { $0 })
        defer { child.finish() }
        #expect(child.echoes())

        // Then it has its standard streams and the lock (3), and not the pipe: holding that pipe's write end
        // would keep the other test's read of it from ending until this child exits
        withExtendedLifetime(unrelated) { #expect(child.descriptors == [0, 1, 2, 3]) }
    }
}

/// A `cat` child process with `descriptor` inherited as its descriptor 3 and pipes as its input and output;
/// `finish()` closes them, so it exits, and reaps it.
private final class ChildHoldingDescriptor {
    private let pid: pid_t
    private let input: Int32
    private let output: Int32

    init(_ descriptor: Int32) throws {
        // Under the test support's spawn lock, and with every other descriptor closed in the child: a
        // `cat` holding another test's pipe or a program's exit socket would stall that test until it ends.
        (pid, input, output) = try ChildProcess.withSpawnLock { () throws -> (pid_t, Int32, Int32) in
            var inputEnds: [Int32] = [0, 0]
            var outputEnds: [Int32] = [0, 0]
            guard pipe(&inputEnds) == 0 else { throw POSIXError(.EIO) }
            guard pipe(&outputEnds) == 0 else {
                for end in inputEnds { close(end) }
                throw POSIXError(.EIO)
            }
            let ends = inputEnds + outputEnds
            // Close-on-exec, so children that other tests start later do not keep the pipes open.
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
            posix_spawn_file_actions_adddup2(&actions, outputEnds[1], 1)
            posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
            guard ChildProcess.addCloseFrom(4, &actions) == 0 else {
                for end in ends { close(end) }
                throw POSIXError(.ENOSYS)
            }
            let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("cat"), nil]
            defer { for argument in arguments { free(argument) } }
            var pid: pid_t = 0
            let status = posix_spawnp(&pid, "cat", &actions, nil, arguments, environ)
            close(inputEnds[0])
            close(outputEnds[1])
            guard status == 0 else {
                close(inputEnds[1])
                close(outputEnds[0])
                throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO)
            }
            return (pid, inputEnds[1], outputEnds[0])
        }
    }

    /// Sends `cat` one byte and reads it back: once it has echoed, it is in its copy loop, past start-up.
    /// False when it exited instead.
    func echoes() -> Bool {
        var byte: UInt8 = 0x2A
        guard write(input, &byte, 1) == 1 else { return false }
        var echoed: UInt8 = 0
        var count = -1
        repeat { count = read(output, &echoed, 1) } while count < 0 && errno == EINTR
        return count == 1 && echoed == 0x2A
    }

    /// The descriptors open in the child, from `/proc/<pid>/fd`.
    var descriptors: Set<Int32> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return Set(entries.compactMap { Int32($0) })
    }

    func finish() {
        close(input)
        close(output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
}
