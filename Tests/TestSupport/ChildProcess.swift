import Foundation
import Synchronization

/// Runs other programs from the tests (`redis-cli`, `chattr`, `mount`, `python3`, the package's helper
/// executables) and waits for their exit through `Process.terminationHandler`.
///
/// `Process.waitUntilExit()` is not used anywhere in the tests: on Linux it spins the calling thread's run
/// loop until Foundation marks the process finished, and called from a thread of the cooperative pool in a
/// busy test run it can miss the exit and park that thread for good. CI saw this as a ThreadSanitizer run
/// that stopped making progress after about 50 s and was killed at its 15-minute limit. The termination
/// handler is called on Foundation's own queue whatever the calling thread does, so a wait on it always ends.
public enum ChildProcess {
    /// What a finished program reported.
    public struct Outcome: Sendable {
        /// The exit status (or the signal number, when a signal ended it).
        public var status: Int32
        /// Standard output and standard error, interleaved as written.
        public var output: String
    }

    /// Runs `executable` with `arguments` to its end, blocking the calling thread, and returns its status and
    /// output. For synchronous callers (a `defer`, a static `let`); async code uses the `async` overload.
    public static func run(_ executable: URL, _ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let exit = ProcessExit(of: process)
        try process.run()
        // Read before waiting: a program that fills the pipe would otherwise never exit.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return Outcome(status: exit.wait(), output: String(decoding: data, as: UTF8.self))
    }

    /// Runs `executable` with `arguments` to its end on a thread outside the cooperative pool and returns its
    /// status and output.
    public static func run(_ executable: URL, _ arguments: [String]) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try run(executable, arguments) as Outcome })
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

/// The exit of one `Process`, observed through its termination handler.
///
/// Create it before `run()`, so that a program exiting at once is not missed.
public final class ProcessExit: Sendable {
    private let exited = DispatchSemaphore(value: 0)
    private let status = Mutex<Int32?>(nil)

    /// Installs itself as the termination handler of `process`, which must not be running yet.
    public init(of process: Process) {
        process.terminationHandler = { [self] finished in
            status.withLock { $0 = finished.terminationStatus }
            exited.signal()
        }
    }

    /// Whether the process has exited.
    public var hasExited: Bool { status.withLock { $0 != nil } }

    /// Blocks until the process has exited and returns its status. Any number of callers may wait.
    @discardableResult
    public func wait() -> Int32 {
        exited.wait()
        exited.signal()
        return status.withLock { $0 ?? -1 }
    }
}
