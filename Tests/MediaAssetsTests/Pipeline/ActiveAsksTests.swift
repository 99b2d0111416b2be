import Foundation
import MediaAssets
import SampleOrigin
import Synchronization
import TestSupport
import Testing

@Suite("Active asks: a pipeline lets `activeAsks` misses in at once, the rest wait outside by live priority")
struct ActiveAsksTests {
    @Test("with activeAsks 3, three misses download while the others wait outside the pipeline; all finish")
    func asksBeyondTheLimitWaitOutside() async throws {
        // Given ten gated texts and a pipeline that admits three asks at once (downloads allow eight)
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let urls = (0..<10).map {
            environment.serve("/text-\($0).txt", Data("t\($0)".utf8), behavior: .init(gated: true))
        }
        let pipeline = AssetPipeline(
            manager: environment.manager, decoder: TextDecoder(), configuration: .init(activeAsks: 3))

        // When ten asks come at once
        let asks = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for url in urls {
                    group.addTask {
                        try await pipeline.value(for: AssetRequest(url: url), options: .init(), storageType: .disk)
                            .value
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await waitUntil("three admitted, seven waiting") { pipeline.waitingAskCount == 7 }
        try await waitUntil("three downloads reached the origin") {
            (0..<10).reduce(0) { $0 + environment.origin.inFlight(for: "/text-\($1).txt") } == 3
        }

        // Then only the admitted three reached the origin; releasing the gates lets every ask through
        #expect(environment.origin.totalRequestCount == 3)
        for index in 0..<10 { environment.origin.setBehavior("/text-\(index).txt", .normal) }
        for index in 0..<10 { environment.origin.release("/text-\(index).txt") }
        #expect(try await asks.value.sorted() == (0..<10).map { "t\($0)" })
        #expect(environment.origin.totalRequestCount == 10)
        #expect(pipeline.waitingAskCount == 0)
    }

    @Test("a waiting ask raised to high priority is admitted before earlier low ones; a cancelled one leaves")
    func waitingAsksFollowTheirLivePriority() async throws {
        // Given a pipeline that admits one ask, held by a gated download
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let blocker = environment.serve("/blocker.txt", Data("b".utf8), behavior: .init(gated: true))
        let pipeline = AssetPipeline(
            manager: environment.manager, decoder: TextDecoder(), configuration: .init(activeAsks: 1))
        let order = AdmissionOrder()
        func ask(_ name: String, _ priority: LivePriority) -> Task<Void, any Error> {
            let url = environment.serve("/\(name).txt", Data(name.utf8))
            return Task { [order] in
                _ = try await pipeline.value(
                    for: AssetRequest(url: url), options: .init(), storageType: .disk, priority: priority)
                order.names.withLock { $0.append(name) }
            }
        }
        let first = Task {
            try await pipeline.value(for: AssetRequest(url: blocker), options: .init(), storageType: .disk)
        }
        try await environment.origin.waitForInFlight(path: "/blocker.txt", count: 1)

        // When two low asks and a cancelled one wait, and then the last low one is raised to high
        let lowA = ask("low-a", LivePriority(.low))
        try await waitUntil("low-a waits") { pipeline.waitingAskCount == 1 }
        let cancelled = ask("cancelled", LivePriority(.low))
        try await waitUntil("cancelled waits") { pipeline.waitingAskCount == 2 }
        let raisedPriority = LivePriority(.low)
        let raised = ask("raised", raisedPriority)
        try await waitUntil("raised waits") { pipeline.waitingAskCount == 3 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(pipeline.waitingAskCount == 2)
        raisedPriority.value = .high
        environment.origin.release("/blocker.txt")

        // Then the raised ask went first, the cancelled one never reached the origin
        _ = try await first.value
        try await raised.value
        try await lowA.value
        #expect(order.names.withLock { $0 } == ["raised", "low-a"])
        #expect(environment.origin.requestCount(for: "/cancelled.txt") == 0)
    }
}

extension ActiveAsksTests {
    @Test("an ask that waited outside finds in memory the variant the ask ahead of it made")
    func aWaitingAskFindsTheVariantInMemory() async throws {
        // Given a pipeline that admits one ask, and an ask making a variant from a gated download
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/made.txt", Data("made".utf8), behavior: .init(gated: true))
        let pipeline = AssetPipeline(
            manager: environment.manager, decoder: TextDecoder(), configuration: .init(activeAsks: 1))
        let request = AssetRequest(url: url)
        let first = Task {
            try await pipeline.value(
                for: request, processor: Uppercased(), options: .init(), storageType: .hybrid(.image))
        }
        try await environment.origin.waitForInFlight(path: "/made.txt", count: 1)

        // When a second ask for the same variant waits outside, and the first then finishes
        let second = Task {
            try await pipeline.value(
                for: request, processor: Uppercased(), options: .init(), storageType: .hybrid(.image))
        }
        try await waitUntil("the second ask waits outside") { pipeline.waitingAskCount == 1 }
        environment.origin.release("/made.txt")
        let made = try await first.value
        let found = try await second.value

        // Then the second was answered from memory: one download, one decode, one process
        #expect(made.source == .network && found.source == .memory && found.value == "MADE")
        #expect(pipeline.statistics.decodes == 1 && pipeline.statistics.processes == 1)
        #expect(environment.origin.requestCount(for: "/made.txt") == 1)
    }
}

/// The names of the asks, in the order they finished.
final class AdmissionOrder: Sendable {
    let names = Mutex<[String]>([])
}
