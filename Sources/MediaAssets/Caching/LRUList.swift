/// An ordered map from keys to values with costs, most recently used first.
///
/// Values live in the dictionary beside their cost and the index of their node, so a hit or a
/// replacement reads the dictionary and then rewrites a few 8-byte links, which sit in one compact
/// array that stays in cache. Nodes (the keys, for eviction and listing) live in one array linked
/// by indices and are read only when a value leaves, so every operation is O(1), hashes its key
/// once, and allocates nothing once the arrays have grown.
/// Not thread-safe: owners guard it with a lock.
struct LRUList<Key: Hashable, Value> {
    private struct Slot {
        var value: Value
        var cost: Int
        var node: Int
    }

    private struct Node {
        /// nil while the node is free.
        var key: Key?
    }

    private struct Link {
        var newer: Int32
        var older: Int32
    }

    private static var none: Int { -1 }

    private var slots: [Key: Slot] = [:]
    private var nodes: [Node] = []
    private var links: [Link] = []
    private var freeNodes: [Int] = []
    private var newest = LRUList.none
    private var oldest = LRUList.none

    /// The sum of the costs of the values held.
    private(set) var totalCost = 0

    /// The number of values held.
    var count: Int { slots.count }

    /// Returns the value for `key` and marks it most recently used.
    ///
    /// - Complexity: O(1)
    mutating func value(forKey key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        moveToNewest(slot.node)
        return slot.value
    }

    /// Returns the value for `key` without changing the order.
    func peekValue(forKey key: Key) -> Value? {
        slots[key]?.value
    }

    /// Replaces the value of an existing `key`, keeping its place in the order and its cost;
    /// returns false if `key` is absent.
    ///
    /// - Complexity: O(1)
    @discardableResult
    mutating func replaceValueInPlace(_ value: Value, forKey key: Key) -> Bool {
        Self.replace(&slots[key], with: value)
    }

    /// Inserts or replaces the value for `key` as the most recently used; returns the old value.
    ///
    /// - Complexity: O(1) amortized
    @discardableResult
    mutating func setValue(_ value: Value, forKey key: Key, cost: Int) -> Value? {
        // One lookup finds the key or the place to insert it; a new key takes the next free node.
        let freeNode = freeNodes.last ?? nodes.count
        let (node, replaced) = Self.upsert(&slots[key], value: value, cost: cost, freeNode: freeNode)
        guard node == freeNode else {
            totalCost += cost - replaced!.cost
            moveToNewest(node)
            return replaced!.value
        }
        let link = Link(newer: Int32(Self.none), older: Int32(newest))
        if freeNodes.isEmpty {
            nodes.append(Node(key: key))
            links.append(link)
        } else {
            freeNodes.removeLast()
            nodes[node] = Node(key: key)
            links[node] = link
        }
        if newest != Self.none { links[newest].newer = Int32(node) }
        newest = node
        if oldest == Self.none { oldest = node }
        totalCost += cost
        return nil
    }

    /// Removes the value for `key` and returns it with its cost.
    ///
    /// - Complexity: O(1)
    @discardableResult
    mutating func removeValue(forKey key: Key) -> (value: Value, cost: Int)? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        release(slot)
        return (slot.value, slot.cost)
    }

    /// Removes and returns the least recently used entry.
    ///
    /// - Complexity: O(1)
    mutating func removeLeastRecent() -> (key: Key, value: Value, cost: Int)? {
        guard oldest != Self.none else { return nil }
        let node = oldest
        let key = nodes[node].key!
        let slot = slots.removeValue(forKey: key)!
        release(slot)
        return (key, slot.value, slot.cost)
    }

    /// Removes everything.
    mutating func removeAll() {
        slots.removeAll()
        nodes.removeAll()
        links.removeAll()
        freeNodes.removeAll()
        newest = Self.none
        oldest = Self.none
        totalCost = 0
    }

    /// The keys from most to least recently used.
    ///
    /// - Complexity: O(n)
    var keysByRecency: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var node = newest
        while node != Self.none {
            keys.append(nodes[node].key!)
            node = Int(links[node].older)
        }
        return keys
    }

    /// Checks the list's structure; tests call this after every mutation.
    ///
    /// - Complexity: O(n)
    func checkInvariants() {
        var visited = 0
        var cost = 0
        var node = newest
        var previous = Self.none
        while node != Self.none {
            precondition(Int(links[node].newer) == previous, "broken newer link at node \(node)")
            guard let key = nodes[node].key else { preconditionFailure("free node \(node) in the list") }
            guard let slot = slots[key] else { preconditionFailure("node \(node) has no value") }
            precondition(slot.node == node, "index does not point at node \(node)")
            cost += slot.cost
            visited += 1
            previous = node
            node = Int(links[node].older)
        }
        precondition(previous == oldest, "oldest does not end the list")
        precondition(visited == slots.count, "list holds \(visited) nodes, index \(slots.count)")
        precondition(cost == totalCost, "costs add up to \(cost), recorded \(totalCost)")
        precondition(visited + freeNodes.count == nodes.count, "nodes leaked")
        precondition(freeNodes.allSatisfy { nodes[$0].key == nil }, "a free node holds a key")
        precondition(links.count == nodes.count, "links and nodes differ in count")
    }

    /// Stores `value` in `slot` (a dictionary entry reached by one lookup): an existing slot keeps
    /// its node and returns its old value and cost, an empty one takes `freeNode`.
    private static func upsert(
        _ slot: inout Slot?, value: Value, cost: Int, freeNode: Int
    ) -> (node: Int, replaced: (value: Value, cost: Int)?) {
        guard let old = slot else {
            slot = Slot(value: value, cost: cost, node: freeNode)
            return (freeNode, nil)
        }
        slot = Slot(value: value, cost: cost, node: old.node)
        return (old.node, (old.value, old.cost))
    }

    private static func replace(_ slot: inout Slot?, with value: Value) -> Bool {
        guard slot != nil else { return false }
        slot?.value = value
        return true
    }

    /// Unlinks and frees the node of `slot`, which has left the dictionary.
    private mutating func release(_ slot: Slot) {
        unlink(slot.node)
        nodes[slot.node].key = nil
        totalCost -= slot.cost
        freeNodes.append(slot.node)
    }

    private mutating func moveToNewest(_ node: Int) {
        guard node != newest else { return }
        var ends = (newest: newest, oldest: oldest)
        // One uniqueness check and no bounds checks for the four links a hit rewrites: every index
        // here is a live node's (`checkInvariants` checks the links after every mutation in tests).
        links.withUnsafeMutableBufferPointer { links in
            Self.unlink(node, in: links, ends: &ends)
            let older = Int32(truncatingIfNeeded: ends.newest)
            links[node] = Link(newer: Int32(truncatingIfNeeded: Self.none), older: older)
            if ends.newest != Self.none { links[ends.newest].newer = Int32(truncatingIfNeeded: node) }
            ends.newest = node
            if ends.oldest == Self.none { ends.oldest = node }
        }
        (newest, oldest) = ends
    }

    private mutating func unlink(_ node: Int) {
        var ends = (newest: newest, oldest: oldest)
        links.withUnsafeMutableBufferPointer { Self.unlink(node, in: $0, ends: &ends) }
        (newest, oldest) = ends
    }

    private static func unlink(
        _ node: Int, in links: UnsafeMutableBufferPointer<Link>, ends: inout (newest: Int, oldest: Int)
    ) {
        let link = links[node]
        let newer = Int(link.newer)
        let older = Int(link.older)
        if newer != none { links[newer].older = link.older } else { ends.newest = older }
        if older != none { links[older].newer = link.newer } else { ends.oldest = newer }
    }
}
