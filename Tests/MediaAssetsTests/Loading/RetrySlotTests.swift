import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@Suite("Retries wait outside the download slots")
struct RetrySlotTests {
    /// Waits as long as `Retry-After` asks (the test cancels the waits; nothing sleeps for them).
    static let patientRetries = RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 600)

    @Test func healthyDownloadsFinishWhileEightOthersWaitOutRetryAfter() async throws {
        // Given 8 download slots, all taken by downloads that got a 503 asking them to come back in 10 minutes
        let environment = try OriginEnvironment(retryPolicy: Self.patientRetries)
        defer { environment.tearDown() }
        let busy = environment.serve(
            "/busy", testBytes(count: 1_000),
            behavior: .init(failNext: 8, failStatus: 503, retryAfter: 600))
        let healthy = environment.serve("/healthy", testBytes(count: 20_000, seed: 2))
        let manager = environment.manager
        #expect(manager.runtime.fetchLimiter.limit == 8)
        let waiting = (0..<8).map { index in
            Task { try await manager.data(for: AssetRequest(url: busy, version: "busy-\(index)")) }
        }
        try await environment.origin.waitForFinishedRequests(path: "/busy", count: 8)
        try await waitUntil("the 8 wait out Retry-After") { manager.fetchStatistics.retries == 8 }

        // When 12 other downloads start
        let finished = SharedCount()
        let others = (0..<12).map { index in
            Task {
                let data = try await manager.data(for: AssetRequest(url: healthy, version: "healthy-\(index)"))
                finished.add()
                return data
            }
        }

        // Then every one finishes while the 8 still wait (before the change they queued behind the waits)
        try await waitUntil("the healthy downloads finish", timeout: .seconds(60)) { finished.value == 12 }
        for other in others { #expect(try await other.value == testBytes(count: 20_000, seed: 2)) }
        #expect(environment.origin.requests(for: "/healthy").map(\.status) == Array(repeating: 200, count: 12))
        #expect(environment.origin.requestCount(for: "/busy") == 8, "no retry has been sent yet")
        #expect(manager.runtime.fetchLimiter.peakConcurrency <= 8)

        // And the waiting retries end when their asks are cancelled, without another request
        for task in waiting { task.cancel() }
        for task in waiting { await #expect(throws: CancellationError.self) { try await task.value } }
        #expect(environment.origin.requestCount(for: "/busy") == 8)
        #expect(manager.fetchStatistics.originRequests == 20)
    }

    @Test func aRetryQueuesAgainAtItsAsksLivePriority() async throws {
        // Given one download slot, held by a low-priority download whose answer will be a 503 "retry at once"
        let environment = try OriginEnvironment(retryPolicy: Self.patientRetries, stageLimits: .init(fetches: 1))
        defer { environment.tearDown() }
        let origin = environment.origin
        let flaky = environment.serve(
            "/flaky", testBytes(count: 1_000),
            behavior: .init(failNext: 1, failStatus: 503, retryAfter: 0, gated: true))
        let second = environment.serve("/second", testBytes(count: 1_000, seed: 2), behavior: .init(gated: true))
        let third = environment.serve("/third", testBytes(count: 1_000, seed: 3))
        let manager = environment.manager
        let lowThenHigh = LivePriority(.low)
        let retried = Task {
            try await LivePriority.$current.withValue(lowThenHigh) {
                try await manager.data(for: AssetRequest(url: flaky))
            }
        }
        try await origin.waitForInFlight(path: "/flaky", count: 1)
        let waitedFirst = Task { try await manager.data(for: AssetRequest(url: second)) }
        try await waitUntil("the second download queues") { manager.runtime.fetchLimiter.waitingCount == 1 }

        // When the 503 arrives
        origin.release("/flaky")

        // Then the slot goes to the download that was waiting, and the retry queues behind it
        try await origin.waitForInFlight(path: "/second", count: 1, timeout: .seconds(60))
        try await waitUntil("the retry queues") { manager.runtime.fetchLimiter.waitingCount == 1 }
        #expect(origin.requestCount(for: "/flaky") == 1)

        // When a normal download queues too, and the retry's ask is raised to high
        let queuedLater = Task { try await manager.data(for: AssetRequest(url: third)) }
        try await waitUntil("the third download queues") { manager.runtime.fetchLimiter.waitingCount == 2 }
        lowThenHigh.value = .high
        origin.release("/second")

        // Then the retry, now high, takes the slot before the normal download that queued before it rose
        try await origin.waitForInFlight(path: "/flaky", count: 1)
        #expect(origin.requestCount(for: "/third") == 0)
        origin.setBehavior("/flaky", .normal)
        #expect(try await retried.value == testBytes(count: 1_000))
        #expect(try await waitedFirst.value == testBytes(count: 1_000, seed: 2))
        #expect(try await queuedLater.value == testBytes(count: 1_000, seed: 3))
        #expect(origin.requests(for: "/flaky").map(\.status) == [503, 200])
        #expect(manager.runtime.fetchLimiter.peakConcurrency == 1)
    }
}
