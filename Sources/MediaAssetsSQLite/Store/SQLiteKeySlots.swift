import MediaAssets

/// How keys are placed in the table: a 64-bit hash of the key's UTF-8 bytes. Every process using a
/// file must place keys alike, so only tests change it (to force collisions).
package typealias SQLiteKeyHash = @Sendable (UnsafeRawBufferPointer) -> UInt64

/// The rowids a key's row may take (schema version 6): the key's hash, and the 15 rowids after it.
///
/// A row's rowid is the first of its key's slots that was free when it was stored, so a read finds
/// it with one search of the table's B-tree, starting at the first slot. Keys whose hashes collide
/// (or land within 16 of each other) take the next free slots and are told apart by the key stored
/// in the row, so a collision costs a step, never a wrong entry. A store that finds all 16 slots
/// taken evicts the least recently used row among them.
struct SQLiteKeySlots: Equatable {
    /// How many rowids one hash covers.
    static let count: Int64 = 16

    /// The first slot: the hash's top 63 bits (rowids are signed), kept low enough that the slots
    /// never wrap past the largest rowid.
    let first: Int64
    /// The last slot.
    var last: Int64 { first + Self.count - 1 }

    init(hash: UInt64) {
        first = min(Int64(hash >> 1), Int64.max - Self.count + 1)
    }

    /// The slots of a key whose UTF-8 bytes are `keyBytes`.
    init(keyBytes: UnsafeRawBufferPointer, hash: SQLiteKeyHash) {
        self.init(hash: hash(keyBytes))
    }

    /// The slots of `key`.
    init(key: CacheKey, hash: SQLiteKeyHash) {
        var text = key.rawValue
        self = text.withUTF8 { SQLiteKeySlots(keyBytes: UnsafeRawBufferPointer($0), hash: hash) }
    }

    func contains(_ rowID: Int64) -> Bool { rowID >= first && rowID <= last }

    /// The first slot no row holds, given `taken`: a statement selecting the rowids between its
    /// parameters 1 and 2 in order (of the table being filled). Nil when all are taken.
    func firstFree(_ taken: SQLiteStatement) throws -> Int64? {
        try taken.withReset { query in
            try query.bind(first, at: 1)
            try query.bind(last, at: 2)
            var candidate = first
            while try query.step() {
                let rowID = query.int64(at: 0)
                guard rowID == candidate else { break }
                guard candidate < last else { return nil }
                candidate += 1
            }
            return candidate
        }
    }
}

extension SQLiteBackend.Configuration {
    /// XXH64 of the key's UTF-8 bytes, as every file of schema version 6 places its keys.
    static let defaultKeyHash: SQLiteKeyHash = { XXHash64.hash($0) }
}
