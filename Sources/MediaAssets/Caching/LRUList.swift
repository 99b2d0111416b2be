/// An ordered map from keys to values with costs, most recently used first.
///
/// Nodes live in one array linked by indices, so every operation is O(1) and touching a node
/// allocates nothing. The links live in their own compact array: marking a value used rewrites
/// a few 8-byte links (which stay in cache) rather than the large nodes around it.
/// Not thread-safe: owners guard it with a lock.
struct LRUList<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value?
        var cost: Int
    }

    private struct Link {
        var newer: Int32
        var older: Int32
    }

    private static var none: Int { -1 }

    private var nodes: [Node] = []
    private var links: [Link] = []
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

    /// Replaces the value of an existing `key`, keeping its place in the order and its cost;
    /// returns false if `key` is absent.
    ///
    /// - Complexity: O(1)
    @discardableResult
    mutating func replaceValueInPlace(_ value: Value, forKey key: Key) -> Bool {
        guard let slot = slots[key] else { return false }
        nodes[slot].value = value
        return true
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
        let node = Node(key: key, value: value, cost: cost)
        let link = Link(newer: Int32(Self.none), older: Int32(newest))
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            nodes[slot] = node
            links[slot] = link
        } else {
            slot = nodes.count
            nodes.append(node)
            links.append(link)
        }
        if newest != Self.none { links[newest].newer = Int32(slot) }
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
        links.removeAll()
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
            slot = Int(links[slot].older)
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
            precondition(Int(links[slot].newer) == previous, "broken newer link at slot \(slot)")
            precondition(slots[node.key] == slot, "index does not point at slot \(slot)")
            precondition(node.value != nil, "live slot \(slot) has no value")
            cost += node.cost
            visited += 1
            previous = slot
            slot = Int(links[slot].older)
        }
        precondition(previous == oldest, "oldest does not end the list")
        precondition(visited == slots.count, "list holds \(visited) nodes, index \(slots.count)")
        precondition(cost == totalCost, "costs add up to \(cost), recorded \(totalCost)")
        precondition(visited + freeSlots.count == nodes.count, "slots leaked")
        precondition(links.count == nodes.count, "links and nodes differ in count")
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
        links[slot] = Link(newer: Int32(Self.none), older: Int32(newest))
        if newest != Self.none { links[newest].newer = Int32(slot) }
        newest = slot
        if oldest == Self.none { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let link = links[slot]
        let newer = Int(link.newer)
        let older = Int(link.older)
        if newer != Self.none { links[newer].older = link.older } else { newest = older }
        if older != Self.none { links[older].newer = link.newer } else { oldest = newer }
        links[slot] = Link(newer: Int32(Self.none), older: Int32(Self.none))
    }
}
