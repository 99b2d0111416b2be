import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs other programs from the tests (`redis-cli`, `chattr`, `mount`, `python3`, the package's helper
/// executables) so that no wait on one can outlast it by much, nor block the cooperative pool for long.
///
/// - Programs start through ``SpawnedProcess`` (`posix_spawn`): Foundation's `Process.run()` can crash a test
///   process with many descriptors open. Exits are observed, and output read, by threads of their own: never on
///   the cooperative pool, and never on a `DispatchQueue.global()` worker either. On Linux the cooperative pool is a
///   queue as wide as the cores that runs on the same dispatch workers as `DispatchQueue.global()`; a worker blocked
///   for a child's whole run is one the pool cannot have, and while one worker is busy computing, dispatch adds no
///   more. Two children waited on that way beside a CPU-heavy test stalled every async test of the process.
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
        // Read on another thread while waiting for the exit: a program that fills the pipe waits for a reader.
        let output = OutputReader(reading, pid: process.processIdentifier)
        guard let status = process.exit.wait(until: deadline), let data = output.wait(until: deadline) else {
            kill(process.processIdentifier, SIGKILL)
            throw TimedOut(command: ([executable.path] + arguments).joined(separator: " "), timeout: timeout)
        }
        return Outcome(status: status, output: String(decoding: data, as: UTF8.self))
    }

    /// Runs `executable` with `arguments` to its end and returns its status and output, suspending meanwhile:
    /// the output is read and the exit awaited by threads of their own, so no thread of the cooperative pool or
    /// of dispatch's shared workers waits for the program.
    ///
    /// - Throws: the spawn's `POSIXError`, or ``TimedOut`` after `timeout`.
    public static func run(
        _ executable: URL, _ arguments: [String], timeout: Duration = .seconds(120)
    ) async throws -> Outcome {
        let start = ContinuousClock.now
        let (process, reading) = try SpawnedProcess.readingOutput(executable, arguments, includingErrors: true)
        let output = OutputReader(reading, pid: process.processIdentifier)
        guard let status = await process.exit.status(within: timeout),
            let data = await output.data(within: timeout - (ContinuousClock.now - start))
        else {
            kill(process.processIdentifier, SIGKILL)
            throw TimedOut(command: ([executable.path] + arguments).joined(separator: " "), timeout: timeout)
        }
        return Outcome(status: status, output: String(decoding: data, as: UTF8.self))
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
/// cooperative pool or a dispatch worker; async callers suspend until that thread resumes them.
public final class ProcessExit: Sendable {
    private let outcome = ThreadOutcome<Int32>()

    /// Waits for the child `pid` on a thread of its own; the status is the exit code, or the signal's number
    /// when a signal ended it (as `Process.terminationStatus` reports it).
    init(pid: pid_t) {
        let thread = Thread { [outcome] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
            let signal = raw & 0x7F
            outcome.finish(signal == 0 ? (raw >> 8) & 0xFF : signal)
        }
        thread.name = "waitpid \(pid)"
        thread.start()
    }

    /// Whether the process has exited.
    public var hasExited: Bool { outcome.value != nil }

    /// Blocks until the process has exited or `deadline` has passed; returns its status, or `nil` at the
    /// deadline. Any number of callers may wait. For synchronous callers; async code uses ``status(within:)``.
    public func wait(until deadline: DispatchTime) -> Int32? { outcome.wait(until: deadline) }

    /// The process's status once it has exited, or `nil` when `timeout` passed first (or the task was cancelled).
    /// Suspends without holding a thread.
    public func status(within timeout: Duration) async -> Int32? { await outcome.value(within: timeout) }
}

/// Reads a pipe to its end on a thread of its own.
final class OutputReader: Sendable {
    private let outcome = ThreadOutcome<Data>()

    init(_ reading: FileHandle, pid: pid_t) {
        let thread = Thread { [outcome] in outcome.finish(reading.readDataToEndOfFile()) }
        thread.name = "output of \(pid)"
        thread.start()
    }

    func wait(until deadline: DispatchTime) -> Data? { outcome.wait(until: deadline) }

    func data(within timeout: Duration) async -> Data? { await outcome.value(within: timeout) }
}

/// A value a thread of its own delivers once: synchronous callers block for it (bounded), async callers suspend
/// until the thread resumes them or their time is up.
final class ThreadOutcome<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
    private let delivered = DispatchSemaphore(value: 0)

    var value: Value? { state.withLock { $0.value } }

    /// Called once, by the delivering thread: stores `value` and resumes everyone waiting.
    func finish(_ value: Value) {
        let waiters = state.withLock { state in
            state.value = value
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
        delivered.signal()
    }

    func wait(until deadline: DispatchTime) -> Value? {
        guard delivered.wait(timeout: deadline) == .success else { return nil }
        delivered.signal()
        return value
    }

    func value(within timeout: Duration) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await self.delivery() }
            group.addTask {
                try? await Task.sleep(for: max(timeout, .zero))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The value once delivered, or `nil` when the task is cancelled first.
    private func delivery() async -> Value? {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let resumeNow = state.withLock { state -> (Value?, Bool) in
                    if let value = state.value { return (value, true) }
                    if Task.isCancelled { return (nil, true) }
                    state.waiters[id] = continuation
                    return (nil, false)
                }
                if resumeNow.1 { continuation.resume(returning: resumeNow.0) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }
}
