import MediaAssets
import TestSupport
import Testing

/// An ask cancelled at any moment — before, while or after it joins or starts a flight — returns, and a flight
/// every ask has left is cancelled.
@Suite struct RequestPoolCancellationTests {
    /// Asks cancelled from another thread as they start race the pool's bookkeeping. The operation ends only
    /// when cancelled, so an ask whose cancellation was lost (its flight never left) would never return.
    @Test func anAskCancelledWhileItJoinsOrStartsAFlightAlwaysReturns() async throws {
        // Given asks for four keys whose operation runs until cancelled
        let pool = RequestPool<Int, Int>()
        let rounds = 4_000
        let returned = SharedCount()
        let operation: @Sendable (@escaping @Sendable (FetchProgress) -> Void) async throws -> Int = { _ in
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3_600)) }
            throw CancellationError()
        }

        // When each is cancelled as soon as it is created (two at a time, so asks join flights too)
        for round in 0..<rounds {
            let ask = Task {
                _ = try? await pool.value(for: round % 4, operation: operation)
                returned.add()
            }
            if round.isMultiple(of: 2) { await Task.yield() }
            ask.cancel()
        }

        // Then every ask returns and no flight is left running
        try await waitUntil("every cancelled ask to return (\(returned.value) of \(rounds))") {
            returned.value == rounds
        }
        try await waitUntil("every flight to end") { pool.inFlightCount == 0 }
    }
}
