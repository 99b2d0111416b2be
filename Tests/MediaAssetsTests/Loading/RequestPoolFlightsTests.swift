import MediaAssets
import Synchronization
import TestSupport
import Testing

/// A gate the test opens: operations wait on it, counting how many started.
final class OperationGate: Sendable {
    private struct State {
        var started: [[Int]] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        var isOpen = false
    }

    private let state = Mutex(State())

    var started: [[Int]] { state.withLock { $0.started } }

    func pass(_ keys: [Int]) async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state -> Bool in
                state.started.append(keys)
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

private struct Boom: Error, Equatable {}

/// Collects the outcomes a `flights(for:…)` ask receives.
private final class OutcomeLog: Sendable {
    private let outcomes = Mutex<[Result<[Int: String], Error>]>([])
    var count: Int { outcomes.withLock { $0.count } }
    var values: [Int: String] {
        outcomes.withLock { $0.reduce(into: [:]) { $0.merge((try? $1.get()) ?? [:]) { first, _ in first } } }
    }
    var failures: Int { outcomes.withLock { $0.filter { (try? $0.get()) == nil }.count } }
    func record(_ outcome: Result<[Int: String], Error>) { outcomes.withLock { $0.append(outcome) } }
}

private func contiguousRuns(_ keys: [Int]) -> [[Int]] {
    keys.reduce(into: [[Int]]()) { runs, key in
        if let last = runs.last?.last, last + 1 == key {
            runs[runs.count - 1].append(key)
        } else {
            runs.append([key])
        }
    }
}

@Suite struct RequestPoolFlightsTests {
    @Test func overlappingAsksShareTheFlightsOfTheirCommonKeys() async throws {
        // Given a pool whose operations wait at a gate, and an ask for keys 1-4 under way
        let pool = RequestPool<Int, String>()
        let gate = OperationGate()
        let operation: @Sendable ([Int]) async throws -> [Int: String] = { keys in
            await gate.pass(keys)
            return Dictionary(uniqueKeysWithValues: keys.map { ($0, "v\($0)") })
        }
        let first = OutcomeLog()
        let firstTicket = pool.flights(
            for: [1, 2, 3, 4], grouping: contiguousRuns, deliver: first.record, operation: operation
        )

        // When a second ask wants keys 3-6
        let second = OutcomeLog()
        let secondTicket = pool.flights(
            for: [3, 4, 5, 6], grouping: contiguousRuns, deliver: second.record, operation: operation
        )
        try await waitUntil("both flights to start") { gate.started.count == 2 }
        gate.open()
        try await waitUntil("every outcome") { first.count == 1 && second.count == 2 }
        firstTicket.leave()
        secondTicket.leave()

        // Then it joined the flight of 1-4 and started one for 5-6 only: each key fetched once
        #expect(gate.started.sorted { $0[0] < $1[0] } == [[1, 2, 3, 4], [5, 6]])
        #expect(firstTicket.flightCount == 1 && secondTicket.flightCount == 2)
        #expect(second.values.filter { (3...6).contains($0.key) } == [3: "v3", 4: "v4", 5: "v5", 6: "v6"])
        #expect(pool.joinCount == 1)
        #expect(pool.inFlightCount == 0)
    }

    @Test func aFlightIsCancelledOnlyWhenEveryAskLeft() async throws {
        // Given two asks sharing one gated flight
        let pool = RequestPool<Int, String>()
        let gate = OperationGate()
        let cancelled = Mutex(false)
        let operation: @Sendable ([Int]) async throws -> [Int: String] = { keys in
            await gate.pass(keys)
            if Task.isCancelled { cancelled.withLock { $0 = true } }
            try Task.checkCancellation()
            return Dictionary(uniqueKeysWithValues: keys.map { ($0, "v\($0)") })
        }
        let first = OutcomeLog()
        let second = OutcomeLog()
        let leaving = pool.flights(for: [1, 2], grouping: contiguousRuns, deliver: first.record, operation: operation)
        let staying = pool.flights(for: [2], grouping: contiguousRuns, deliver: second.record, operation: operation)

        // When the first leaves and the gate opens
        leaving.leave()
        try await waitUntil("the flight to start") { gate.started.count == 1 }
        gate.open()
        try await waitUntil("the staying ask's outcome") { second.count == 1 }

        // Then the flight ran to completion for the one that stayed
        #expect(second.values[2] == "v2")
        #expect(!cancelled.withLock { $0 })
        #expect(first.count == 0)

        staying.leave()
        #expect(pool.inFlightCount == 0)
    }

    @Test func theLastAskLeavingCancelsTheFlight() async throws {
        // Given one ask waiting on a gated flight
        let pool = RequestPool<Int, String>()
        let gate = OperationGate()
        let cancelled = Mutex(false)
        let operation: @Sendable ([Int]) async throws -> [Int: String] = { keys in
            await gate.pass(keys)
            cancelled.withLock { $0 = Task.isCancelled }
            return [:]
        }
        let lone = pool.flights(for: [7], grouping: contiguousRuns, deliver: { _ in }, operation: operation)
        try await waitUntil("the flight to start") { gate.started.count == 1 }

        // When it leaves and the gate opens
        lone.leave()
        gate.open()

        // Then the flight's task saw the cancellation and its key is free at once
        try await waitUntil("the flight to see its cancellation") { cancelled.withLock { $0 } }
        #expect(pool.inFlightCount == 0)
    }

    @Test func aFailureReachesEveryAsk() async throws {
        // Given a gated flight that fails, with a single-key asker and a multi-key asker joined to it
        let pool = RequestPool<Int, String>()
        let gate = OperationGate()
        let operation: @Sendable ([Int]) async throws -> [Int: String] = { keys in
            await gate.pass(keys)
            throw Boom()
        }
        let multi = OutcomeLog()
        let ticket = pool.flights(
            for: [1, 2, 3], grouping: contiguousRuns, deliver: multi.record, operation: operation
        )
        let single = Task { try await pool.value(for: 2) { _ in "never" } }
        try await waitUntil("the single ask to join") { pool.joinCount == 1 }

        // When the gate opens
        gate.open()

        // Then both see the error
        await #expect(throws: Boom.self) { try await single.value }
        try await waitUntil("the multi-key outcome") { multi.count == 1 }
        #expect(multi.failures == 1)
        ticket.leave()
        #expect(gate.started == [[1, 2, 3]])
    }
}
