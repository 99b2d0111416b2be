/// The waiters of a `WorkLimiter`: highest priority first, and in arrival order within a priority.
///
/// A binary heap of sort keys, each a waiter's priority and arrival packed in one integer (so ordering is one
/// comparison), over slots that hold the waiters and their places in the heap. Admitting, removing (a cancelled
/// waiter) and moving (its priority changed) are O(log n) however long the queue is, and moving an entry in the
/// heap writes two array elements: the index from a waiter's id to its slot is touched once when the waiter comes
/// and once when it leaves, never per move. A moved waiter keeps its place in arrival order.
package struct WaiterQueue<Element> {
    /// A heap entry: the sort key (smaller leaves first) and the slot of the waiter.
    private struct Entry {
        var key: UInt64
        var slot: Int
    }

    /// A waiter and its position in the heap (its element is nil while the slot is free).
    private struct Slot {
        var element: Element?
        var position: Int
    }

    /// Arrival ids use the low 56 bits of a key; the level, from the highest down, the top 8.
    private static var idBits: UInt64 { 56 }
    private static var idMask: UInt64 { (1 << idBits) - 1 }

    private var heap: [Entry] = []
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var slotOfID: [UInt64: Int] = [:]

    /// Waiters queued.
    var count: Int { heap.count }

    /// Queues `element` under `id` (ids grow with arrival, below 2⁵⁶) at `level` (0...255; higher leaves first).
    ///
    /// - Complexity: O(log n)
    mutating func insert(_ element: Element, id: UInt64, level: Int) {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = Slot(element: element, position: heap.count)
        } else {
            slot = slots.count
            slots.append(Slot(element: element, position: heap.count))
        }
        slotOfID[id] = slot
        heap.append(Entry(key: Self.key(id: id, level: level), slot: slot))
        siftUp(from: heap.count - 1)
    }

    /// Removes and returns the first waiter.
    ///
    /// - Complexity: O(log n)
    mutating func popFirst() -> Element? {
        guard !heap.isEmpty else { return nil }
        return remove(at: 0)
    }

    /// Removes waiter `id`, if queued.
    ///
    /// - Complexity: O(log n)
    mutating func remove(_ id: UInt64) -> Element? {
        guard let slot = slotOfID[id] else { return nil }
        return remove(at: slots[slot].position)
    }

    /// Moves waiter `id`, if queued, to `level`, keeping its arrival order among that level's waiters.
    ///
    /// - Complexity: O(log n)
    mutating func move(_ id: UInt64, to level: Int) {
        guard let slot = slotOfID[id] else { return }
        let position = slots[slot].position
        let key = Self.key(id: id, level: level)
        guard heap[position].key != key else { return }
        heap[position].key = key
        siftUp(from: siftDown(from: position))
    }

    /// Checks the heap order, the slots' positions and the index (for tests).
    func checkInvariants() -> Bool {
        guard slotOfID.count == heap.count, slots.count == heap.count + freeSlots.count else { return false }
        for (position, entry) in heap.enumerated() {
            guard slots[entry.slot].position == position, slots[entry.slot].element != nil,
                slotOfID[entry.key & Self.idMask] == entry.slot
            else { return false }
            if position > 0, entry.key < heap[(position - 1) / 2].key { return false }
        }
        return freeSlots.allSatisfy { slots[$0].element == nil }
    }

    /// The sort key: the level from the top (so higher levels sort first), then the arrival.
    private static func key(id: UInt64, level: Int) -> UInt64 {
        precondition(id <= idMask, "waiter ids must stay below 2^56")
        let rank = UInt64(255 - min(max(level, 0), 255))
        return rank << idBits | id
    }

    private mutating func remove(at position: Int) -> Element? {
        let removed = heap[position]
        let element = slots[removed.slot].element.take()
        freeSlots.append(removed.slot)
        slotOfID[removed.key & Self.idMask] = nil
        let last = heap.removeLast()
        if position < heap.count {
            heap[position] = last
            slots[last.slot].position = position
            siftUp(from: siftDown(from: position))
        }
        return element
    }

    /// Moves the entry at `start` toward the root while it leaves before its parent; returns where it settled.
    @discardableResult
    private mutating func siftUp(from start: Int) -> Int {
        let entry = heap[start]
        var hole = start
        while hole > 0 {
            let parent = (hole - 1) / 2
            guard entry.key < heap[parent].key else { break }
            place(heap[parent], at: hole)
            hole = parent
        }
        place(entry, at: hole)
        return hole
    }

    /// Moves the entry at `start` toward the leaves while a child leaves before it; returns where it settled.
    private mutating func siftDown(from start: Int) -> Int {
        let entry = heap[start]
        var hole = start
        while true {
            let left = 2 * hole + 1
            guard left < heap.count else { break }
            let right = left + 1
            let first = right < heap.count && heap[right].key < heap[left].key ? right : left
            guard heap[first].key < entry.key else { break }
            place(heap[first], at: hole)
            hole = first
        }
        place(entry, at: hole)
        return hole
    }

    private mutating func place(_ entry: Entry, at position: Int) {
        heap[position] = entry
        slots[entry.slot].position = position
    }
}

extension WaiterQueue where Element == UInt64 {
    /// Admits `operations` waiters one at a time (each admission queues a newcomer) from a queue kept `depth`
    /// long at one level: the queue's part of a limiter's admission, specialized here for the benchmarks, which
    /// time it. Returns the sum of the admitted ids.
    package static func _admit(operations: Int, depth: Int) -> UInt64 {
        var queue = WaiterQueue<UInt64>()
        var nextID: UInt64 = 0
        for _ in 0..<depth {
            nextID += 1
            queue.insert(nextID, id: nextID, level: 2)
        }
        var sum: UInt64 = 0
        for _ in 0..<operations {
            sum &+= queue.popFirst() ?? 0
            nextID += 1
            queue.insert(nextID, id: nextID, level: 2)
        }
        return sum
    }
}
