import Foundation
import MediaAssets

extension RedisBackend {
    /// Replaces the metadata of the entry under `key` in place, keeping its bytes, and returns
    /// whether an entry was there (a miss changes nothing).
    ///
    /// One `EVAL` of a short script, atomic on the server: if the value is of the current format and
    /// the new metadata fits the room it was stored with (see `RedisEntryFormat`), it `SETRANGE`s the
    /// metadata and sets the time to live from the new expiry (none when pinned). Only the metadata
    /// travels; the bytes are neither sent nor rewritten. A value of an older format, metadata that
    /// outgrew its room, or a server that refuses scripts (an ACL) gets the entry stored again whole.
    ///
    /// - Throws: A `RedisError` when the server cannot be reached.
    public func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) async throws -> Bool {
        let redisKey = redisKey(key)
        let pinned = try await isPinned(key)
        let timeToLive = pinned ? nil : timeToLive(of: metadata)
        if let timeToLive, timeToLive <= 0 {
            // Expired by its new metadata: removed, as a store of it would leave nothing.
            let reply = try await sendKeyed(RESPCommand("EXISTS", RESPArgument(redisKey)), redisKey)
            try await removeEntry(forKey: key)
            return reply == .integer(1)
        }
        if let update = RedisEntryFormat.metadataUpdate(metadata) {
            let header = Data(RedisEntryFormat.magic + [RedisEntryFormat.version])
            let command = RESPCommand(
                "EVAL", RESPArgument(Self.metadataUpdateScript), 1, RESPArgument(redisKey), RESPArgument(header),
                RESPArgument(update), RESPArgument(timeToLive.map(String.init) ?? ""))
            do {
                switch try await router.send(command, routedBy: redisKey) {
                case .integer(1): return true
                case .integer(0): return false
                default: break  // -1: stored in an older format, or the metadata outgrew its room
                }
            } catch  where error.isConnectionFailure {
                record(error)
                throw error
            } catch {
                // A refused script (NOSCRIPT, NOPERM): the whole entry is stored again below.
            }
        }
        guard var entry = try await entry(forKey: key) else { return false }
        entry.metadata = metadata
        try await store(entry, forKey: key)
        return true
    }

    /// KEYS[1]: the value; ARGV: the current format's first 5 bytes, the length and metadata to
    /// write at `RedisEntryFormat.lengthOffset`, and the time to live in milliseconds ("" for none).
    /// Returns 1 when updated, 0 when there is no value, -1 when it cannot be updated in place.
    static let metadataUpdateScript = """
        local header = redis.call('GETRANGE', KEYS[1], 0, 8)
        if #header == 0 then return 0 end
        if #header < 9 or string.sub(header, 1, 5) ~= ARGV[1] then return -1 end
        local a, b, c, d = string.byte(header, 6, 9)
        if #ARGV[2] - 4 > ((a * 256 + b) * 256 + c) * 256 + d then return -1 end
        redis.call('SETRANGE', KEYS[1], 9, ARGV[2])
        if ARGV[3] == '' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
        return 1
        """
}
