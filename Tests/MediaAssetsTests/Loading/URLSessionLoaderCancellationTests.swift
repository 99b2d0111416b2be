import Foundation
import MediaAssets
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
        let loader = URLSessionLoader()
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
}
