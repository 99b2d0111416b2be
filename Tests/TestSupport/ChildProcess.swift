import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs other programs from the tests (`redis-cli`, `chattr`, `mount`, `python3`, the package's helper
/// executables) so that no wait on one can outlast it by much, nor block the cooperative pool for long.
///
/// - Programs start through ``SpawnedProcess`` (`posix_spawn`): Foundation's `Process.run()` can crash a test
///   process with many descriptors open. Exits are observed by a waiting thread, never on the cooperative pool.
/// - Every wait is bounded: past its timeout the program is killed and ``TimedOut`` names it.
/// - Starts are serialised (``withSpawnLock(_:)``). On Linux, Foundation creates a program's pipes and its
///   exit-notification socket without close-on-exec, and closes the descriptors below the highest one it
///   saw in the child; a program started by another thread at the same moment could inherit them and keep
///   the pipe from ending, or the exit from being noticed, for as long as it runs (a Redis server, for the
///   whole test process).
public enum ChildProcess {
    /// What a finished program reported.
    public struct Outcome: Sendable {
        /// The exit status (or the signal number, when a signal ended it).
        public var status: Int32
        /// Standard output and standard error, interleaved as written.
        public var output: String
    }

    /// A program that had not finished when its time was up; it was killed.
    public struct TimedOut: Error, CustomStringConvertible {
        /// The program and its arguments.
        public var command: String
        /// How long it was given.
        public var timeout: Duration
        public var description: String { "\(command) did not finish within \(timeout); it was killed" }
    }

    private static let spawnLock = Mutex(())

    /// Runs `body` (which creates descriptors for a child and starts it) while no other test-support code
    /// starts a program, so no other child inherits the descriptors in between.
    public static func withSpawnLock<T>(_ body: () throws -> T) rethrows -> T {
        try spawnLock.withLock { _ in try body() }
    }

    /// Runs `executable` with `arguments` to its end, blocking the calling thread, and returns its status and
    /// output. For synchronous callers (a `defer`, a static `let`); async code uses the `async` overload.
    ///
    /// - Throws: the spawn's `POSIXError`, or ``TimedOut`` after `timeout`.
    public static func run(
        _ executable: URL, _ arguments: [String], timeout: Duration = .seconds(120)
    ) throws -> Outcome {
        let deadline = DispatchTime.now() + .nanoseconds(Int(timeout / .nanoseconds(1)))
        let (process, reading) = try SpawnedProcess.readingOutput(executable, arguments, includingErrors: true)
        let exit = process.exit
        // Read on another thread while waiting for the exit: a program that fills the pipe waits for a reader.
        let collected = Mutex(Data())
        let readToEnd = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = reading.readDataToEndOfFile()
            collected.withLock { $0 = data }
            readToEnd.signal()
        }
        guard let status = exit.wait(until: deadline), readToEnd.wait(timeout: deadline) == .success else {
            kill(process.processIdentifier, SIGKILL)
            throw TimedOut(command: ([executable.path] + arguments).joined(separator: " "), timeout: timeout)
        }
        return Outcome(status: status, output: String(decoding: collected.withLock { $0 }, as: UTF8.self))
    }

    /// Runs `executable` with `arguments` to its end on a thread outside the cooperative pool and returns its
    /// status and output.
    ///
    /// - Throws: the spawn's `POSIXError`, or ``TimedOut`` after `timeout`.
    public static func run(
        _ executable: URL, _ arguments: [String], timeout: Duration = .seconds(120)
    ) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try run(executable, arguments, timeout: timeout) as Outcome })
            }
        }
    }

    /// The first executable called `name` on `PATH`, or `nil`.
    public static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

/// The exit of a ``SpawnedProcess``: a thread of its own waits for it with `waitpid`, so no wait blocks the
/// cooperative pool.
public final class ProcessExit: Sendable {
    private let exited = DispatchSemaphore(value: 0)
    private let status = Mutex<Int32?>(nil)

    /// Waits for the child `pid` on a thread of its own; the status is the exit code, or the signal's number
    /// when a signal ended it (as `Process.terminationStatus` reports it).
    init(pid: pid_t) {
        let thread = Thread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
            let signal = raw & 0x7F
            status.withLock { $0 = signal == 0 ? (raw >> 8) & 0xFF : signal }
            exited.signal()
        }
        thread.name = "waitpid \(pid)"
        thread.start()
    }

    /// Whether the process has exited.
    public var hasExited: Bool { status.withLock { $0 != nil } }

    /// Blocks until the process has exited or `deadline` has passed; returns its status, or `nil` at the
    /// deadline. Any number of callers may wait.
    public func wait(until deadline: DispatchTime) -> Int32? {
        guard exited.wait(timeout: deadline) == .success else { return nil }
        exited.signal()
        return status.withLock { $0 }
    }
}
