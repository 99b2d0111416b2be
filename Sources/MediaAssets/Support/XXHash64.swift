/// XXH64, a fast non-cryptographic 64-bit hash (Yann Collet's xxHash, 64-bit variant).
///
/// Used for disk cache file names and entry checksums, and for the SQLite backend's rowids: each is
/// checked against the full key and content, so a collision costs a miss, never wrong data. The
/// values are stored in files, so the function never changes.
package enum XXHash64 {
    private static let prime1: UInt64 = 11_400_714_785_074_694_791
    private static let prime2: UInt64 = 14_029_467_366_897_019_727
    private static let prime3: UInt64 = 1_609_587_929_392_839_161
    private static let prime4: UInt64 = 9_650_029_242_287_828_579
    private static let prime5: UInt64 = 2_870_177_450_012_600_261

    /// The hash of `bytes` with `seed`.
    package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return avalanche(seed &+ prime5) }
        var offset = 0
        var hash: UInt64
        if count >= 32 {
            var lane1 = seed &+ prime1 &+ prime2
            var lane2 = seed &+ prime2
            var lane3 = seed
            var lane4 = seed &- prime1
            let stripesEnd = count - 32
            while offset <= stripesEnd {
                lane1 = round(lane1, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
                lane2 = round(lane2, base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self).littleEndian)
                lane3 = round(lane3, base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self).littleEndian)
                lane4 = round(lane4, base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self).littleEndian)
                offset += 32
            }
            hash = rotate(lane1, 1) &+ rotate(lane2, 7) &+ rotate(lane3, 12) &+ rotate(lane4, 18)
            hash = merge(hash, lane1)
            hash = merge(hash, lane2)
            hash = merge(hash, lane3)
            hash = merge(hash, lane4)
        } else {
            hash = seed &+ prime5
        }
        hash &+= UInt64(count)
        while offset + 8 <= count {
            let lane = round(0, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
            hash ^= lane
            hash = rotate(hash, 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= count {
            hash ^= UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian) &* prime1
            hash = rotate(hash, 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            hash ^= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) &* prime5
            hash = rotate(hash, 11) &* prime1
            offset += 1
        }
        return avalanche(hash)
    }

    /// The hash of a string's UTF-8 bytes.
    package static func hash(_ string: String, seed: UInt64 = 0) -> UInt64 {
        var string = string
        return string.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        rotate(accumulator &+ input &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func merge(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        (accumulator ^ round(0, lane)) &* prime1 &+ prime4
    }

    @inline(__always)
    private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
        (value << bits) | (value >> (64 - bits))
    }

    @inline(__always)
    private static func avalanche(_ value: UInt64) -> UInt64 {
        var hash = value
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        hash ^= hash >> 32
        return hash
    }
}
