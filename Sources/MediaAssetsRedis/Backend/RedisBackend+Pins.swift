import Foundation
import MediaAssets

/// The two hashes that hold a Redis backend's pins: `rules` (field `k<key>` or `a<key>` for a key or
/// an asset pin) and `sizes` (field `<key>`: the pinned value's length).
///
/// They sit beside the prefix's keys, never under them, so no cache key can name them and
/// `removeAll()` leaves them: their names start with a byte other than the prefix's first
/// (`\0` or, for a prefix starting with `\0`, `\1`), then `mediaassets pins:` and the prefix. With an
/// empty prefix the cache owns the whole database, and these two names are the only keys it keeps
/// for itself.
struct PinRegistryKeys: Sendable {
    let rules: Data
    let sizes: Data

    init(keyPrefix: Data) {
        let base = Data([keyPrefix.first == 0 ? 1 : 0]) + Data("mediaassets pins:".utf8) + keyPrefix
        rules = base + Data(":rules".utf8)
        sizes = base + Data(":sizes".utf8)
    }

    func contains(_ redisKey: Data) -> Bool { redisKey == rules || redisKey == sizes }
}

/// The pins as last read, and when.
struct PinCache: Sendable {
    var pins = PinSet()
    var readAt: ContinuousClock.Instant?
}

extension RedisBackend {
    /// Pins `pin`: the rule is saved, the values it covers lose their time to live and their sizes
    /// are recorded, within `Configuration.pinnedQuota`.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` (nothing is pinned), a `RedisError`.
    public func pin(_ pin: Pin) async throws {
        var pins = try await currentPins(refresh: true)
        guard !pins.contains(pin) else { return }
        var sizes = try await pinnedSizes()
        var covered: [(key: CacheKey, size: Int)] = []
        for key in try await storedKeys(coveredBy: pin) where sizes[key] == nil {
            let redisKey = redisKey(key)
            let length = try await router.send(RESPCommand("STRLEN", RESPArgument(redisKey)), routedBy: redisKey)
            if case .integer(let size) = length, size > 0 { covered.append((key, Int(size))) }
        }
        let pinned = sizes.values.reduce(0, +)
        let added = covered.reduce(0) { $0 + $1.size }
        guard pinned + added <= configuration.pinnedQuota else {
            throw AssetsError.pinnedQuotaExceeded(
                key: pin.key, bytes: added, pinnedBytes: pinned, quota: configuration.pinnedQuota)
        }
        try await sendRegistry(RESPCommand("HSET", RESPArgument(registry.rules), RESPArgument(Self.field(pin)), "1"))
        for (key, size) in covered {
            let redisKey = redisKey(key)
            try await sendKeyed(RESPCommand("PERSIST", RESPArgument(redisKey)), redisKey)
            try await sendRegistry(
                RESPCommand(
                    "HSET", RESPArgument(registry.sizes), RESPArgument(Data(key.rawValue.utf8)), RESPArgument(size)))
            sizes[key] = size
        }
        pins.insert(pin)
        pinCache.withLock { $0 = PinCache(pins: pins, readAt: ContinuousClock.now) }
    }

    /// Removes `pin`; the values no other pin covers get their time to live back and leave the
    /// pinned sizes.
    public func unpin(_ pin: Pin) async throws {
        try await sendRegistry(RESPCommand("HDEL", RESPArgument(registry.rules), RESPArgument(Self.field(pin))))
        let pins = try await currentPins(refresh: true)
        for key in try await pinnedSizes().keys where !pins.covers(key) {
            let redisKey = redisKey(key)
            let reply = try await sendKeyed(RESPCommand("GET", RESPArgument(redisKey)), redisKey)
            if let value = reply.bytes, let entry = try? RedisEntryFormat.decode(value),
                let milliseconds = timeToLive(of: entry.metadata)
            {
                try await sendKeyed(
                    RESPCommand("PEXPIRE", RESPArgument(redisKey), RESPArgument(max(1, milliseconds))), redisKey)
            }
            try await sendRegistry(
                RESPCommand("HDEL", RESPArgument(registry.sizes), RESPArgument(Data(key.rawValue.utf8))))
        }
    }

    /// The pins in the registry (read now).
    public func pins() async throws -> [Pin] {
        try await currentPins(refresh: true).pins
    }

    /// The keys under the prefix, a `SCAN` batch at a time, primary after primary.
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        let prefixLength = configuration.keyPrefix.utf8.count
        let registry = registry
        return AsyncThrowingStream { continuation in
            let producer = Task { [self] in
                do {
                    try await forEachBatch(matching: redisKey(CacheKey(""))) { _, keys in
                        try Task.checkCancellation()
                        let cacheKeys = keys.filter { !registry.contains($0) }.map {
                            CacheKey(String(decoding: $0.dropFirst(prefixLength), as: UTF8.self))
                        }
                        if !cacheKeys.isEmpty { continuation.yield(cacheKeys) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
    }

    // MARK: Internals

    /// Whether `key` is pinned, by the pins read within `pinRefreshInterval`.
    func isPinned(_ key: CacheKey) async throws -> Bool {
        let pins = try await currentPins(refresh: false)
        return !pins.isEmpty && pins.covers(key)
    }

    /// Stores a pinned entry without a time to live, after checking the quota against the sizes the
    /// registry holds, and records its size.
    func storePinned(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        guard let command = try await setCommand(entry, key: key, pinned: true) else { return }
        let sizes = try await pinnedSizes()
        let others = sizes.filter { $0.key != key }.values.reduce(0, +)
        // The value as stored: SET's third argument.
        let size = command.command.arguments[2].count
        guard others + size <= configuration.pinnedQuota else {
            throw AssetsError.pinnedQuotaExceeded(
                key: key, bytes: size, pinnedBytes: others, quota: configuration.pinnedQuota)
        }
        try await sendKeyed(command.command, command.key)
        try await sendRegistry(
            RESPCommand("HSET", RESPArgument(registry.sizes), RESPArgument(Data(key.rawValue.utf8)), RESPArgument(size))
        )
    }

    /// The pinned values' sizes by key, from the registry.
    func pinnedSizes() async throws -> [CacheKey: Int] {
        let reply = try await sendRegistry(RESPCommand("HGETALL", RESPArgument(registry.sizes)))
        guard case .array(let items?) = reply else { return [:] }
        var sizes: [CacheKey: Int] = [:]
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            guard let key = items[index].text, let size = items[index + 1].text.flatMap(Int.init) else { continue }
            sizes[CacheKey(key)] = size
        }
        return sizes
    }

    /// After a batch removal: drops the recorded sizes of pinned values that are gone.
    func forgetPinnedSizes(of selection: EntrySelection) async throws {
        // A server that refuses the pin hashes has none to clean up.
        guard let sizes = try? await pinnedSizes(), !sizes.isEmpty else { return }
        for key in sizes.keys {
            let redisKey = redisKey(key)
            let exists = try await sendKeyed(RESPCommand("EXISTS", RESPArgument(redisKey)), redisKey)
            guard case .integer(0) = exists else { continue }
            try await sendRegistry(
                RESPCommand("HDEL", RESPArgument(registry.sizes), RESPArgument(Data(key.rawValue.utf8))))
        }
    }

    private func currentPins(refresh: Bool) async throws -> PinSet {
        let cached = pinCache.withLock { $0 }
        if !refresh, let readAt = cached.readAt, ContinuousClock.now - readAt < configuration.pinRefreshInterval {
            return cached.pins
        }
        let reply: RESPValue
        do {
            reply = try await sendRegistry(RESPCommand("HKEYS", RESPArgument(registry.rules)))
        } catch let error as RedisError where !error.isConnectionFailure {
            // A server that refuses the pin hashes (an ACL on key patterns) has no pins: stores go on.
            pinCache.withLock { $0 = PinCache(pins: PinSet(), readAt: ContinuousClock.now) }
            return PinSet()
        }
        var pins = PinSet()
        if case .array(let fields?) = reply {
            for field in fields.compactMap(\.bytes) where !field.isEmpty {
                let key = CacheKey(String(decoding: field.dropFirst(), as: UTF8.self))
                pins.insert(field.first == UInt8(ascii: "a") ? .asset(key) : .key(key))
            }
        }
        pinCache.withLock { $0 = PinCache(pins: pins, readAt: ContinuousClock.now) }
        return pins
    }

    /// The keys stored now that `pin` covers.
    private func storedKeys(coveredBy pin: Pin) async throws -> [CacheKey] {
        let exists = try await sendKeyed(RESPCommand("EXISTS", RESPArgument(redisKey(pin.key))), redisKey(pin.key))
        var keys: [CacheKey] = []
        if case .integer(1) = exists { keys.append(pin.key) }
        guard case .asset(let asset) = pin else { return keys }
        let prefixLength = configuration.keyPrefix.utf8.count
        let pattern = Self.globEscaped(redisKey(asset)) + Data("[@#]*".utf8)
        try await forEachBatch(pattern: pattern) { _, found in
            keys += found.map { CacheKey(String(decoding: $0.dropFirst(prefixLength), as: UTF8.self)) }
        }
        return keys
    }

    private static func field(_ pin: Pin) -> Data {
        switch pin {
        case .key(let key): return Data("k".utf8) + Data(key.rawValue.utf8)
        case .asset(let key): return Data("a".utf8) + Data(key.rawValue.utf8)
        }
    }

    @discardableResult
    private func sendRegistry(_ command: RESPCommand) async throws -> RESPValue {
        // Routed by the hash the command names (its first argument).
        try await sendKeyed(command, command.arguments[1])
    }

    @discardableResult
    func sendKeyed(_ command: RESPCommand, _ key: Data) async throws -> RESPValue {
        do {
            return try await router.send(command, routedBy: key)
        } catch {
            record(error)
            throw error
        }
    }
}
