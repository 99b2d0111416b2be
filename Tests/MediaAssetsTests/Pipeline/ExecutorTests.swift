import Dispatch
import Foundation
import MediaAssets
import SampleOrigin
import Synchronization
import TestSupport
import Testing

/// Text decoding and processing that record the thread they ran on, and can hold that thread.
struct ThreadRecordingDecoder: AssetDecoding {
    let threads: ThreadNames
    var identifier: String { "recorded-text" }

    func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> String {
        threads.record()
        return String(decoding: data, as: UTF8.self)
    }

    func cost(of text: String) -> Int { text.utf8.count }
    func encodeVariant(_ text: String) throws -> EncodedVariant? {
        threads.record()
        return EncodedVariant(data: Data(text.utf8), contentType: "text/plain")
    }
}

/// Upper-cases text, recording its thread; while `gate` is closed, each call blocks its thread (bounded).
struct BlockingUppercased: AssetProcessing {
    let threads: ThreadNames
    var gate: StepGate?
    var identifier: String { "blocking-uppercased" }

    func process(_ text: String) throws -> String {
        threads.record()
        if let gate {
            threads.blocked.add()
            gate.wait()
            threads.released.add()
        }
        return text.uppercased()
    }
}

/// A gate that `width` blocking steps wait at until the test opens it. A step gives up 30 s after the last of
/// them arrived, so a regression that starves the test's own task fails it rather than hanging it. The 30 s start
/// only once all have arrived: steps that reach the gate slowly (a loaded machine, a sanitizer, the executor's
/// threads at nice 10) do not use up the time the test has to check what runs while they block.
final class StepGate: Sendable {
    let width: Int
    private let semaphore = DispatchSemaphore(value: 0)
    private let lastArrival = Mutex<(arrived: Int, at: ContinuousClock.Instant?)>((0, nil))

    init(width: Int) { self.width = width }

    /// Blocks until the gate opens, or 30 s after the last of `width` steps arrived.
    func wait() {
        lastArrival.withLock { state in
            state.arrived += 1
            if state.arrived == width { state.at = .now }
        }
        while semaphore.wait(timeout: .now() + 0.5) == .timedOut {
            guard let allArrived = lastArrival.withLock({ $0.at }) else { continue }
            if ContinuousClock.now - allArrived > .seconds(30) { return }
        }
    }

    /// Lets every step through.
    func open() { for _ in 0..<width { semaphore.signal() } }
}

/// How many run at once, and the most that did.
final class RunningCount: Sendable {
    private let state = Mutex((now: 0, peak: 0))

    var peak: Int { state.withLock { $0.peak } }

    func enter() {
        state.withLock { state in
            state.now += 1
            state.peak = max(state.peak, state.now)
        }
    }

    func leave() { state.withLock { $0.now -= 1 } }
}

/// Where each step of some work ran: on `pool`'s threads or elsewhere.
final class ThreadNames: Sendable {
    let pool: ThreadPoolExecutor?
    let onPool = Mutex<[Bool]>([])
    let blocked = SharedCount()
    let released = SharedCount()

    init(pool: ThreadPoolExecutor? = nil) { self.pool = pool }

    func record() {
        let isOnPool = pool?.isCurrentThread ?? false
        onPool.withLock { $0.append(isOnPool) }
    }
}

@Suite("CPU work runs on the manager's executor, not the cooperative pool")
struct ExecutorTests {
    @Test("the manager's pool runs its jobs 10 below the process's scheduling priority; a pool of 0 does not")
    func poolThreadsRunAtALowerPriority() async throws {
        // Given a manager with its default executor, and a pool at the process's priority
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let processNice = getpriority(which, 0)
        let manager = try AssetsManager(configuration: .init(disk: nil, executor: .threads(1)))
        let plain = ThreadPoolExecutor(threadCount: 1, name: "plain-pool")

        // When a job asks its thread's nice value on each
        let managed = try await manager.runtime.runOnExecutor { getpriority(which, 0) }
        let unchanged = await withTaskExecutorPreference(plain) { getpriority(which, 0) }

        // Then
        #expect(managed == min(19, processNice + 10))
        #expect(unchanged == processNice)
        await manager.shutdown()
    }

    @Test("a ThreadPoolExecutor runs jobs on its own threads, at most threadCount at once")
    func poolBoundsItsThreads() async throws {
        // Given an executor of two threads
        let pool = ThreadPoolExecutor(threadCount: 2, name: "bounded-pool")
        let running = RunningCount()
        let names = ThreadNames(pool: pool)

        // When eight tasks each hold a thread of it for a moment
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await withTaskExecutorPreference(pool) {
                        running.enter()
                        names.record()
                        usleep(20_000)
                        running.leave()
                    }
                }
            }
            try await group.waitForAll()
        }

        // Then every job ran on one of its two threads, two at a time at most
        #expect(running.peak <= 2)
        #expect(pool.startedThreadCount == 2)
        #expect(pool.executedJobCount == 8)
        #expect(names.onPool.withLock { $0 } == Array(repeating: true, count: 8))
        #expect(!pool.isCurrentThread)
    }

    @Test("decode, process and encode of a pipeline run on the executor the configuration names")
    func pipelineStagesRunOnTheExecutor() async throws {
        // Given a manager whose executor is a pool of our own, and a pipeline that records its threads
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = ThreadPoolExecutor(threadCount: 1, name: "test-cpu")
        let manager = try AssetsManager.forTesting(directory: directory, executor: .custom(pool))
        let threads = ThreadNames(pool: pool)
        let pipeline = AssetPipeline(manager: manager, decoder: ThreadRecordingDecoder(threads: threads))
        let url = environment.serve("/text", Data("hello".utf8))

        // When a processed value is made (downloaded, decoded, processed, encoded for the disk)
        let value = try await pipeline.value(
            for: AssetRequest(url: url), processor: BlockingUppercased(threads: threads), options: .init(),
            storageType: .disk)

        // Then each step ran on the pool's thread: one job for the decode, one for processing and encoding
        #expect(value.value == "HELLO")
        #expect(threads.onPool.withLock { $0 } == [true, true, true])
        #expect(pool.executedJobCount == 2)
        #expect(manager.runtime.executor === pool)
    }

    @Test("work blocked on the executor leaves the cooperative pool free")
    func blockedWorkLeavesTheCooperativePoolFree() async throws {
        // Given more blocking processing steps than the cooperative pool has threads, each allowed to run at once
        let width = ProcessInfo.processInfo.activeProcessorCount + 2
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try AssetsManager.forTesting(
            directory: directory, stageLimits: .init(processes: width), executor: .threads(width))
        let threads = ThreadNames()
        let gate = StepGate(width: width)
        defer { gate.open() }
        let pipeline = AssetPipeline(manager: manager, decoder: ThreadRecordingDecoder(threads: threads))
        let asks = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<width {
                    let url = environment.serve("/text-\(index)", Data("ask \(index)".utf8))
                    group.addTask {
                        try await pipeline.value(
                            for: AssetRequest(url: url), processor: BlockingUppercased(threads: threads, gate: gate),
                            options: .init(), storageType: .lru(.image)
                        ).value
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await waitUntil("every step blocks a thread") { threads.blocked.value == width }

        // When an unrelated task runs on the cooperative pool while they all block
        let heartbeat = await Task.detached { () -> Int in
            var beats = 0
            for _ in 0..<5 {
                await Task.yield()
                beats += 1
            }
            return beats
        }.value

        // Then it ran to its end before any step was let go (on the cooperative pool, it would have waited for
        // the steps' 30 s timeouts)
        #expect(heartbeat == 5)
        #expect(threads.released.value == 0)
        gate.open()
        #expect(try await asks.value.count == width)
    }

    @Test("runOnExecutor does not run work for a task already cancelled")
    func cancelledTaskRunsNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = try AssetsManager.forTesting(directory: directory)
        let ran = SharedCount()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await manager.runtime.runOnExecutor { ran.add() }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ran.value == 0)
    }
}
