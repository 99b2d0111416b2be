import Foundation
import MediaAssets

extension RedisBackend {
    /// Removes the keys `selection` takes, scanning every primary (see the type's documentation).
    public func removeEntries(_ selection: EntrySelection) async throws {
        switch selection {
        case .keyPrefix(let keyPrefix):
            try await forEachBatch(matching: redisKey(CacheKey(keyPrefix))) { node, keys in
                try await unlink(keys, on: node)
            }
        case .partition(let partition):
            try await forEachBatch(matching: redisKey(CacheKey(""))) { node, keys in
                let selected = try await self.keys(keys, on: node, inPartition: partition.rawValue)
                try await unlink(selected, on: node)
            }
        case .asset(let asset):
            // The key itself, then one scan for the keys that continue it with `@` or `#`.
            try await removeEntry(forKey: asset)
            let pattern = Self.globEscaped(redisKey(asset)) + Data("[@#]*".utf8)
            try await forEachBatch(pattern: pattern) { node, keys in try await unlink(keys, on: node) }
        }
        try await forgetPinnedSizes(of: selection)
    }

    /// The number of keys under the prefix and the bytes of their values (headers included), on
    /// every primary: a scan, with one pipelined `STRLEN` per batch of keys.
    func contentTotals() async throws -> (count: Int, bytes: Int) {
        var totals = (count: 0, bytes: 0)
        try await forEachBatch(matching: redisKey(CacheKey(""))) { node, keys in
            let lengths = try await router.send(keys.map { RESPCommand("STRLEN", RESPArgument($0)) }, to: node)
            for length in lengths {
                guard case .integer(let bytes) = length, bytes > 0 else { continue }
                totals.count += 1
                totals.bytes += Int(bytes)
            }
        }
        return totals
    }

    /// The servers' `evicted_keys`, summed over the primaries.
    func evictedKeys() async throws -> Int {
        var total = 0
        for node in try await router.primaries() {
            let reply = try await router.send([RESPCommand("INFO", "stats")], to: node)[0]
            let line = reply.text?.split(whereSeparator: \.isNewline).first { $0.hasPrefix("evicted_keys:") }
            total += line.flatMap { Int($0.dropFirst("evicted_keys:".count)) } ?? 0
        }
        return total
    }

    /// Calls `body` with each batch of keys starting with `keyPrefix`, per primary (`SCAN MATCH`).
    func forEachBatch(
        matching keyPrefix: Data, _ body: (RedisEndpoint, [Data]) async throws -> Void
    ) async throws {
        try await forEachBatch(pattern: Self.globEscaped(keyPrefix) + Data("*".utf8), body)
    }

    /// Calls `body` with each batch of keys matching the glob `pattern`, per primary (`SCAN MATCH`).
    func forEachBatch(pattern: Data, _ body: (RedisEndpoint, [Data]) async throws -> Void) async throws {
        do {
            for node in try await router.primaries() {
                var cursor = Data("0".utf8)
                repeat {
                    let command = RESPCommand(
                        "SCAN", RESPArgument(cursor), "MATCH", RESPArgument(pattern), "COUNT", 1_000)
                    let reply = try await router.send([command], to: node)[0]
                    guard case .array(let parts?) = reply, parts.count == 2, let next = parts[0].bytes,
                        case .array(let found?) = parts[1]
                    else {
                        throw RedisError.unexpectedReply(
                            endpoint: node.description, command: "SCAN", reply: reply.description)
                    }
                    let keys = found.compactMap(\.bytes)
                    if !keys.isEmpty { try await body(node, keys) }
                    cursor = next
                } while cursor != Data("0".utf8)
            }
        } catch {
            record(error)
            throw error
        }
    }

    func unlink(_ keys: [Data], on node: RedisEndpoint) async throws {
        guard !keys.isEmpty else { return }
        // One UNLINK per key: in a cluster, keys of one node still span many slots.
        let replies = try await router.send(keys.map { RESPCommand("UNLINK", RESPArgument($0)) }, to: node)
        if let failure = replies.first(where: \.isError) {
            throw RedisError.unexpectedReply(endpoint: node.description, command: "UNLINK", reply: failure.description)
        }
    }

    /// The keys among `keys` whose stored metadata names `partition`, read with `GETRANGE`.
    private func keys(_ keys: [Data], on node: RedisEndpoint, inPartition partition: String) async throws -> [Data] {
        let probe = RedisEntryFormat.metadataProbeSize - 1
        let prefixes = try await router.send(
            keys.map { RESPCommand("GETRANGE", RESPArgument($0), 0, RESPArgument(probe)) }, to: node)
        var selected: [Data] = []
        for (key, reply) in zip(keys, prefixes) {
            guard var head = reply.bytes, !head.isEmpty else { continue }
            if let end = try? RedisEntryFormat.metadataEnd(inPrefix: head), end > head.count {
                let longer = RESPCommand("GETRANGE", RESPArgument(key), 0, RESPArgument(end - 1))
                head = try await router.send([longer], to: node)[0].bytes ?? head
            }
            if (try? RedisEntryFormat.partition(inPrefix: head)) == partition { selected.append(key) }
        }
        return selected
    }

    /// `bytes` with the glob characters `* ? [ ] \` escaped, for `SCAN MATCH`.
    static func globEscaped(_ bytes: Data) -> Data {
        var escaped = Data(capacity: bytes.count)
        for byte in bytes {
            if byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "[")
                || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "\\")
            {
                escaped.append(UInt8(ascii: "\\"))
            }
            escaped.append(byte)
        }
        return escaped
    }
}
