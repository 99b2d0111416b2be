import Foundation
import MediaAssets
import Synchronization

// The memory LRU against a locked map doing the same work. Entries are built once, outside the
// timed loops, and both sides store the same prebuilt `CacheEntry` values under `CacheKey`s, so a
// row's ratio is what the LRU's order, limits and statistics cost over a plain map. The two sides
// are timed alternately, sample by sample, so a change in machine load hits both alike; rows on one
// thread count the process's CPU time, the two-thread row wall-clock time.

/// Rows for the memory LRU: hits, evictions, misses and two threads, each against its map.
func runMemoryCacheRows(table: BenchmarkTable) {
    let workload = LRUWorkload(keyCount: 10_000, operationCount: 200_000)
    runAllFit(workload, table: table)
    runEvicting(workload, table: table)
    runMisses(workload, table: table)
    runTwoThreads(workload, table: table)
}

/// Keys, prebuilt entries and an 80 % read / 20 % write sequence of uniformly drawn keys.
private struct LRUWorkload {
    let keys: [CacheKey]
    let absentKeys: [CacheKey]
    let entries: [CacheEntry]
    /// (key index, is a write)
    let operations: [(index: Int, isWrite: Bool)]
    /// A second sequence for the second thread.
    let otherOperations: [(index: Int, isWrite: Bool)]

    init(keyCount: Int, operationCount: Int) {
        keys = (0..<keyCount).map { CacheKey("https://cdn.example.com/avatars/\($0).jpg") }
        absentKeys = (0..<keyCount).map { CacheKey("https://cdn.example.com/absent/\($0).jpg") }
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        entries = (0..<keyCount).map { index in
            let bytes = Data(repeating: UInt8(truncatingIfNeeded: index), count: 64)
            return CacheEntry(data: bytes, metadata: .init(created: created))
        }
        var generator = SystemRandomNumberGenerator()
        func sequence() -> [(index: Int, isWrite: Bool)] {
            (0..<operationCount).map { _ in
                (Int.random(in: 0..<keyCount, using: &generator), Int.random(in: 0..<10, using: &generator) < 2)
            }
        }
        operations = sequence()
        otherOperations = sequence()
    }

    var perOperation: Double { 1e9 / Double(operations.count) }
}

/// A map that drops its oldest key once it holds more than `limit`: the least work a bounded map
/// can do, as the baseline of the evicting row.
private struct FIFOMap {
    private(set) var map: [CacheKey: CacheEntry] = [:]
    private var order: [CacheKey] = []
    private var next = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
        order.reserveCapacity(limit)
    }

    mutating func store(_ entry: CacheEntry, forKey key: CacheKey) -> CacheEntry? {
        guard map.updateValue(entry, forKey: key) == nil else { return nil }
        guard map.count > limit else {
            order.append(key)
            return nil
        }
        let evicted = map.removeValue(forKey: order[next])
        order[next] = key
        next = next + 1 == limit ? 0 : next + 1
        return evicted
    }

    subscript(key: CacheKey) -> CacheEntry? { map[key] }
}

/// Samples per side in `alternatingMedians`, after one unmeasured pass each.
private let repetitions = 15

/// The CPU time this process has used, in seconds. Unlike wall-clock time it leaves out the time
/// other processes run, so single-threaded rows stay comparable on a busy machine (on a quiet one
/// the two agree).
private func processCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Times `first` and `second` alternately with `clock` and returns their medians in seconds.
private func alternatingMedians(
    clock: () -> Double = processCPUSeconds, _ first: () -> Void, _ second: () -> Void
) -> (first: Double, second: Double) {
    first()
    second()
    var firstSamples: [Double] = []
    var secondSamples: [Double] = []
    for _ in 0..<repetitions {
        var start = clock()
        first()
        firstSamples.append(clock() - start)
        start = clock()
        second()
        secondSamples.append(clock() - start)
    }
    return (median(firstSamples), median(secondSamples))
}

private func run(
    _ operations: [(index: Int, isWrite: Bool)], on cache: MemoryCache, keys: [CacheKey], entries: [CacheEntry]
) {
    for (index, isWrite) in operations {
        if isWrite {
            try? cache.store(entries[index], forKey: keys[index])
        } else {
            blackHole(cache.entry(forKey: keys[index]))
        }
    }
}

private func run(
    _ operations: [(index: Int, isWrite: Bool)], on map: borrowing Mutex<[CacheKey: CacheEntry]>,
    keys: [CacheKey], entries: [CacheEntry]
) {
    for (index, isWrite) in operations {
        if isWrite {
            let replaced = map.withLock { $0.updateValue(entries[index], forKey: keys[index]) }
            blackHole(replaced)
        } else {
            blackHole(map.withLock { $0[keys[index]] })
        }
    }
}

/// Stores every key's entry in both the cache and the map.
private func fill(_ cache: MemoryCache, _ map: borrowing Mutex<[CacheKey: CacheEntry]>, with workload: LRUWorkload) {
    for (key, entry) in zip(workload.keys, workload.entries) {
        try? cache.store(entry, forKey: key)
        map.withLock { $0[key] = entry }
    }
}

private func runAllFit(_ workload: LRUWorkload, table: BenchmarkTable) {
    let cache = MemoryCache(limits: .init(costLimit: 1 << 30))
    let map = Mutex<[CacheKey: CacheEntry]>([:])
    fill(cache, map, with: workload)
    let (lru, plain) = alternatingMedians(
        { run(workload.operations, on: cache, keys: workload.keys, entries: workload.entries) },
        { run(workload.operations, on: map, keys: workload.keys, entries: workload.entries) }
    )
    table.add(
        "memory LRU 80/20 get/set, 10k keys all fit (per op)", unit: "ns", median: lru * workload.perOperation,
        baseline: "Mutex<[CacheKey: CacheEntry]>", baselineMedian: plain * workload.perOperation, target: 1.2
    )

    let nsCache = NSCache<NSString, NSData>()
    let nsKeys = workload.keys.map { $0.rawValue as NSString }
    let nsValues = workload.entries.map { $0.data as NSData }
    for (key, value) in zip(nsKeys, nsValues) { nsCache.setObject(value, forKey: key) }
    let (lruAgain, foundation) = alternatingMedians(
        { run(workload.operations, on: cache, keys: workload.keys, entries: workload.entries) },
        {
            for (index, isWrite) in workload.operations {
                if isWrite {
                    nsCache.setObject(nsValues[index], forKey: nsKeys[index])
                } else {
                    blackHole(nsCache.object(forKey: nsKeys[index]))
                }
            }
        }
    )
    table.add(
        "memory LRU 80/20 get/set, 10k keys all fit (per op)", unit: "ns", median: lruAgain * workload.perOperation,
        baseline: "NSCache<NSString, NSData>", baselineMedian: foundation * workload.perOperation
    )
}

private func runEvicting(_ workload: LRUWorkload, table: BenchmarkTable) {
    let limit = workload.keys.count / 2
    let cache = MemoryCache(limits: .init(costLimit: 1 << 30, countLimit: limit))
    let map = Mutex(FIFOMap(limit: limit))
    for (key, entry) in zip(workload.keys, workload.entries) {
        try? cache.store(entry, forKey: key)
        blackHole(map.withLock { $0.store(entry, forKey: key) })
    }
    let evictionsBefore = cache.statistics().evictions
    let (lru, plain) = alternatingMedians(
        { run(workload.operations, on: cache, keys: workload.keys, entries: workload.entries) },
        {
            for (index, isWrite) in workload.operations {
                if isWrite {
                    blackHole(map.withLock { $0.store(workload.entries[index], forKey: workload.keys[index]) })
                } else {
                    blackHole(map.withLock { $0[workload.keys[index]] })
                }
            }
        }
    )
    let evictions = cache.statistics().evictions - evictionsBefore
    table.add(
        "memory LRU 80/20, count limit 5k of 10k keys (per op)", unit: "ns", median: lru * workload.perOperation,
        baseline: "Mutex<[CacheKey: CacheEntry]> + FIFO evict", baselineMedian: plain * workload.perOperation,
        target: 1.2
    )
    print("  (\(evictions / (repetitions + 1)) evictions per 200k-operation pass)")
}

private func runMisses(_ workload: LRUWorkload, table: BenchmarkTable) {
    let cache = MemoryCache(limits: .init(costLimit: 1 << 30))
    let map = Mutex<[CacheKey: CacheEntry]>([:])
    fill(cache, map, with: workload)
    let absent = workload.absentKeys
    let (lru, plain) = alternatingMedians(
        { for (index, _) in workload.operations { blackHole(cache.entry(forKey: absent[index])) } },
        { for (index, _) in workload.operations { blackHole(map.withLock { $0[absent[index]] }) } }
    )
    table.add(
        "memory LRU misses, 10k keys held (per op)", unit: "ns", median: lru * workload.perOperation,
        baseline: "Mutex<[CacheKey: CacheEntry]>", baselineMedian: plain * workload.perOperation, target: 1.2
    )
}

private func runTwoThreads(_ workload: LRUWorkload, table: BenchmarkTable) {
    let cache = MemoryCache(limits: .init(costLimit: 1 << 30))
    let map = Mutex<[CacheKey: CacheEntry]>([:])
    fill(cache, map, with: workload)
    let sequences = [workload.operations, workload.otherOperations]
    // Wall-clock time: waiting for the other thread's lock is part of what this row measures.
    let (lru, plain) = alternatingMedians(
        clock: now,
        {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                run(sequences[thread], on: cache, keys: workload.keys, entries: workload.entries)
            }
        },
        {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                run(sequences[thread], on: map, keys: workload.keys, entries: workload.entries)
            }
        }
    )
    table.add(
        "memory LRU 80/20, 2 threads on one cache (per op)", unit: "ns", median: lru * workload.perOperation / 2,
        baseline: "Mutex<[CacheKey: CacheEntry]>, 2 threads", baselineMedian: plain * workload.perOperation / 2,
        target: 1.2
    )
}
