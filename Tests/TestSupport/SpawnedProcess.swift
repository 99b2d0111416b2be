import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program the tests start with `posix_spawn`, not Foundation's `Process`.
///
/// On Linux, `Process.run()` in Swift 6.3.1 lists `/proc/self/fd` by copying each record's whole 256-byte
/// `d_name` (swift-corelibs-foundation #5472, fixed upstream after 6.3.1). In a test process with about a
/// thousand descriptors open, a record at the end of glibc's buffer makes that copy read an unmapped page, and
/// the test process crashes (seen here when a Redis cluster started its servers). The child gets standard
/// input from `/dev/null`, standard output to `output` and standard error to `errorOutput` (each `/dev/null`
/// when not given), and no other descriptor of this process. Starts are serialised with
/// ``ChildProcess/withSpawnLock(_:)``.
public final class SpawnedProcess: Sendable {
    /// The child's process ID.
    public let processIdentifier: pid_t
    /// Its exit, observed by a thread that waits for it.
    public let exit: ProcessExit

    /// Starts `executable` with `arguments`, its standard output going to `output` and its standard error to
    /// `errorOutput` when given.
    public init(_ executable: URL, _ arguments: [String], output: Int32? = nil, errorOutput: Int32? = nil) throws {
        let pid = try ChildProcess.withSpawnLock { () throws -> pid_t in
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            for (target, source) in [(Int32(1), output), (Int32(2), errorOutput)] {
                if let source {
                    posix_spawn_file_actions_adddup2(&actions, source, target)
                } else {
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                }
            }
            guard ChildProcess.addCloseFrom(3, &actions) == 0 else { throw POSIXError(.ENOSYS) }
            let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
            guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
            return pid
        }
        processIdentifier = pid
        exit = ProcessExit(pid: pid)
    }
}

extension SpawnedProcess {
    /// Starts `executable` with its standard output (and its standard error too, when `includingErrors`) going into
    /// a pipe, and returns the pipe's reading end, closed when the handle is released.
    public static func readingOutput(
        _ executable: URL, _ arguments: [String], includingErrors: Bool = false
    ) throws -> (process: SpawnedProcess, output: FileHandle) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EIO) }
        // Close-on-exec, so children that other tests start later do not keep the pipe open.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[1]) }
        do {
            let process = try SpawnedProcess(
                executable, arguments, output: ends[1], errorOutput: includingErrors ? ends[1] : nil)
            return (process, FileHandle(fileDescriptor: ends[0], closeOnDealloc: true))
        } catch {
            close(ends[0])
            throw error
        }
    }
}

extension ChildProcess {
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does
    /// not import: closes every descriptor from `lowest` up in the child. Returns its result, or ENOSYS.
    public static func addCloseFrom(_ lowest: Int32, _ actions: inout posix_spawn_file_actions_t) -> Int32 {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return ENOSYS }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
    }
}
