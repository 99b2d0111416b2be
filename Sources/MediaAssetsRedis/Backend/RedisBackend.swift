import Foundation
import MediaAssets
import Synchronization

/// A `CacheBackend` on Redis or Redis Cluster: one cache shared by every process and machine that
/// points at the same server.
///
/// - Each entry is one value, `<keyPrefix><key>`, holding a versioned header, the metadata (through
///   its `Codable` conformance) and the bytes (see `RedisEntryFormat`). A value that does not decode
///   is a miss and is removed.
/// - Expiry becomes `PX`, so Redis drops expired entries itself. The size limit is Redis's own:
///   `maxmemory` with an LRU (or LFU) `maxmemory-policy`, read with `CONFIG GET` and reported as
///   `byteLimit`; an entry larger than it is declined and counted.
/// - When the server is unreachable, slow or answers garbage, reads are misses and writes throw a
///   `RedisError`, each within the configured timeouts; the client reconnects with backoff by itself.
///   `statistics().errors` counts the remote errors.
/// - `removeEntries(.keyPrefix)` scans with `SCAN MATCH` (glob characters escaped) and `UNLINK`s
///   what it finds; `.asset(k)` unlinks `k` and scans for `k@…` and `k#…` (one `[@#]*` pattern);
///   `.partition(t)` scans the prefix and reads the first bytes of each value (the metadata, with
///   `GETRANGE`) to find entries whose `metadata.partition` is `t`. Each is O(keys under the prefix),
///   done on every cluster primary; an entry stored by another process while a scan runs may stay.
/// - Pins (`pin(_:)`) live in two hashes beside the prefix, never under it (see `PinRegistryKeys`):
///   the rules, and the sizes of the pinned values, which count against `Configuration.pinnedQuota`.
///   Pinned values carry no time to live; with `Configuration.unpinnedTimeToLive` set, every
///   unpinned value carries one, so a `volatile-lru` (or `-lfu`, `-ttl`, `-random`)
///   `maxmemory-policy` evicts only unpinned entries, and `noeviction` none. Under `allkeys-*` Redis
///   may evict any key, pinned ones and the pin hashes included: `RedisServerLimits.keepsPinnedEntries`
///   says whether the servers' policies keep pins.
///
/// ```swift
/// let redis = try RedisBackend(configuration: .init(address: "redis://127.0.0.1:6379"))
/// manager.register(TieredBackend(tiers: [memory, disk, redis]), for: .hybrid(.image))
/// ```
public final class RedisBackend: CacheBackend {
    /// The backend's configuration.
    public let configuration: Configuration
    let router: any RedisCommandRouting
    private let prefix: Data

    private enum LimitState: Sendable {
        case unknown
        case known(RedisServerLimits)
    }

    private let counters = Mutex(RedisBackendStatistics())
    private let limits = Mutex(LimitState.unknown)
    /// The pins as last read from the registry, and when.
    let pinCache = Mutex(PinCache())
    /// Where the pins live: two hashes beside the prefix's keys, never under it (see `pinRegistry`).
    let registry: PinRegistryKeys

    /// Creates a backend; no connection is opened until the first command.
    public init(configuration: Configuration) {
        self.configuration = configuration
        switch configuration.servers {
        case .single(let endpoint):
            router = RedisClient(endpoint: endpoint, options: configuration.options)
        case .cluster(let seeds):
            router = RedisClusterClient(seeds: seeds, options: configuration.options)
        }
        prefix = Data(configuration.keyPrefix.utf8)
        registry = PinRegistryKeys(keyPrefix: prefix)
    }

    /// `maxmemory` as last read from the servers; nil before the first read or with no limit.
    public var byteLimit: Int? {
        guard case .known(let limits) = limits.withLock({ $0 }) else { return nil }
        return limits.maxmemory
    }

    /// The Redis key of `key`.
    func redisKey(_ key: CacheKey) -> Data { prefix + Data(key.rawValue.utf8) }

    /// Returns the entry, or nil on a miss, an expired or corrupt value, or a remote failure.
    public func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        let redisKey = redisKey(key)
        do {
            let reply = try await router.send(RESPCommand("GET", RESPArgument(redisKey)), routedBy: redisKey)
            return await entry(in: .success(reply), forKey: key, redisKey: redisKey)
        } catch {
            return await entry(in: .failure(error), forKey: key, redisKey: redisKey)
        }
    }

    /// Returns the entries for `keys` in order, with one pipelined round trip of GETs (per node, the
    /// nodes' writes sent before any reply is awaited); each as `entry(forKey:)` returns it.
    public func entries(forKeys keys: [CacheKey]) async throws -> [CacheEntry?] {
        let redisKeys = keys.map(redisKey)
        let replies = await router.sendBatch(redisKeys.map { (RESPCommand("GET", RESPArgument($0)), $0) })
        var entries: [CacheEntry?] = []
        entries.reserveCapacity(keys.count)
        for index in keys.indices {
            entries.append(await entry(in: replies[index], forKey: keys[index], redisKey: redisKeys[index]))
        }
        return entries
    }

    /// The entry a GET's reply holds: nil for a miss, a remote failure, an expired value, or a value
    /// that does not decode (which is removed).
    private func entry(
        in reply: Result<RESPValue, RedisError>, forKey key: CacheKey, redisKey: Data
    ) async -> CacheEntry? {
        let value: Data
        switch reply {
        case .failure(let error):
            record(error)
            counters.withLock { $0.misses += 1 }
            return nil
        case .success(.bulkString(let bytes?)):
            value = bytes
        case .success:
            counters.withLock { $0.misses += 1 }
            return nil
        }
        let entry: CacheEntry
        do {
            entry = try RedisEntryFormat.decode(value)
        } catch {
            counters.withLock {
                $0.misses += 1
                $0.corruptValues += 1
            }
            _ = try? await router.send(RESPCommand("UNLINK", RESPArgument(redisKey)), routedBy: redisKey)
            return nil
        }
        guard !entry.isExpired(at: configuration.now()) else {
            counters.withLock { $0.misses += 1 }
            // Pinned entries carry no time to live: an expired one is removed on sight.
            if !pinCache.withLock({ $0.pins.isEmpty }) { try? await removeEntry(forKey: key) }
            return nil
        }
        counters.withLock { $0.hits += 1 }
        return entry
    }

    /// Stores the entry as one value (with `PX` for its expiry, or none when pinned); throws a
    /// `RedisError` on failure, `AssetsError.pinnedQuotaExceeded` when a pinned entry does not fit.
    public func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        if try await isPinned(key) { return try await storePinned(entry, forKey: key) }
        guard let command = try await setCommand(entry, key: key) else { return }
        do {
            try await router.send(command.command, routedBy: command.key)
        } catch {
            record(error)
            throw error
        }
        counters.withLock { $0.writes += 1 }
    }

    /// Stores many entries with one pipelined round trip per node; throws the first failure after
    /// trying every entry.
    public func store(_ entries: [(key: CacheKey, entry: CacheEntry)]) async throws {
        var commands: [(command: RESPCommand, key: Data)] = []
        for (key, entry) in entries {
            // A pinned entry has its quota checked and its size recorded: one at a time.
            if try await isPinned(key) {
                try await storePinned(entry, forKey: key)
            } else if let command = try await setCommand(entry, key: key) {
                commands.append(command)
            }
        }
        let results = await router.sendBatch(commands)
        var firstError: RedisError?
        for result in results {
            switch result {
            case .success: counters.withLock { $0.writes += 1 }
            case .failure(let error):
                record(error)
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    /// The SET for `entry`, or nil if it is not to be stored (too large, already expired: then the
    /// old value is removed, as a replacement by a dead entry would leave nothing).
    func setCommand(
        _ entry: CacheEntry, key: CacheKey, pinned: Bool = false
    ) async throws -> (command: RESPCommand, key: Data)? {
        let redisKey = redisKey(key)
        if let limit = try await knownLimit(), entry.size > limit {
            counters.withLock { $0.rejectedTooLarge += 1 }
            return nil
        }
        let value = try RedisEntryFormat.encode(entry)
        guard let milliseconds = timeToLive(of: entry.metadata) else {
            return (RESPCommand("SET", RESPArgument(redisKey), RESPArgument(value)), redisKey)
        }
        guard milliseconds > 0 else {
            try await removeEntry(forKey: key)
            return nil
        }
        // Pinned entries get no time to live, which `volatile-*` policies never evict; their hard
        // expiry is checked on read.
        guard !pinned else {
            return (RESPCommand("SET", RESPArgument(redisKey), RESPArgument(value)), redisKey)
        }
        return (
            RESPCommand("SET", RESPArgument(redisKey), RESPArgument(value), "PX", RESPArgument(milliseconds)), redisKey
        )
    }

    /// The time to live in milliseconds for `metadata`: its hard expiry, shortened to
    /// `unpinnedTimeToLive`; nil for none. Zero or less means already expired.
    func timeToLive(of metadata: CacheMetadata) -> Int? {
        let expiry = metadata.expires.map { Int(($0.timeIntervalSince(configuration.now()) * 1_000).rounded(.up)) }
        let unpinned = configuration.unpinnedTimeToLive.map {
            Int($0.components.seconds) * 1_000 + Int($0.components.attoseconds / 1_000_000_000_000_000)
        }
        switch (expiry, unpinned) {
        case (let expiry?, let unpinned?): return min(expiry, unpinned)
        case (let expiry?, nil): return expiry
        case (nil, let unpinned?): return unpinned
        case (nil, nil): return nil
        }
    }

    /// Removes the entry (and its pinned size, if pinned); throws a `RedisError` if the server cannot
    /// be reached.
    public func removeEntry(forKey key: CacheKey) async throws {
        let redisKey = redisKey(key)
        do {
            try await router.send(RESPCommand("UNLINK", RESPArgument(redisKey)), routedBy: redisKey)
            if pinCache.withLock({ !$0.pins.isEmpty && $0.pins.covers(key) }) {
                try await router.send(
                    RESPCommand("HDEL", RESPArgument(registry.sizes), RESPArgument(Data(key.rawValue.utf8))),
                    routedBy: registry.sizes)
            }
        } catch {
            record(error)
            throw error
        }
    }

    /// Removes every key under the prefix, on every primary; the pins stay.
    public func removeAll() async throws {
        try await removeEntries(.keyPrefix(""))
    }

    /// Counters of this backend, with the remote errors and transport counts apart.
    package func redisStatistics() -> RedisBackendStatistics {
        var statistics = counters.withLock { $0 }
        statistics.transport = router.transportCounters
        return statistics
    }

    /// Hits, misses and writes of this instance; `count` and `bytes` are the keys under the prefix
    /// and their values' sizes (a scan of every primary), `evictions` the servers' `evicted_keys`.
    public func statistics() async -> CacheStatistics {
        let own = counters.withLock { $0 }
        var statistics = CacheStatistics()
        statistics.hits = own.hits
        statistics.misses = own.misses
        statistics.writes = own.writes
        statistics.rejectedTooLarge = own.rejectedTooLarge
        statistics.errors = own.remoteErrors + own.corruptValues
        if let totals = try? await contentTotals() {
            statistics.count = totals.count
            statistics.bytes = totals.bytes
        }
        if let pinned = try? await pinnedSizes() {
            statistics.pinnedCount = pinned.count
            statistics.pinnedBytes = pinned.values.reduce(0, +)
        }
        statistics.evictions = (try? await evictedKeys()) ?? 0
        return statistics
    }

    /// Reads `maxmemory` and `maxmemory-policy` from every primary, updating `byteLimit`.
    @discardableResult
    package func refreshServerLimits() async throws -> RedisServerLimits {
        var total = 0
        var unlimited = false
        var policies: [String] = []
        for node in try await router.primaries() {
            let replies = try await router.send(
                [RESPCommand("CONFIG", "GET", "maxmemory"), RESPCommand("CONFIG", "GET", "maxmemory-policy")], to: node)
            guard let maxmemory = Self.configValue(replies[0]).flatMap(Int.init), maxmemory > 0 else {
                unlimited = true
                continue
            }
            total += maxmemory
            if let policy = Self.configValue(replies[1]) { policies.append(policy) }
        }
        let limits = RedisServerLimits(maxmemory: unlimited ? nil : total, policies: policies)
        self.limits.withLock { $0 = .known(limits) }
        return limits
    }

    private static func configValue(_ reply: RESPValue) -> String? {
        guard case .array(let pair?) = reply, pair.count == 2 else { return nil }
        return pair[1].text
    }

    /// The limit, read once on first need. A server that refuses `CONFIG GET` (an ACL) has no known
    /// limit; a transport failure is thrown, as the store that needs it would fail the same way.
    private func knownLimit() async throws -> Int? {
        if case .known(let limits) = limits.withLock({ $0 }) { return limits.maxmemory }
        do {
            return try await refreshServerLimits().maxmemory
        } catch let error as RedisError where error.isConnectionFailure {
            record(error)
            throw error
        } catch {
            limits.withLock { $0 = .known(RedisServerLimits(maxmemory: nil, policies: [])) }
            return nil
        }
    }

    func record(_ error: any Error) {
        counters.withLock {
            $0.remoteErrors += 1
            $0.lastError = "\(error)"
        }
    }
}
