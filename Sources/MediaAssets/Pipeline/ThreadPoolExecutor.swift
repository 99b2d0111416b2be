import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A `TaskExecutor` backed by a fixed number of threads of its own: where an `AssetsManager` runs CPU work
/// (decoding, resampling, styling, encoding), so that work never occupies Swift's cooperative pool.
///
/// The cooperative pool has one thread per core and is meant for code that waits; a 100 ms decode on it
/// delays every other task in the process by as much (in a server, every request handler). Work sent here
/// with `withTaskExecutorPreference(_:operation:)` (or `AssetsManager.runOnExecutor(_:)`) runs on these
/// threads while the calling task waits without holding one, as swift-nio's `NIOThreadPool` does for an
/// event loop.
///
/// Threads start on demand, up to `threadCount`, and stay parked until the executor is released. Jobs run in
/// the order they came: the manager's stage limiters in front of the executor admit work by priority (their
/// slots bound memory), and the executor only bounds the threads. Any `TaskExecutor` can stand in for this one
/// (`AssetsManager.Configuration.executor`).
///
/// A `niceness` above 0 lowers the threads' scheduling priority (Linux's per-thread nice value, relative to the
/// process's): on a busy machine the kernel then lets a thread that waits for a short while — a request handler,
/// the cooperative pool, a UI — run as soon as it wakes, ahead of a decode that can finish a little later. The
/// manager's pool runs at 10; 0 keeps the process's priority.
///
/// ```swift
/// let pool = ThreadPoolExecutor(threadCount: 2)
/// let thumbnail = try await withTaskExecutorPreference(pool) { try renderer.decode(bytes, targetSize: size) }
/// ```
package final class ThreadPoolExecutor: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var head = 0
        var threads = 0
        /// Threads parked on `wakeUps` (or about to park), each owed one signal.
        var idle = 0
        var isStopping = false
        var executed = 0

        var pendingCount: Int { jobs.count - head }

        mutating func _popJob() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            // The consumed front is dropped once it outweighs the rest: O(1) amortised per job.
            if head > 64, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    /// The most threads this executor runs jobs on.
    package let threadCount: Int
    /// How much lower than the process's the threads' scheduling priority is (Linux nice, 0 to 19).
    package let niceness: Int32
    /// The name each thread carries (`<name> #<n>`), as debuggers and `top -H` show it (Linux keeps 15 bytes).
    package let name: String

    /// What the threads share; they hold it, not the executor, so releasing the executor stops them.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let wakeUps = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()

    /// Creates an executor of at most `threadCount` threads (at least 1), named `name` in the system's tools,
    /// running `niceness` (0 to 19) below the process's scheduling priority.
    package init(threadCount: Int, name: String = "MediaAssets", niceness: Int32 = 0) {
        self.threadCount = max(1, threadCount)
        self.name = name
        self.niceness = min(19, max(0, niceness))
    }

    deinit {
        let parked = shared.state.withLock { state -> Int in
            state.isStopping = true
            defer { state.idle = 0 }
            return state.idle
        }
        for _ in 0..<parked { shared.wakeUps.signal() }
    }

    /// Jobs queued and not started yet.
    package var queuedJobCount: Int { shared.state.withLock { $0.pendingCount } }

    /// Threads started so far (they stay until the executor is released).
    package var startedThreadCount: Int { shared.state.withLock { $0.threads } }

    /// Jobs run so far.
    package var executedJobCount: Int { shared.state.withLock { $0.executed } }

    /// Whether the calling code runs on one of this executor's threads (for assertions and tests).
    package var isCurrentThread: Bool {
        (Thread.current.threadDictionary[Self.threadKey] as? Shared) === shared
    }

    private static let threadKey = "MediaAssets.ThreadPoolExecutor"

    /// Queues `job` and wakes a parked thread, or starts one while fewer than `threadCount` run.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (wakes, starts) = shared.state.withLock { state -> (Bool, Int?) in
            state.jobs.append(job)
            if state.idle > 0 {
                state.idle -= 1
                return (true, nil)
            }
            guard state.threads < threadCount else { return (false, nil) }
            state.threads += 1
            return (false, state.threads)
        }
        if wakes { shared.wakeUps.signal() }
        if let number = starts { startThread(number: number) }
    }

    private func startThread(number: Int) {
        let shared = shared
        let executor = asUnownedTaskExecutor()
        let name = "\(name) #\(number)"
        let niceness = niceness
        let thread = Thread {
            Thread.current.threadDictionary[Self.threadKey] = shared
            #if os(Linux)
            // Per thread on Linux (`who` 0 is the calling thread); raising the value needs no privilege.
            if niceness > 0 {
                let which = __priority_which_t(PRIO_PROCESS.rawValue)
                _ = setpriority(which, 0, min(19, getpriority(which, 0) + niceness))
            }
            // What `top -H` and debuggers show; the kernel keeps 15 bytes of it.
            try? String(decoding: name.utf8.prefix(15), as: UTF8.self)
                .write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            #endif
            Self.work(shared, executor: executor)
        }
        thread.name = name
        thread.start()
    }

    /// A thread's loop: runs queued jobs, parks when there are none, ends when the executor is released.
    private static func work(_ shared: Shared, executor: UnownedTaskExecutor) {
        while true {
            let next = shared.state.withLock { state -> UnownedJob?? in
                if let job = state._popJob() {
                    state.executed += 1
                    return .some(job)
                }
                if state.isStopping { return .none }
                state.idle += 1
                return .some(nil)
            }
            switch next {
            case .none:
                return
            case .some(.some(let job)):
                job.runSynchronously(on: executor)
            case .some(.none):
                shared.wakeUps.wait()
            }
        }
    }
}
