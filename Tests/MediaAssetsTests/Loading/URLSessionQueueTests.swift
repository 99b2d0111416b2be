import Foundation
import MediaAssets
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// On Linux every URLSession of a process works on one serial queue, and a data task's creation, `resume()` and
/// `cancel()` wait for it. The loader makes those calls off the cooperative pool (as wide as the cores): while that
/// queue is busy, requests that start must not hold every thread of the pool, and with it every task of the process.
///
/// The test holds that process-wide queue, so it runs only when asked for alone: beside the suite, any other test
/// that calls URLSession from the pool (a player reading through the proxy) would block there too, and stall.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["MEDIAASSETS_HOLD_URLSESSION_QUEUE"] == "1",
        "holds every URLSession of the process; run it alone with MEDIAASSETS_HOLD_URLSESSION_QUEUE=1"))
struct URLSessionQueueTests {
    @Test func loadsStartedWhileURLSessionsQueueIsBusyLeaveThePoolFree() async throws {
        // Given an origin and a loader, and URLSession's shared queue held by a request whose protocol blocks it
        // (30 s at most)
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/small.bin", Data(count: 10))
        let loader = URLSessionLoader.forTesting(maxResponseSize: 1 << 20)
        let hold = HeldQueueProtocol.hold
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [HeldQueueProtocol.self]
        // Without a cache: a session with one asks it on a background-QoS dispatch queue before the protocol starts.
        configuration.urlCache = nil
        let holdingSession = URLSession(configuration: configuration)
        defer { holdingSession.invalidateAndCancel() }
        holdingSession.dataTask(with: try #require(URL(string: "held-queue://session"))).resume()
        try await waitUntil("URLSession's queue is held") { hold.isHeld }

        // When more loads than the pool has threads start
        let loads = (0..<(2 * ProcessInfo.processInfo.activeProcessorCount + 2)).map { _ in
            Task { try await loader.load(URLRequest(url: url), progress: nil).data.count }
        }

        // Then a task started after them runs while the queue is still held (before, it ran only once the hold
        // gave up: every thread of the pool waited for URLSession's queue)
        let ranWhileHeld = await Task { hold.isHeld }.value
        hold.release()
        #expect(ranWhileHeld)
        // And every load is answered once the queue is free
        for load in loads { #expect(try await load.value == 10) }
    }
}

/// Blocks the thread it is called on, URLSession's queue here, until released or for 30 s at most.
final class QueueHold: Sendable {
    private let state = Mutex((isBlocking: false, hasEnded: false))
    private let released = DispatchSemaphore(value: 0)

    /// Whether a caller is blocked in ``block()`` now.
    var isHeld: Bool { state.withLock { $0.isBlocking && !$0.hasEnded } }

    func block() {
        state.withLock { $0.isBlocking = true }
        _ = released.wait(timeout: .now() + 30)
        state.withLock { $0.hasEnded = true }
    }

    func release() { released.signal() }
}

/// A protocol for `held-queue:` URLs whose `startLoading()`, which URLSession calls on its shared queue, blocks there.
private final class HeldQueueProtocol: URLProtocol {
    static let hold = QueueHold()

    override class func canInit(with request: URLRequest) -> Bool { request.url?.scheme == "held-queue" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        Self.hold.block()
        client?.urlProtocol(self, didFailWithError: URLError(.cancelled))
    }

    override func stopLoading() {}
}
