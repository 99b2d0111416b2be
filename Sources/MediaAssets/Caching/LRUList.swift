/// An ordered map from keys to values with costs, most recently used first.
///
/// Nodes live in one array linked by indices, so every operation is O(1) and touching a node
/// allocates nothing. Not thread-safe: owners guard it with a lock.
struct LRUList<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value?
        var cost: Int
        var newer: Int
        var older: Int
    }

    private static var none: Int { -1 }

    private var nodes: [Node] = []
    private var slots: [Key: Int] = [:]
    private var freeSlots: [Int] = []
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
        moveToNewest(slot)
        return nodes[slot].value
    }

    /// Returns the value for `key` without changing the order.
    func peekValue(forKey key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        return nodes[slot].value
    }

    /// The cost recorded for `key`.
    func cost(forKey key: Key) -> Int? {
        slots[key].map { nodes[$0].cost }
    }

    /// Inserts or replaces the value for `key` as the most recently used; returns the old value.
    ///
    /// - Complexity: O(1) amortized
    @discardableResult
    mutating func setValue(_ value: Value, forKey key: Key, cost: Int) -> Value? {
        if let slot = slots[key] {
            let old = nodes[slot].value
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].cost = cost
            moveToNewest(slot)
            return old
        }
        let node = Node(key: key, value: value, cost: cost, newer: Self.none, older: newest)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if newest != Self.none { nodes[newest].newer = slot }
        newest = slot
        if oldest == Self.none { oldest = slot }
        slots[key] = slot
        totalCost += cost
        return nil
    }

    /// Removes the value for `key` and returns it with its cost.
    ///
    /// - Complexity: O(1)
    @discardableResult
    mutating func removeValue(forKey key: Key) -> (value: Value, cost: Int)? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        return release(slot)
    }

    /// The least recently used key, if any.
    var leastRecentKey: Key? {
        oldest == Self.none ? nil : nodes[oldest].key
    }

    /// Removes and returns the least recently used entry.
    ///
    /// - Complexity: O(1)
    mutating func removeLeastRecent() -> (key: Key, value: Value, cost: Int)? {
        guard oldest != Self.none else { return nil }
        let slot = oldest
        let key = nodes[slot].key
        slots.removeValue(forKey: key)
        let removed = release(slot)
        return (key, removed.value, removed.cost)
    }

    /// Removes everything.
    mutating func removeAll() {
        nodes.removeAll()
        slots.removeAll()
        freeSlots.removeAll()
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
        var slot = newest
        while slot != Self.none {
            keys.append(nodes[slot].key)
            slot = nodes[slot].older
        }
        return keys
    }

    /// Checks the list's structure; tests call this after every mutation.
    ///
    /// - Complexity: O(n)
    func _checkInvariants() {
        var visited = 0
        var cost = 0
        var slot = newest
        var previous = Self.none
        while slot != Self.none {
            let node = nodes[slot]
            precondition(node.newer == previous, "broken newer link at slot \(slot)")
            precondition(slots[node.key] == slot, "index does not point at slot \(slot)")
            precondition(node.value != nil, "live slot \(slot) has no value")
            cost += node.cost
            visited += 1
            previous = slot
            slot = node.older
        }
        precondition(previous == oldest, "oldest does not end the list")
        precondition(visited == slots.count, "list holds \(visited) nodes, index \(slots.count)")
        precondition(cost == totalCost, "costs add up to \(cost), recorded \(totalCost)")
        precondition(visited + freeSlots.count == nodes.count, "slots leaked")
    }

    private mutating func release(_ slot: Int) -> (value: Value, cost: Int) {
        unlink(slot)
        let value = nodes[slot].value!
        let cost = nodes[slot].cost
        nodes[slot].value = nil
        totalCost -= cost
        freeSlots.append(slot)
        return (value, cost)
    }

    private mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[slot].older = newest
        nodes[slot].newer = Self.none
        if newest != Self.none { nodes[newest].newer = slot }
        newest = slot
        if oldest == Self.none { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let newer = nodes[slot].newer
        let older = nodes[slot].older
        if newer != Self.none { nodes[newer].older = older } else { newest = older }
        if older != Self.none { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = Self.none
        nodes[slot].older = Self.none
    }
}
