import Foundation
import MediaAssets
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A load cancelled at any moment (before its data task starts, while it starts, or during the transfer)
/// returns: the data task is cancelled and the session reports its end.
@Suite struct URLSessionLoaderCancellationTests {
    @Test func aLoadCancelledAsItStartsAlwaysReturns() async throws {
        // Given an origin that holds every request at a gate, so only a cancellation ends a load
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/held.bin", Data(count: 1_024), behavior: .init(gated: true))
        let loader = URLSessionLoader.forTesting(maxResponseSize: 256 << 20)
        let rounds = 300
        let returned = SharedCount()

        // When each load is cancelled as soon as its task is created
        for round in 0..<rounds {
            let load = Task {
                _ = try? await loader.load(URLRequest(url: url), progress: nil)
                returned.add()
            }
            if round.isMultiple(of: 3) { await Task.yield() }
            load.cancel()
        }

        // Then every load returns while the gate is still closed
        try await waitUntil("every cancelled load to return (\(returned.value) of \(rounds))") {
            returned.value == rounds
        }
    }

    @Test func aLoadCancelledFromItsOwnProgressHandlerEndsAndTheSessionGoesOn() async throws {
        // Given bodies that stall after 256 KiB until the client hangs up (only a cancellation ends them),
        // loaded through the shared test session
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve(
            "/stall.bin", testBytes(count: 1 << 20), behavior: .init(stallAfterBodyBytes: 256 << 10))
        let loader = URLSessionLoader.forTesting(maxResponseSize: 256 << 20)
        let ended = SharedCount()

        // When each of 8 loads cancels itself from its first progress report (on the session's delegate queue)
        var loads: [Task<Void, Error>] = []
        for _ in 0..<8 {
            let handle = TaskHandle()
            let task = Task<Void, Error> {
                defer { ended.add() }
                _ = try await loader.load(URLRequest(url: url)) { _ in handle.cancel() }
            }
            handle.set(task)
            loads.append(task)
        }

        // Then every load ends (a deadlock would keep them, and the session, stuck), each with an error
        try await waitUntil("the 8 loads end (\(ended.value) so far)") { ended.value == 8 }
        for load in loads { await #expect(throws: (any Error).self) { try await load.value } }
        // And the session still serves a whole body
        let small = environment.serve("/small.bin", Data(count: 10))
        #expect(try await loader.load(URLRequest(url: small), progress: nil).data.count == 10)
    }
}

/// A task, cancelled from any thread: at once if it is set, else as soon as it is.
private final class TaskHandle: Sendable {
    private let state = Mutex<(task: Task<Void, Error>?, isCancelled: Bool)>((nil, false))

    func set(_ task: Task<Void, Error>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.isCancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.isCancelled = true
            return state.task
        }
        task?.cancel()
    }
}
