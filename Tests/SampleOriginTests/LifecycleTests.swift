import Foundation
import SampleOrigin
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Start and stop")
struct LifecycleTests {
    @Test("stop closes every connection, joins every thread and refuses connections; a second cycle works")
    func stopLeavesNothingRunning() async throws {
        // Given
        let origin = try OriginTestSupport.startedOrigin(["/a": Data("a".utf8)])
        let session = OriginTestSupport.makeSession()
        defer { session.invalidateAndCancel() }
        _ = try await session.fetch(origin.url(for: "/a"))
        let idle = try RawHTTPConnection(port: origin.port)
        try await waitUntil("two connections open") { origin.activeConnectionCount == 2 }
        let firstPort = origin.port

        // When
        origin.stop()

        // Then
        #expect(origin.runningThreadCount == 0)
        #expect(origin.activeConnectionCount == 0)
        #expect(origin.port == 0)
        #expect(idle.isClosedByServer())
        #expect(!RawHTTPConnection.canConnect(port: firstPort))

        // And when started again
        try origin.start()
        let (data, response) = try await OriginTestSupport.makeSession().fetch(origin.url(for: "/a"))
        origin.stop()
        #expect(response.statusCode == 200)
        #expect(data == Data("a".utf8))
        #expect(origin.runningThreadCount == 0)
        #expect(origin.activeConnectionCount == 0)
    }

    @Test(
        "stop ends a request held at a gate or behind latency at once, without a response",
        arguments: zip(["/gated", "/late"], [SampleOrigin.Behavior(gated: true), .init(latency: .seconds(600))]))
    func stopEndsAHeldRequest(path: String, behavior: SampleOrigin.Behavior) async throws {
        // Given a request the origin holds back
        let origin = try OriginTestSupport.startedOrigin([path: Data("x".utf8)])
        origin.setBehavior(path, behavior)
        let session = OriginTestSupport.makeSession()
        defer { session.invalidateAndCancel() }
        let request = Task { try await session.fetch(origin.url(for: path)) }
        try await origin.waitForInFlight(path: path, count: 1)

        // When
        origin.stop()

        // Then
        let result = await request.result
        #expect(throws: (any Error).self) { try result.get() }
        let record = try #require(origin.requests(for: path).first)
        #expect(record.isFinished)
        #expect(record.status == nil)
        #expect(origin.runningThreadCount == 0)
    }

    @Test("start on a running origin throws alreadyRunning; stop on a stopped one does nothing")
    func startTwice() throws {
        // Given
        let origin = SampleOrigin()
        origin.stop()
        try origin.start()
        defer { origin.stop() }

        // When / Then
        #expect(throws: SampleOriginError.alreadyRunning(port: origin.port)) { try origin.start() }
        #expect(origin.baseURL.absoluteString == "http://127.0.0.1:\(origin.port)")
        #expect(origin.url(for: "a b.png").absoluteString == "http://127.0.0.1:\(origin.port)/a%20b.png")
    }
}
