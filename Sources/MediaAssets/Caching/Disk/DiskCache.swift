import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A persistent cache of one file per entry in a directory this instance owns.
///
/// - Each file is named by a hash of the key and holds a header (the full key, two metadata slots, a
///   checksum of the body) then the bytes; a read checks the key and checksums, so a collision, a
///   torn or a corrupt file is a miss, and the file is removed. The body checksum is verified on the
///   first read of each file; a file's bytes are never changed in place, so repeated hits of the same
///   file check its header, metadata slot and key only and cost little more than a plain read.
/// - A write goes to a temporary file then `rename`s into place: a crash never exposes a torn entry.
///   A metadata update (a 304) rewrites only the spare metadata slot, in place: a crash or a reader
///   sees the old metadata or the new, whole (see `EntryFile`).
/// - The size limit holds after every write: a write that passes it evicts least recently used
///   files down to the low-water mark.
/// - An in-memory index (size, last access; about 70 bytes an entry) is built at open, in the
///   background, from the snapshot a clean close of a large cache saved (`.index`, see
///   `DiskCache+Snapshot.swift`) and `stat` of every file, without reading them (see `DiskIndex`):
///   opening returns at once, and until the pass ends a key not indexed yet is read from its file.
///   Then misses are answered from the index without touching the disk. Last-access times stay
///   in memory (an `AccessTimeBatch`, shared with the SQLite backend) and are written to the files'
///   modification times lazily (in batches, and on `flushAccessTimes()` and deinit) — never a
///   write per read.
/// - Pins (`pin(_:)`) are saved in `.pins` with the names of the files they cover; sweeps skip those
///   files, which count against `Configuration.pinnedQuota` within the size limit.
/// - A lock file (`.lock`, `flock`) makes a second instance on the same directory fail clearly.
///   The directory is created with mode 0700; files the cache does not recognise are left alone.
/// - A hit of a file up to `Configuration.inlineReadLimit` is read on the caller's thread when the
///   kernel holds the file's path and bytes in memory (Linux: `openat2` with `RESOLVE_CACHED`,
///   `preadv2` with `RWF_NOWAIT`): no hand-off, and never a wait for the disk. Other reads run on the
///   I/O threads (a `ThreadPoolExecutor` the disk caches share); writes and removals run on the cache's
///   serial write queue. Every operation is O(1) in the number of entries except `removeAll`,
///   `removeExpired` and the pass at open.
public final class DiskCache: CacheBackend {
    /// How a disk cache is set up.
    public struct Configuration: Sendable {
        /// The directory the cache owns; created (mode 0700) if missing.
        public var directory: URL
        /// The most bytes of files (headers included) the cache keeps.
        public var sizeLimit: Int
        /// The fraction of `sizeLimit` a sweep evicts down to, so that sweeps are rare.
        package var lowWaterFraction: Double
        /// The number of unsaved last-access times that triggers writing them in the background.
        package var accessTimeBatchSize: Int
        /// The clock for expiry and last access; tests pass their own.
        package var now: @Sendable () -> Date
        /// The number of entries from which `close()` saves the index to a snapshot file (`.index`),
        /// so that the next open has the index (recency, learnt expiries) at once, while the pass at open
        /// checks it against the files. Scanning a few thousand files costs milliseconds; a million,
        /// seconds. A close before the pass at open has ended saves none.
        package var indexSnapshotMinimumCount: Int
        /// The most bytes of files (headers included) pinned entries may take, within `sizeLimit`. Opening
        /// with a lower quota than what is pinned keeps the pinned files; pinned stores fail until
        /// they fit again.
        public var pinnedQuota: Int
        /// The largest file a hit reads on the caller's thread, when the kernel holds its path and bytes
        /// in memory (Linux: `openat2` with `RESOLVE_CACHED`, `preadv2` with `RWF_NOWAIT`), so the read
        /// cannot wait for the disk and costs the caller no more than copying those bytes. Larger files,
        /// and any read that would wait, go to the I/O threads (one hand-off). 0 sends every read there.
        package var inlineReadLimit: Int
        /// Called on the pass at open between listing the directory and reconciling the index with it
        /// (tests hold the pass there to store and remove meanwhile).
        var indexPassWillReconcile: (@Sendable () -> Void)?

        /// Creates a configuration; the default limit is 512 MiB, and the pinned quota a quarter of the limit
        /// (at most the limit).
        public init(directory: URL, sizeLimit: Int = 512 << 20, pinnedQuota: Int? = nil) {
            self.directory = directory
            self.sizeLimit = max(0, sizeLimit)
            self.lowWaterFraction = 0.8
            self.accessTimeBatchSize = 256
            self.now = Date.init
            self.indexSnapshotMinimumCount = 2_048
            self.pinnedQuota = min(max(0, pinnedQuota ?? self.sizeLimit / 4), self.sizeLimit)
            self.inlineReadLimit = DiskCache.defaultInlineReadLimit
        }

        /// A configuration with the tuning the package's own tests and benchmarks set; a knob left `nil` keeps
        /// `init(directory:sizeLimit:pinnedQuota:)`'s default.
        package static func tuned(
            directory: URL,
            sizeLimit: Int = 512 << 20,
            lowWaterFraction: Double? = nil,
            accessTimeBatchSize: Int? = nil,
            now: (@Sendable () -> Date)? = nil,
            indexSnapshotMinimumCount: Int? = nil,
            pinnedQuota: Int? = nil,
            inlineReadLimit: Int? = nil
        ) -> Configuration {
            var configuration = Configuration(directory: directory, sizeLimit: sizeLimit, pinnedQuota: pinnedQuota)
            if let lowWaterFraction, !lowWaterFraction.isNaN {
                configuration.lowWaterFraction = min(1, max(0, lowWaterFraction))
            }
            if let accessTimeBatchSize { configuration.accessTimeBatchSize = max(1, accessTimeBatchSize) }
            if let now { configuration.now = now }
            if let indexSnapshotMinimumCount {
                configuration.indexSnapshotMinimumCount = max(0, indexSnapshotMinimumCount)
            }
            if let inlineReadLimit { configuration.inlineReadLimit = max(0, inlineReadLimit) }
            return configuration
        }
    }

    /// The default `Configuration.inlineReadLimit`: entries of up to 1 MiB, with 64 KiB for their header
    /// (copying 1 MiB from the page cache takes about 20 µs; a hop to another thread and back, 10 to 15 µs
    /// more, measured in the disk rows of the benchmarks).
    package static let defaultInlineReadLimit = (1 << 20) + (64 << 10)

    /// The platform's directory for caches: `$XDG_CACHE_HOME` or `~/.cache` on Linux, the user's
    /// Caches directory on Apple platforms, with `name` appended.
    public static func defaultDirectory(name: String = "MediaAssets") -> URL {
        #if os(Linux)
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent(name, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache", isDirectory: true)
            .appendingPathComponent(name, isDirectory: true)
        #else
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent(name, isDirectory: true)
        #endif
    }

    /// The cache's configuration.
    public let configuration: Configuration
    /// The directory the cache owns.
    package var directory: URL { configuration.directory }

    /// The size limit of the files, headers included.
    public var byteLimit: Int? { configuration.sizeLimit }

    let path: String
    /// The lock file's descriptor; -1 once closed.
    let lockDescriptor: Mutex<Int32>
    let state: Mutex<DiskIndex>
    /// The directory, opened for resolving entry names relative to it; closed only at deinit, so that no
    /// read in flight can ever resolve a name against a reused descriptor.
    let directoryDescriptor: Int32
    /// Whether this directory's file system reads without waiting; cleared the first time a call says
    /// it cannot (an older kernel, a file system without `RWF_NOWAIT`), sending reads to the I/O threads.
    let readsWithoutWaiting: Atomic<Bool>
    /// The threads reads that may wait for the disk run on, shared by every disk cache: four, started on
    /// demand, so that a few reads can wait on a cold disk at once while others go on. Swift's
    /// cooperative pool is not a place to wait on a device, and a concurrent `DispatchQueue` is no
    /// way out of it on Linux: it runs on the default-QoS root queue's threads, the pool's own (a hop
    /// there and back costs 0.4 µs, measured in the disk rows of the benchmarks: the same thread runs
    /// the block, then the task).
    static let ioExecutor = ThreadPoolExecutor(threadCount: 4, name: "MediaAssets IO")
    /// Opens when the pass at open has ended (or the cache closed): whole-cache operations wait for it.
    let indexed = Gate()
    // Default QoS, like the tasks that await it: a queue of another QoS class parks and wakes
    // threads on every hop (about 15 µs a write here, measured).
    let writeQueue = DispatchQueue(label: "MediaAssets.DiskCache.write")

    /// Opens (creating if needed) the cache in `configuration.directory`, at once: the index is built in
    /// the background (see `waitUntilIndexed()`).
    ///
    /// The pass at open reads the index snapshot the last clean `close()` left (large caches) and
    /// reconciles it with the directory, listing it and `stat`ing each entry file (no entry file is read):
    /// about a millisecond per thousand entries with a warm page cache.
    ///
    /// - Throws: `AssetsError.directoryUnavailable` if the directory cannot be created or written,
    ///   `AssetsError.directoryLocked` if another `DiskCache` owns it.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        self.path = configuration.directory.standardizedFileURL.path
        self.state = Mutex(DiskIndex(accessTimeBatchSize: configuration.accessTimeBatchSize))
        let lock = try Self.openAndLock(directory: path)
        self.lockDescriptor = Mutex(lock)
        self.directoryDescriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else {
            let reason = "cannot open \(path): \(errnoDescription())"
            flock(lock, LOCK_UN)
            POSIX.closeDescriptor(lock)
            throw AssetsError.directoryUnavailable(path: path, reason: reason)
        }
        #if os(Linux)
        self.readsWithoutWaiting = Atomic(configuration.inlineReadLimit > 0)
        #else
        self.readsWithoutWaiting = Atomic(false)
        #endif
        // The clean mark is taken (and erased) before anything may change the directory; the pins are read
        // before the pass, whose sweep at its end (the limit was lowered) skips pinned files.
        let mark = takeCleanMark(lock: lock)
        loadPins()
        startIndexing(mark: mark)
    }

    /// Opens (creating if needed) a cache in `directory` with a size limit in bytes.
    public convenience init(directory: URL, sizeLimit: Int = 512 << 20) throws {
        try self.init(configuration: Configuration(directory: directory, sizeLimit: sizeLimit))
    }

    deinit {
        releaseLock()
        POSIX.closeDescriptor(directoryDescriptor)
    }

    /// Saves last-access times (and, for a large cache whose index is complete, the index snapshot) and
    /// releases the directory; later calls throw `AssetsError.closed`. A pass at open still running
    /// stops.
    ///
    /// Deinit does the same; call this when another instance must open the directory right away.
    public func close() async {
        _ = try? await onQueue(writeQueue) { [self] in releaseLock() }
        indexed.open()
    }

    /// Returns once the pass at open has reconciled the index with the directory (at once if it has):
    /// from then on every file is indexed, and the count and bytes agree with the files.
    ///
    /// Opening returns at once and the cache serves meanwhile: a key not indexed yet is looked up in its
    /// file. Whole-cache operations (`statistics()`, `removeEntries(_:)`, `removeExpired()`,
    /// `storedKeys(batchSize:)`, pinning an asset) wait for this themselves. After a crash, at a million
    /// entries, the pass takes seconds (see the `disk-scale` benchmark rows).
    package func waitUntilIndexed() async {
        await indexed.wait()
    }

    /// Whether the pass at open has ended.
    package var isIndexed: Bool { state.withLock { $0.isComplete } }

    // MARK: CacheBackend

    /// Returns the live entry for `key`, or nil: read on the caller's thread when the file is small and in
    /// memory (see `Configuration.inlineReadLimit`), else on an I/O thread.
    public func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        guard !isClosed else { throw AssetsError.closed(path: path) }
        if case .found(let entry) = try readEntry(forKey: key, mayBlock: false) { return entry }
        return try await onIOThread { [self] in try readEntry(forKey: key, mayBlock: true).entry }
    }

    /// Returns the live entries for `keys` in order: those it can read on the caller's thread at once,
    /// the others in one hop to an I/O thread.
    public func entries(forKeys keys: [CacheKey]) async throws -> [CacheEntry?] {
        guard !isClosed else { throw AssetsError.closed(path: path) }
        var entries: [CacheEntry?] = []
        entries.reserveCapacity(keys.count)
        var waiting: [Int] = []
        for (index, key) in keys.enumerated() {
            switch try readEntry(forKey: key, mayBlock: false) {
            case .found(let entry): entries.append(entry)
            case .wouldBlock:
                entries.append(nil)
                waiting.append(index)
            }
        }
        guard !waiting.isEmpty else { return entries }
        let slow = waiting
        let read = try await onIOThread { [self] in
            try slow.map { try readEntry(forKey: keys[$0], mayBlock: true).entry }
        }
        for (index, entry) in zip(slow, read) { entries[index] = entry }
        return entries
    }

    /// Writes `entry` to a temporary file, renames it into place, and sweeps if over the limit.
    public func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        try await onQueue(writeQueue) { [self] in try writeEntry(entry, forKey: key) }
    }

    /// Removes the file for `key`.
    public func removeEntry(forKey key: CacheKey) async throws {
        try await onQueue(writeQueue) { [self] in try removeFile(named: EntryName(key: key)) }
    }

    /// Removes the entries `selection` takes (an asset, a resource's chunks, a partition), pinned ones
    /// too, in one job on the write queue, deciding from the index and the files' headers (never their
    /// bodies).
    public func removeEntries(_ selection: EntrySelection) async throws {
        await waitUntilIndexed()
        try await onQueue(writeQueue) { [self] in try removeSelectedFiles(selection) }
    }

    /// Removes every entry file (files the cache does not recognise stay).
    public func removeAll() async throws {
        try await onQueue(writeQueue) { [self] in try removeAllFiles() }
    }

    /// Removes files whose entries have expired, reading the headers of those whose expiry is unknown.
    public func removeExpired() async throws {
        await waitUntilIndexed()
        try await onQueue(writeQueue) { [self] in try removeExpiredFiles() }
    }

    /// A snapshot of the counters; `bytes` and `cost` are the files' total size (after the pass at open:
    /// see `waitUntilIndexed()`).
    public func statistics() async -> CacheStatistics {
        await waitUntilIndexed()
        return (try? await onQueue(writeQueue) { [self] in snapshot() }) ?? CacheStatistics()
    }

    /// Writes the last-access times held in memory to the files' modification times.
    package func flushAccessTimes() async {
        _ = try? await onQueue(writeQueue) { [self] in saveAccessTimes() }
    }

    // MARK: Internals shared by the extensions

    /// The file name for `key`: 32 hex digits of two XXH64 hashes (the key itself is in the file).
    static func fileName(for key: CacheKey) -> String { EntryName(key: key).description }

    static func isEntryFileName(_ name: String) -> Bool { EntryName(fileName: name) != nil }

    func filePath(_ name: EntryName) -> String { path + "/" + name.description }

    func snapshot() -> CacheStatistics {
        state.withLock { index in
            var statistics = index.statistics
            statistics.count = index.records.count
            statistics.bytes = index.totalBytes
            statistics.cost = index.totalBytes
            (statistics.pinnedCount, statistics.pinnedBytes) = index.pinned
            return statistics
        }
    }

    /// Checks the index's structure and the size limit; tests call this after every mutation.
    package func checkInvariants() async {
        await waitUntilIndexed()
        _ = try? await onQueue(writeQueue) { [self] in
            state.withLock { index in
                index.records.checkInvariants()
                precondition(index.totalBytes <= configuration.sizeLimit, "disk cache over its size limit")
                precondition(index.unsavedAccess.pending.keys.allSatisfy { index.records.record(for: $0) != nil })
                precondition(index.identities.keys.allSatisfy { index.records.record(for: $0) != nil })
                precondition(isClosed || (index.isComplete && index.decided.isEmpty), "the pass at open did not end")
            }
        }
    }

    /// Calls `body` with the NUL-terminated name of `name`'s file (relative to the directory), built on the
    /// stack: a hit allocates no path string.
    func withFileName<T>(_ name: EntryName, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try withUnsafeTemporaryAllocation(byteCount: 33, alignment: 1) { buffer in
            name.writeDigits(into: buffer)
            buffer[32] = 0
            return try body(buffer.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
    }

    /// Runs `work` on an I/O thread, unless the cache is closed by then: one hand-off there, and one back.
    private func onIOThread<T: Sendable>(_ work: () throws -> T) async throws -> T {
        try await withTaskExecutorPreference(Self.ioExecutor) {
            guard !isClosed else { throw AssetsError.closed(path: path) }
            return try work()
        }
    }

    /// Runs `work` on the write queue, which serialises every change to the directory.
    func onWriteQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await onQueue(writeQueue, work)
    }

    private func onQueue<T: Sendable>(
        _ queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                guard lockDescriptor.withLock({ $0 >= 0 }) else {
                    continuation.resume(throwing: AssetsError.closed(path: path))
                    return
                }
                continuation.resume(with: Result { try work() })
            }
        }
    }

    /// Whether `close()` (or deinit) has released the directory; work queued before then must not
    /// touch it any more, since another instance may own it now.
    var isClosed: Bool { lockDescriptor.withLock { $0 < 0 } }

    private func releaseLock() {
        let descriptor = lockDescriptor.withLock { $0 }
        guard descriptor >= 0 else { return }
        saveAccessTimes()
        saveSnapshot(lock: descriptor)
        lockDescriptor.withLock { descriptor in
            // Unlocked before closing: the lock belongs to the open file description, which a child
            // process this process is starting (between its fork and exec) shares; closing our
            // descriptor alone would leave the directory locked until that child's exec.
            flock(descriptor, LOCK_UN)
            POSIX.closeDescriptor(descriptor)
            descriptor = -1
        }
    }

}

extension DiskCache {
    /// A one-way gate: waiters wait until it opens, then everyone passes.
    final class Gate: Sendable {
        private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            guard !state.withLock({ $0.isOpen }) else { return }
            await withCheckedContinuation { continuation in
                let isOpen = state.withLock { state -> Bool in
                    if !state.isOpen { state.waiters.append(continuation) }
                    return state.isOpen
                }
                if isOpen { continuation.resume() }
            }
        }

        /// The waiters now (for tests).
        var waiterCount: Int { state.withLock { $0.waiters.count } }

        func open() {
            let waiters = state.withLock { state in
                defer { state = (true, []) }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
