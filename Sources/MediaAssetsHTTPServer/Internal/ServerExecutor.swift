import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs the jobs of handler tasks on the server's thread, between two polls of its sockets.
///
/// Handlers that wait (at a gate, in latency, for a slow client) then never hold a thread of the
/// cooperative pool, and a test blocking pool threads never stalls the server. While the server is not
/// running, jobs go to a global dispatch queue, so a cancelled handler still runs to its end.
final class ServerExecutor: TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var isRunning = false
        /// A wake-up byte is in the pipe, or the loop is about to look at the queue anyway.
        var isAwake = false
        var wakeFD: Int32 = -1
    }

    private let queue = Mutex(Queue())

    func enqueue(_ job: consuming ExecutorJob) {
        let unownedJob = UnownedJob(job)
        let runsElsewhere = queue.withLock { queue -> Bool in
            guard queue.isRunning else { return true }
            queue.jobs.append(unownedJob)
            guard !queue.isAwake else { return false }
            queue.isAwake = true
            // Written under the lock: `close()` takes the descriptor away under it before the pipe closes.
            Self.wake(queue.wakeFD)
            return false
        }
        if runsElsewhere {
            DispatchQueue.global().async { unownedJob.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Starts queueing jobs for the loop, which `wakeFD` wakes.
    func open(wakeFD: Int32) {
        queue.withLock { queue in
            queue.isRunning = true
            queue.isAwake = false
            queue.wakeFD = wakeFD
        }
    }

    /// Stops queueing: jobs still queued, and every later one, go to a global dispatch queue.
    func close() {
        let left = queue.withLock { queue -> [UnownedJob] in
            queue.isRunning = false
            queue.wakeFD = -1
            defer { queue.jobs = [] }
            return queue.jobs
        }
        for job in left { DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }

    /// Runs the jobs queued now (on the loop's thread); returns whether more were queued meanwhile.
    func runQueuedJobs() -> Bool {
        let jobs = queue.withLock { queue -> [UnownedJob] in
            defer { queue.jobs = [] }
            return queue.jobs
        }
        for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        return queue.withLock { !$0.jobs.isEmpty }
    }

    /// Called just before the loop polls: later jobs must wake it. Returns whether jobs are waiting.
    func prepareToPoll() -> Bool {
        queue.withLock { queue in
            queue.isAwake = !queue.jobs.isEmpty
            return queue.isAwake
        }
    }

    /// Wakes a poll on the other end of the pipe.
    static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }
}
