import Foundation
import SampleOrigin
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Request log and counters")
struct RequestLogTests {
    @Test("Each request is recorded with method, target, lowercased headers, status and body outcome")
    func recordsRequests() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(
            ["/img": OriginTestSupport.payload(count: 2048)])
        defer { OriginTestSupport.close(origin, session) }

        // When
        _ = try await session.fetch(origin.url(for: "/img?size=2"), headers: ["X-Trace-ID": "abc"])
        _ = try await session.fetch(origin.url(for: "/img"), headers: ["Range": "bytes=0-99"])

        // Then
        try await origin.waitForFinishedRequests(path: "/img", count: 2)
        let records = origin.requests(for: "/img")
        #expect(records.count == 2)
        #expect(origin.requestCount(for: "/img") == 2)
        let first = try #require(records.first)
        #expect(first.method == "GET")
        #expect(first.path == "/img")
        #expect(first.target == "/img?size=2")
        #expect(first.headers["x-trace-id"] == "abc")
        #expect(first.headers["host"] != nil)
        #expect(first.status == 200)
        #expect(first.bodyBytesSent == 2048)
        #expect(first.bodyCompleted)
        #expect(!first.clientClosedEarly)
        #expect(try #require(first.endTime) >= first.startTime)
        #expect(records[1].status == 206)
        #expect(records[1].bodyBytesSent == 100)
        #expect(records[1].sequenceNumber > first.sequenceNumber)
    }

    @Test("resetLog empties the log and the peaks")
    func resetLog() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/a": Data("a".utf8)])
        defer { OriginTestSupport.close(origin, session) }
        _ = try await session.fetch(origin.url(for: "/a"))
        try await origin.waitForFinishedRequests(path: "/a", count: 1)

        // When
        origin.resetLog()

        // Then
        #expect(origin.requestCount(for: "/a") == 0)
        #expect(origin.totalRequestCount == 0)
        #expect(origin.peakInFlight == 0)
        #expect(origin.peakInFlight(for: "/a") == 0)
    }

    @Test("Peak in-flight counts requests running at the same time, per path and overall")
    func peakInFlight() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(
            ["/busy": Data("b".utf8), "/idle": Data("i".utf8)])
        defer { OriginTestSupport.close(origin, session) }
        origin.setBehavior("/busy", .init(gated: true))
        let url = origin.url(for: "/busy")

        // When
        let requests = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await session.fetch(url).1.statusCode } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await origin.waitForInFlight(path: "/busy", count: 4)
        origin.release("/busy")
        let statuses = try await requests.value
        try await origin.waitForFinishedRequests(path: "/busy", count: 4)
        _ = try await session.fetch(origin.url(for: "/idle"))

        // Then
        #expect(statuses == [200, 200, 200, 200])
        #expect(origin.peakInFlight(for: "/busy") == 4)
        #expect(origin.peakInFlight(for: "/idle") == 1)
        #expect(origin.peakInFlight == 4)
    }

    @Test("A wait helper throws a readable timeout instead of hanging")
    func waitTimesOut() async throws {
        // Given
        let origin = try OriginTestSupport.startedOrigin()
        defer { origin.stop() }

        // When / Then (the error names the bound it waited, scaled as sanitizer runs scale it)
        await #expect(
            throws: SampleOriginError.timedOut(
                condition: "1 requests", path: "/never",
                timeout: .milliseconds(20) * SampleOrigin.timeoutScale)
        ) {
            try await origin.waitForRequests(path: "/never", count: 1, timeout: .milliseconds(20))
        }
    }
}
