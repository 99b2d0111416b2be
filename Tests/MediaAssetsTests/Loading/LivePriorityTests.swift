import Foundation
import Synchronization
import TestSupport
import Testing

@testable import MediaAssets

@Suite("Live priorities")
struct LivePriorityTests {
    /// A slot holder: an operation that runs until `open()`.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    final class Order: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var value: [String] { names.withLock { $0 } }
    }

    @Test func aGatedLimiterAdmitsInTheOrderOfThePrioritiesAfterTheyChanged() async throws {
        // Given a limiter of one slot, held, and six waiters queued one after another
        let limiter = WorkLimiter(limit: 1)
        let gate = Gate()
        let holder = Task { try await limiter.run(priority: .normal) { await gate.wait() } }
        try await waitUntil("the slot is held") { limiter.peakConcurrency == 1 }
        let order = Order()
        let initial: [(String, AssetRequest.Priority)] = [
            ("a", .low), ("b", .normal), ("c", .low), ("d", .high), ("e", .normal), ("f", .normal),
        ]
        var priorities: [String: LivePriority] = [:]
        var tasks: [String: Task<Void, Error>] = [:]
        for (index, (name, level)) in initial.enumerated() {
            let priority = LivePriority(level)
            priorities[name] = priority
            tasks[name] = Task { try await limiter.run(priority: priority) { order.append(name) } }
            try await waitUntil("\(name) queued") { limiter.waitingCount == index + 1 }
        }

        // When priorities change while they wait, and one waiter is cancelled
        priorities["a"]!.value = .veryHigh
        priorities["e"]!.value = .veryLow
        priorities["f"]!.value = .high  // ties with d, which came first
        tasks["c"]!.cancel()
        try await waitUntil("c left the queue") { limiter.waitingCount == 5 }
        gate.open()
        try await holder.value
        for name in ["a", "b", "d", "e", "f"] { try await tasks[name]!.value }

        // Then they were admitted by their new priorities, in arrival order within one, and c never ran
        #expect(order.value == ["a", "d", "f", "b", "e"])
        await #expect(throws: CancellationError.self) { try await tasks["c"]!.value }
        #expect(limiter.peakConcurrency == 1)
        #expect(limiter.waitingCount == 0)
    }

    @Test func aWaiterThatTakesTheCurrentAsksPriorityMovesWithIt() async throws {
        let limiter = WorkLimiter(limit: 1)
        let gate = Gate()
        let holder = Task { try await limiter.run(priority: .normal) { await gate.wait() } }
        try await waitUntil("the slot is held") { limiter.peakConcurrency == 1 }
        let order = Order()
        let early = Task { try await limiter.run(priority: .normal) { order.append("early") } }
        try await waitUntil("early queued") { limiter.waitingCount == 1 }
        let raised = LivePriority(.low)
        let late = Task {
            try await LivePriority.$current.withValue(raised) { try await limiter.run { order.append("late") } }
        }
        try await waitUntil("late queued") { limiter.waitingCount == 2 }

        raised.value = .veryHigh
        gate.open()
        try await holder.value
        try await early.value
        try await late.value

        #expect(order.value == ["late", "early"])
    }

    @Test func aFlightIsRaisedByAJoinerAndDropsWhenItLeaves() async throws {
        // Given a flight started by a low-priority asker, held inside its operation
        let pool = RequestPool<Int, String>()
        let gate = Gate()
        let seenInside = Mutex<AssetRequest.Priority?>(nil)
        let operation: @Sendable (@escaping @Sendable (FetchProgress) -> Void) async throws -> String = { _ in
            seenInside.withLock { $0 = LivePriority.current?.value }
            await gate.wait()
            return "done"
        }
        let first = LivePriority(.low)
        let firstAsk = Task {
            try await LivePriority.$current.withValue(first) { try await pool.value(for: 1, operation: operation) }
        }
        try await waitUntil("the flight runs") { seenInside.withLock { $0 } != nil }
        #expect(pool.flightPriority(for: 1) == .low)
        #expect(seenInside.withLock { $0 } == .low)

        // When a high-priority asker joins, the flight rises
        let joiner = LivePriority(.high)
        let joinerAsk = Task {
            try await LivePriority.$current.withValue(joiner) { try await pool.value(for: 1, operation: operation) }
        }
        try await waitUntil("the joiner joined") { pool.joinCount == 1 }
        #expect(pool.flightPriority(for: 1) == .high)

        // and follows the joiner's changes
        joiner.value = .veryHigh
        #expect(pool.flightPriority(for: 1) == .veryHigh)

        // When the joiner leaves, the flight drops to the highest asker left
        joinerAsk.cancel()
        await #expect(throws: CancellationError.self) { try await joinerAsk.value }
        #expect(pool.flightPriority(for: 1) == .low)

        // and the first asker raising it raises the flight again
        first.value = .normal
        #expect(pool.flightPriority(for: 1) == .normal)
        gate.open()
        #expect(try await firstAsk.value == "done")
        #expect(pool.flightPriority(for: 1) == nil)
    }

    @Test func aRaisedFlightMovesItsWaitInALimiter() async throws {
        // Given a limiter held by other work, and a low flight waiting in it behind a normal waiter
        let limiter = WorkLimiter(limit: 1)
        let gate = Gate()
        let holder = Task { try await limiter.run(priority: .normal) { await gate.wait() } }
        try await waitUntil("the slot is held") { limiter.peakConcurrency == 1 }
        let order = Order()
        let other = Task { try await limiter.run(priority: .normal) { order.append("other") } }
        try await waitUntil("other queued") { limiter.waitingCount == 1 }
        let pool = RequestPool<Int, String>()
        let operation: @Sendable (@escaping @Sendable (FetchProgress) -> Void) async throws -> String = { _ in
            try await limiter.run {
                order.append("flight")
                return "done"
            }
        }
        let low = Task {
            try await LivePriority.$current.withValue(LivePriority(.low)) {
                try await pool.value(for: 7, operation: operation)
            }
        }
        try await waitUntil("the flight queued") { limiter.waitingCount == 2 }

        // When a high asker joins the flight
        let high = Task {
            try await LivePriority.$current.withValue(LivePriority(.high)) {
                try await pool.value(for: 7, operation: operation)
            }
        }
        try await waitUntil("the high asker joined") { pool.joinCount == 1 }
        gate.open()
        try await holder.value

        // Then the flight's wait moved ahead of the normal waiter
        #expect(try await low.value == "done")
        #expect(try await high.value == "done")
        try await other.value
        #expect(order.value == ["flight", "other"])
    }

    @Test func theWaiterQueueKeepsItsOrderUnderRandomChanges() {
        var generator = SeededGenerator(seed: 21)
        var queue = WaiterQueue<UInt64>()
        var reference: [UInt64: Int] = [:]
        var nextID: UInt64 = 0
        for _ in 0..<5_000 {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0, 1:
                nextID += 1
                let level = Int.random(in: 0..<5, using: &generator)
                queue.insert(nextID, id: nextID, level: level)
                reference[nextID] = level
            case 2:
                let expected = reference.min { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                #expect(queue.popFirst() == expected?.key)
                if let expected { reference[expected.key] = nil }
            default:
                guard let id = reference.keys.randomElement(using: &generator) else { continue }
                if Bool.random(using: &generator) {
                    #expect(queue.remove(id) == id)
                    reference[id] = nil
                } else {
                    let level = Int.random(in: 0..<5, using: &generator)
                    queue.move(id, to: level)
                    reference[id] = level
                }
            }
            #expect(queue.checkInvariants())
            #expect(queue.count == reference.count)
        }
    }
}
