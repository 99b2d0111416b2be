import CMediaAssetsIO
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A few threads of its own for blocking I/O (a file read that may wait for the disk, a blocking
/// socket read), so that the cooperative pool never waits on a device.
///
/// `run(_:)` queues the work, one of the threads runs it and resumes the caller with its result: one
/// hand-off (a wake-up of an I/O thread when it sleeps). A concurrent `DispatchQueue` is no substitute
/// on Linux: it targets the default-QoS root queue, whose threads are the ones Swift's cooperative pool
/// runs on, so a "hop" there is cheap (0.4 µs there and back, measured in the disk rows of the
/// benchmarks: the same thread runs the block, then the task) but a read that waits for the disk waits
/// on a pool thread. Jobs run in the order they came; a job that blocks holds one thread, and the others
/// go on. The threads start with the executor, sleep when there is nothing to do, and end when it is
/// released. The disk cache reads through `shared`; the SQLite and Redis backends may share it or make
/// their own.
package final class IOExecutor: Sendable {
    /// The executor the disk cache reads through: four threads, enough for a few reads waiting on a cold
    /// disk at once while others run.
    package static let shared = IOExecutor(name: "MediaAssets.IO", threadCount: 4)

    /// What the threads share; they hold it, not the executor, so releasing the executor stops them.
    private final class Core: Sendable {
        struct Queue {
            /// Jobs from `head` on are waiting; the slots before it are spent.
            var jobs: [(@Sendable () -> Void)?] = []
            var head = 0
            var isStopping = false

            mutating func pop() -> (@Sendable () -> Void)? {
                guard head < jobs.count else { return nil }
                defer {
                    jobs[head] = nil
                    head += 1
                    // Spent slots are dropped once they are half of the array: O(1) amortized a job.
                    if head == jobs.count {
                        jobs.removeAll(keepingCapacity: true)
                        head = 0
                    } else if head >= 64, head * 2 >= jobs.count {
                        jobs.removeFirst(head)
                        head = 0
                    }
                }
                return jobs[head]
            }
        }

        let queue = Mutex(Queue())
        /// Counts queued jobs (and stop signals); a thread sleeps on it while there are none.
        let ready = DispatchSemaphore(value: 0)

        func loop() {
            while true {
                ready.wait()
                let (job, stop) = queue.withLock { queue in (queue.pop(), queue.isStopping) }
                if let job {
                    job()
                } else if stop {
                    return
                }
            }
        }
    }

    private let core = Core()
    /// The number of threads running.
    package let threadCount: Int

    /// Starts `threadCount` (at least one) threads named `name`. If the system refuses every thread,
    /// jobs run on a global dispatch queue instead (slower, never lost).
    package init(name: String, threadCount: Int) {
        var started = 0
        for _ in 0..<max(1, threadCount) where Self.startThread(name: name, core.loop) {
            started += 1
        }
        self.threadCount = started
    }

    deinit {
        core.queue.withLock { $0.isStopping = true }
        for _ in 0..<threadCount { core.ready.signal() }
    }

    /// Runs `work` on one of the threads and returns its result to the caller.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withUnsafeThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Queues `job` for one of the threads.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        guard threadCount > 0 else { return DispatchQueue.global().async(execute: job) }
        core.queue.withLock { $0.jobs.append(job) }
        core.ready.signal()
    }

    private final class Start {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a detached thread running `body`, named `name` for debuggers; returns whether it started.
    private static func startThread(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let code = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                let start = Unmanaged<Start>.fromOpaque(raw).takeRetainedValue()
                ma_set_thread_name(start.name)
                start.body()
                return nil
            }, context)
        if code != 0 { Unmanaged<Start>.fromOpaque(context).release() }
        return code == 0
    }
}
