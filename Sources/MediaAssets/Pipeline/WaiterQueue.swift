/// The waiters of a `WorkLimiter`: highest priority first, and in arrival order within a priority.
///
/// A binary heap with an index of positions, so admitting, removing (a cancelled waiter) and moving (its
/// priority changed) are O(log n) however long the queue is; a moved waiter keeps its place in arrival order.
struct WaiterQueue<Element> {
    private struct Node {
        let id: UInt64
        var level: Int
        let element: Element

        /// Whether `self` leaves before `other`: higher level first, then the earlier arrival (smaller id).
        func precedes(_ other: Node) -> Bool {
            level != other.level ? level > other.level : id < other.id
        }
    }

    private var heap: [Node] = []
    private var positions: [UInt64: Int] = [:]

    /// Waiters queued.
    var count: Int { heap.count }

    /// Queues `element` under `id` (ids grow with arrival) at `level`.
    ///
    /// - Complexity: O(log n)
    mutating func insert(_ element: Element, id: UInt64, level: Int) {
        heap.append(Node(id: id, level: level, element: element))
        positions[id] = heap.count - 1
        siftUp(heap.count - 1)
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
        guard let position = positions[id] else { return nil }
        return remove(at: position)
    }

    /// Moves waiter `id`, if queued, to `level`, keeping its arrival order among that level's waiters.
    ///
    /// - Complexity: O(log n)
    mutating func move(_ id: UInt64, to level: Int) {
        guard let position = positions[id], heap[position].level != level else { return }
        heap[position].level = level
        siftUp(siftDown(position))
    }

    /// The ids in the order they would leave (for tests).
    func _orderedIDs() -> [UInt64] {
        heap.sorted { $0.precedes($1) }.map(\.id)
    }

    /// Checks the heap order and the index (for tests).
    func _checkInvariants() -> Bool {
        guard positions.count == heap.count else { return false }
        for (index, node) in heap.enumerated() {
            if positions[node.id] != index { return false }
            if index > 0, node.precedes(heap[(index - 1) / 2]) { return false }
        }
        return true
    }

    private mutating func remove(at position: Int) -> Element {
        let removed = heap[position]
        positions[removed.id] = nil
        let last = heap.removeLast()
        if position < heap.count {
            heap[position] = last
            positions[last.id] = position
            siftUp(siftDown(position))
        }
        return removed.element
    }

    @discardableResult
    private mutating func siftUp(_ start: Int) -> Int {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            swapAt(child, parent)
            child = parent
        }
        return child
    }

    private mutating func siftDown(_ start: Int) -> Int {
        var parent = start
        while true {
            var first = parent
            let left = 2 * parent + 1
            let right = left + 1
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return parent }
            swapAt(parent, first)
            parent = first
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        positions[heap[a].id] = a
        positions[heap[b].id] = b
    }
}
