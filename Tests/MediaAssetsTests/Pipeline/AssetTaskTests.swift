import Foundation
import MediaAssets
import SampleOrigin
import TestSupport
import Testing

@Suite("AssetTask: the request carries an ask's priority, its handle changes it")
struct AssetTaskTests {
    @Test("a waiting task raised to high is admitted before an earlier low one; a cancelled one never fetches")
    func aRaisedTaskGoesFirst() async throws {
        // Given a pipeline that admits one ask, held by a gated download
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let blocker = environment.serve("/blocker.txt", Data("b".utf8), behavior: .init(gated: true))
        let pipeline = AssetPipeline(
            manager: environment.manager, decoder: TextDecoder(), configuration: .init(activeAsks: 1))
        let first = pipeline.task(for: AssetRequest(url: blocker), options: .init(), storageType: .disk)
        try await environment.origin.waitForInFlight(path: "/blocker.txt", count: 1)
        func task(_ name: String) -> AssetTask<String> {
            let url = environment.serve("/\(name).txt", Data(name.utf8))
            return pipeline.task(for: AssetRequest(url: url, priority: .low), options: .init(), storageType: .disk)
        }

        // When two low tasks and a cancelled one wait, and then the last low one is raised to high
        let lowA = task("low-a")
        try await waitUntil("low-a waits") { pipeline.waitingAskCount == 1 }
        let cancelled = task("cancelled")
        try await waitUntil("cancelled waits") { pipeline.waitingAskCount == 2 }
        let raised = task("raised")
        try await waitUntil("raised waits") { pipeline.waitingAskCount == 3 }
        #expect(raised.priority == .low)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(pipeline.waitingAskCount == 2)
        raised.priority = .high
        #expect(raised.priority == .high)
        environment.origin.release("/blocker.txt")

        // Then the raised task reached the origin first, and each task's value is its own text
        #expect(try await first.value == "b")
        #expect(try await raised.value == "raised")
        #expect(try await lowA.result.value == "low-a")
        let raisedAt = try #require(environment.origin.requests(for: "/raised.txt").first).sequenceNumber
        let lowAt = try #require(environment.origin.requests(for: "/low-a.txt").first).sequenceNumber
        #expect(raisedAt < lowAt)
        #expect(environment.origin.requestCount(for: "/cancelled.txt") == 0)
    }

    @Test("a task of a processed value shares the flight of a plain ask for it and returns the same value")
    func aProcessedTaskJoinsAnAsk() async throws {
        // Given a gated text and a plain ask for its upper-cased variant under way
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/shout.txt", Data("shout".utf8), behavior: .init(gated: true))
        let pipeline = AssetPipeline(manager: environment.manager, decoder: TextDecoder())
        let request = AssetRequest(url: url)
        let ask = Task {
            try await pipeline.value(for: request, processor: Uppercased(), options: .init(), storageType: .disk)
        }
        try await environment.origin.waitForInFlight(path: "/shout.txt", count: 1)

        // When a task asks for the same variant
        let task = pipeline.task(for: request, processor: Uppercased(), options: .init(), storageType: .disk)
        try await waitUntil("the task joined") { pipeline.statistics.joins == 1 }
        environment.origin.release("/shout.txt")

        // Then both get the processed value from one download
        #expect(try await task.value == "SHOUT")
        #expect(try await ask.value.value == "SHOUT")
        #expect(try await task.result.isJoined)
        #expect(environment.origin.requestCount(for: "/shout.txt") == 1)
    }
}
