import Foundation

extension RedisBackend {
    /// Which servers hold the entries.
    public enum Servers: Sendable, Hashable {
        /// One server (or a proxy in front of many).
        case single(RedisEndpoint)
        /// A Redis Cluster, discovered from any of these nodes.
        case cluster(seeds: [RedisEndpoint])
    }

    /// How a Redis backend is set up.
    public struct Configuration: Sendable {
        /// The server or cluster.
        public var servers: Servers
        /// Credentials, database, pool size, timeouts and backoff.
        public var options: RedisClientOptions
        /// Prepended to every key, so several caches (or apps) share one database without meeting;
        /// `removeAll()` removes exactly the keys under it (with an empty prefix: every key of the database).
        public var keyPrefix: String
        /// The clock for expiry; tests set their own. An app's backend reads the real time (the manager's clock
        /// is `AssetsManager.Configuration.now`).
        package var now: @Sendable () -> Date = Date.init
        /// The most bytes (values as stored) pinned entries may take; shared by every process using
        /// the prefix, checked by each against what the servers hold.
        public var pinnedQuota: Int
        /// A time to live given to every unpinned entry (shortened to its hard expiry), so that a
        /// `volatile-*` `maxmemory-policy` evicts unpinned entries and never pinned ones, which have
        /// none. Nil (the default) gives unpinned entries only their hard expiry.
        public var unpinnedTimeToLive: Duration?
        /// How long this process trusts the pins it last read before reading them again: a pin another
        /// process makes applies to this one's stores within this time.
        public var pinRefreshInterval: Duration

        /// Creates a configuration; the pinned quota defaults to 64 MiB.
        public init(
            servers: Servers,
            options: RedisClientOptions = RedisClientOptions(),
            keyPrefix: String = "mediaassets:",
            pinnedQuota: Int = 64 << 20,
            unpinnedTimeToLive: Duration? = nil,
            pinRefreshInterval: Duration = .seconds(1)
        ) {
            self.servers = servers
            self.options = options
            self.keyPrefix = keyPrefix
            self.pinnedQuota = max(0, pinnedQuota)
            self.unpinnedTimeToLive = unpinnedTimeToLive.map { max(.milliseconds(1), $0) }
            self.pinRefreshInterval = max(.zero, pinRefreshInterval)
        }

        /// A configuration for a `redis://[user:password@]host:port[/db]` or `unix:///path` address.
        public init(address: String, keyPrefix: String = "mediaassets:") throws(RedisError) {
            let parsed = try RedisAddress(address)
            self.init(
                servers: .single(parsed.endpoint), options: RedisClientOptions(address: parsed), keyPrefix: keyPrefix)
        }
    }
}

/// A Redis backend's own counters: what `statistics()` reports, with the remote failures and corrupt values
/// apart and the transport's counts (for the package's tests).
package struct RedisBackendStatistics: Sendable, Hashable {
    /// Reads that found a live entry.
    package var hits = 0
    /// Reads that found nothing, an expired or a corrupt value, or failed (see `remoteErrors`).
    package var misses = 0
    /// Entries stored.
    package var writes = 0
    /// Entries not stored because they alone exceed the server's `maxmemory`.
    package var rejectedTooLarge = 0
    /// Commands that failed against the server: timeouts, lost connections, refusals, garbage.
    package var remoteErrors = 0
    /// Values under the prefix that were not entries of this format (read as misses and removed).
    package var corruptValues = 0
    /// The last remote error's description.
    package var lastError: String?
    /// Connections, reconnects, redirects and slot-map reads.
    package var transport = RedisTransportCounters()

    /// No counts.
    package init() {}
}

/// The memory limit and eviction policy the servers report (`CONFIG GET maxmemory*`).
package struct RedisServerLimits: Sendable, Hashable {
    /// The sum of the primaries' `maxmemory`, nil when any of them has none (0) or hides it.
    package var maxmemory: Int?
    /// The primaries' `maxmemory-policy` values, such as `allkeys-lru`.
    package var policies: [String]

    /// Whether every primary evicts least-recently (or least-frequently) used keys when full.
    package var evictsByUse: Bool {
        !policies.isEmpty && policies.allSatisfy { $0.hasSuffix("-lru") || $0.hasSuffix("-lfu") }
    }

    /// Whether no primary can evict a pinned entry: each evicts only keys with a time to live
    /// (`volatile-*`; pinned entries have none) or nothing (`noeviction`). Under `allkeys-*` any key,
    /// pinned or not, may go when memory is full.
    package var keepsPinnedEntries: Bool {
        !policies.isEmpty && policies.allSatisfy { $0.hasPrefix("volatile-") || $0 == "noeviction" }
    }
}
