import Foundation

/// The disk index's records: entry names in least-recently-used order, each with its file's size,
/// last access, expiry and inode, in about 72 bytes an entry and no allocation per entry.
///
/// Nodes are fixed-size values in one array, linked by indices (the recency order); a table of node
/// indices finds a name (open addressing, linear probing, backward-shift deletion, hashed by the
/// process-seeded `Hasher`, so crafted keys cannot pile up in one probe run). A `[String: Record]`
/// costs several times as much: the 32-character name alone is a heap string.
/// Not thread-safe: the disk cache guards it with its lock.
struct DiskRecords {
    /// What the index knows of one file.
    struct Record: Equatable {
        var size: Int
        var lastAccess: Date
        var expiry: DiskIndex.Expiry
        /// The inode of the file the record describes; a reader that opened an older file (replaced
        /// since) must not write its findings onto this record.
        var inode: UInt64
        /// Whether a read verified this file's body checksum. A file's bytes are only ever replaced
        /// (a new inode and record), never changed in place (a metadata update rewrites a slot of its
        /// header only), so later reads of the same file check the header and key but not the body.
        var isVerified: Bool
    }

    private struct Node {
        var name: EntryName
        var size: Int
        var lastAccess: Double
        /// Seconds since the reference date; NaN when unknown, +infinity when never.
        var expiry: Double
        var inode: UInt64
        var newer: Int32
        var older: Int32
        var isVerified: Bool
        /// Whether the pass at open found this record's file in the directory (see `markListed(_:)`).
        var isListed = false

        var record: Record {
            Record(
                size: size, lastAccess: Date(timeIntervalSinceReferenceDate: lastAccess),
                expiry: DiskIndex.Expiry(storedSeconds: expiry), inode: inode, isVerified: isVerified
            )
        }

        mutating func assign(_ record: Record) {
            size = record.size
            lastAccess = record.lastAccess.timeIntervalSinceReferenceDate
            expiry = record.expiry.storedSeconds
            inode = record.inode
            isVerified = record.isVerified
        }
    }

    private static let none: Int32 = -1

    private var nodes: [Node] = []
    private var freeNodes: [Int32] = []
    /// Node indices by hash of name; `none` marks an empty bucket. Its count is a power of two.
    private var buckets: [Int32] = Array(repeating: DiskRecords.none, count: 16)
    private var newest = DiskRecords.none
    private var oldest = DiskRecords.none

    /// The number of records.
    private(set) var count = 0
    /// The sum of the records' sizes.
    private(set) var totalSize = 0

    /// Makes room for `capacity` records without regrowing.
    mutating func reserveCapacity(_ capacity: Int) {
        nodes.reserveCapacity(capacity)
        growBuckets(toHold: capacity)
    }

    /// The record for `name`, without changing the order.
    ///
    /// - Complexity: O(1)
    func record(for name: EntryName) -> Record? {
        bucketPosition(of: name).map { nodes[Int(buckets[$0])].record }
    }

    /// Inserts or replaces the record for `name` as the most recently used.
    ///
    /// - Complexity: O(1) amortized
    mutating func set(_ record: Record, for name: EntryName) {
        if let position = bucketPosition(of: name) {
            let index = Int(buckets[position])
            totalSize += record.size - nodes[index].size
            nodes[index].assign(record)
            moveToNewest(Int32(index))
            return
        }
        growBuckets(toHold: count + 1)
        var node = Node(
            name: name, size: 0, lastAccess: 0, expiry: .nan, inode: 0, newer: Self.none, older: newest,
            isVerified: false
        )
        node.assign(record)
        let index: Int32
        if let free = freeNodes.popLast() {
            index = free
            nodes[Int(free)] = node
        } else {
            index = Int32(nodes.count)
            nodes.append(node)
        }
        if newest != Self.none { nodes[Int(newest)].newer = index }
        newest = index
        if oldest == Self.none { oldest = index }
        buckets[emptyPosition(for: name)] = index
        count += 1
        totalSize += record.size
    }

    /// Inserts a record for a `name` not held yet as the least recently used, marked as listed: the pass
    /// at open adds the files it found, newest first, behind every record already there.
    ///
    /// - Complexity: O(1) amortized
    mutating func insertLeastRecent(_ record: Record, for name: EntryName) {
        precondition(bucketPosition(of: name) == nil, "insertLeastRecent of a name already held")
        set(record, for: name)
        let index = buckets[bucketPosition(of: name)!]
        nodes[Int(index)].isListed = true
        guard index != oldest else { return }
        unlink(index)
        nodes[Int(index)].newer = oldest
        nodes[Int(oldest)].older = index
        oldest = index
    }

    /// Marks the record of `name` as one whose file the pass at open found, replacing it with `record`
    /// if given (in place: finding a file is not a use of it); returns false if `name` is absent.
    @discardableResult
    mutating func markListed(_ name: EntryName, replacingWith record: Record? = nil) -> Bool {
        guard let position = bucketPosition(of: name) else { return false }
        let index = Int(buckets[position])
        if let record {
            totalSize += record.size - nodes[index].size
            nodes[index].assign(record)
        }
        nodes[index].isListed = true
        return true
    }

    /// Removes the records the pass at open did not find a file for, except those `keep` names; returns
    /// their names.
    ///
    /// - Complexity: O(n)
    mutating func removeUnlisted(keeping keep: (EntryName) -> Bool) -> [EntryName] {
        var unlisted: [EntryName] = []
        var index = newest
        while index != Self.none {
            let node = nodes[Int(index)]
            if !node.isListed, !keep(node.name) { unlisted.append(node.name) }
            index = node.older
        }
        for name in unlisted { _ = remove(name) }
        return unlisted
    }

    /// Replaces the record of an existing `name`, keeping its place in the order (learning about a
    /// file is not a use of it); returns false if `name` is absent.
    @discardableResult
    mutating func replaceInPlace(_ record: Record, for name: EntryName) -> Bool {
        guard let position = bucketPosition(of: name) else { return false }
        let index = Int(buckets[position])
        totalSize += record.size - nodes[index].size
        nodes[index].assign(record)
        return true
    }

    /// Removes and returns the record for `name`.
    ///
    /// - Complexity: O(1)
    mutating func remove(_ name: EntryName) -> Record? {
        guard let position = bucketPosition(of: name) else { return nil }
        return release(at: position)
    }

    /// Removes and returns the least recently used record.
    mutating func removeLeastRecent() -> (name: EntryName, record: Record)? {
        guard oldest != Self.none else { return nil }
        let name = nodes[Int(oldest)].name
        guard let position = bucketPosition(of: name), let record = release(at: position) else { return nil }
        return (name, record)
    }

    /// The names from most to least recently used.
    ///
    /// - Complexity: O(n)
    var namesByRecency: [EntryName] {
        var names: [EntryName] = []
        names.reserveCapacity(count)
        var index = newest
        while index != Self.none {
            names.append(nodes[Int(index)].name)
            index = nodes[Int(index)].older
        }
        return names
    }

    /// Calls `body` with each name and record from least to most recently used.
    ///
    /// - Complexity: O(n)
    func forEachOldestFirst(_ body: (EntryName, Record) -> Void) {
        var index = oldest
        while index != Self.none {
            body(nodes[Int(index)].name, nodes[Int(index)].record)
            index = nodes[Int(index)].newer
        }
    }

    /// Checks the links, the table and the totals; tests call this after every mutation.
    ///
    /// - Complexity: O(n)
    func checkInvariants() {
        var visited = 0
        var size = 0
        var previous = Self.none
        var index = newest
        while index != Self.none {
            let node = nodes[Int(index)]
            precondition(node.newer == previous, "broken newer link at node \(index)")
            precondition(bucketPosition(of: node.name).map { buckets[$0] } == index, "table misses node \(index)")
            size += node.size
            visited += 1
            previous = index
            index = node.older
        }
        precondition(previous == oldest, "oldest does not end the list")
        precondition(visited == count, "list holds \(visited) nodes, count is \(count)")
        precondition(buckets.filter { $0 != Self.none }.count == count, "table and list differ")
        precondition(size == totalSize, "sizes add up to \(size), recorded \(totalSize)")
        precondition(visited + freeNodes.count == nodes.count, "nodes leaked")
    }

    // MARK: Table

    private var mask: Int { buckets.count - 1 }

    private func home(of name: EntryName) -> Int { name.hashValue & mask }

    private func bucketPosition(of name: EntryName) -> Int? {
        var position = home(of: name)
        while true {
            let index = buckets[position]
            if index == Self.none { return nil }
            if nodes[Int(index)].name == name { return position }
            position = (position + 1) & mask
        }
    }

    private func emptyPosition(for name: EntryName) -> Int {
        var position = home(of: name)
        while buckets[position] != Self.none { position = (position + 1) & mask }
        return position
    }

    /// Keeps the table at most 70 % full, so probe runs stay short.
    private mutating func growBuckets(toHold wanted: Int) {
        guard wanted * 10 > buckets.count * 7 else { return }
        var capacity = buckets.count
        while wanted * 10 > capacity * 7 { capacity *= 2 }
        buckets = Array(repeating: Self.none, count: capacity)
        var index = newest
        while index != Self.none {
            buckets[emptyPosition(for: nodes[Int(index)].name)] = index
            index = nodes[Int(index)].older
        }
    }

    /// Empties a bucket, shifting later members of its probe run back so that every name stays
    /// reachable from its home bucket without tombstones.
    private mutating func clearBucket(_ position: Int) {
        var hole = position
        var next = (position + 1) & mask
        while buckets[next] != Self.none {
            let home = home(of: nodes[Int(buckets[next])].name)
            // The member may move into the hole unless its home lies cyclically in (hole, next].
            let homeAfterHole = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !homeAfterHole {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = Self.none
    }

    // MARK: List

    private mutating func release(at position: Int) -> Record? {
        let index = buckets[position]
        clearBucket(position)
        unlink(index)
        let record = nodes[Int(index)].record
        totalSize -= record.size
        count -= 1
        freeNodes.append(index)
        return record
    }

    private mutating func moveToNewest(_ index: Int32) {
        guard index != newest else { return }
        unlink(index)
        nodes[Int(index)].older = newest
        if newest != Self.none { nodes[Int(newest)].newer = index }
        newest = index
        if oldest == Self.none { oldest = index }
    }

    private mutating func unlink(_ index: Int32) {
        let newer = nodes[Int(index)].newer
        let older = nodes[Int(index)].older
        if newer != Self.none { nodes[Int(newer)].older = older } else { newest = older }
        if older != Self.none { nodes[Int(older)].newer = newer } else { oldest = newer }
        nodes[Int(index)].newer = Self.none
        nodes[Int(index)].older = Self.none
    }
}

/// A binary file format of the disk cache (entry-file headers, index snapshots) whose fixed-width integers
/// are little-endian; conforming gives its coders one way to write and read them.
protocol LittleEndianFormat {}

extension LittleEndianFormat {
    /// Appends `value`'s little-endian bytes to `bytes`.
    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// The little-endian `T` at `offset` in `bytes`, which the caller has checked is long enough.
    static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
