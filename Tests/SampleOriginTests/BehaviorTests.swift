import Foundation
import SampleOrigin
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Fault and timing injection")
struct BehaviorTests {
    @Test("failNext fails that many requests with the status and Retry-After, then serves again")
    func failNext() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/flaky": Data("ok".utf8)])
        defer { OriginTestSupport.close(origin, session) }
        origin.setBehavior("/flaky", .init(failNext: 2, failStatus: 503, retryAfter: 7))

        // When
        var responses: [HTTPURLResponse] = []
        for _ in 0..<3 { responses.append(try await session.fetch(origin.url(for: "/flaky")).1) }

        // Then
        #expect(responses.map(\.statusCode) == [503, 503, 200])
        #expect(responses[0].header("Retry-After") == "7")
        #expect(responses[2].header("Retry-After") == nil)
        #expect(origin.behavior(for: "/flaky").failNext == 0)
    }

    @Test("closeAfterBodyBytes cuts the body off: URLSession sees an error or a short body")
    func closeAfterBodyBytes() async throws {
        // Given
        let body = OriginTestSupport.payload(count: 100_000)
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/cut": body])
        defer { OriginTestSupport.close(origin, session) }
        origin.setBehavior("/cut", .init(closeAfterBodyBytes: 1000))

        // When
        let received = try? await session.fetch(origin.url(for: "/cut")).0

        // Then
        #expect(received.map { $0.count < body.count } ?? true)
        try await origin.waitForFinishedRequests(path: "/cut", count: 1)
        let record = try #require(origin.requests(for: "/cut").first)
        #expect(record.bodyBytesSent == 1000)
        #expect(!record.bodyCompleted)
        #expect(!record.clientClosedEarly)
    }

    @Test("contentLengthOffset declares a wrong length, sends the true body, then closes", arguments: [10, -10])
    func wrongContentLength(offset: Int) throws {
        // Given
        let body = OriginTestSupport.payload(count: 500)
        let origin = try OriginTestSupport.startedOrigin(["/liar": body])
        defer { origin.stop() }
        origin.setBehavior("/liar", .init(contentLengthOffset: offset))
        let connection = try RawHTTPConnection(port: origin.port)

        // When
        connection.send("GET /liar HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse(readToEnd: true)

        // Then
        #expect(response.headers["content-length"] == "\(500 + offset)")
        #expect(response.headers["connection"] == "close")
        let bodyMatches = response.body == body
        #expect(bodyMatches, "the true body is sent whatever the declared length")
    }

    @Test("A longer declared length makes URLSession fail or return fewer bytes than announced")
    func wrongContentLengthOverURLSession() async throws {
        // Given
        let body = OriginTestSupport.payload(count: 500)
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/liar": body])
        defer { OriginTestSupport.close(origin, session) }
        origin.setBehavior("/liar", .init(contentLengthOffset: 100))

        // When
        let result = try? await session.fetch(origin.url(for: "/liar"))

        // Then
        if let (data, response) = result {
            #expect(data.count != Int(response.header("Content-Length") ?? "") ?? -1)
        }
        try await origin.waitForFinishedRequests(path: "/liar", count: 1)
        #expect(origin.requests(for: "/liar").first?.bodyBytesSent == 500)
    }

    @Test("ignoreRange answers a Range request with 200 and the whole body")
    func ignoreRange() async throws {
        // Given
        let body = OriginTestSupport.payload(count: 300)
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/plain": body])
        defer { OriginTestSupport.close(origin, session) }
        origin.setBehavior("/plain", .init(ignoreRange: true))

        // When
        let (data, response) = try await session.fetch(origin.url(for: "/plain"), headers: ["Range": "bytes=0-9"])

        // Then
        #expect(response.statusCode == 200)
        let bodyMatches = data == body
        #expect(bodyMatches, "the whole body")
        #expect(response.header("Accept-Ranges") == nil)
    }

    @Test("replace serves the new bytes with a new ETag and a later Last-Modified")
    func replace() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/avatar": Data("old".utf8)])
        defer { OriginTestSupport.close(origin, session) }
        let oldETag = try #require(origin.etag(for: "/avatar"))
        let oldModified = try #require(origin.lastModified(for: "/avatar"))

        // When
        origin.replace("/avatar", data: Data("new".utf8))
        let (data, response) = try await session.fetch(origin.url(for: "/avatar"), headers: ["If-None-Match": oldETag])

        // Then
        #expect(response.statusCode == 200)
        #expect(data == Data("new".utf8))
        #expect(origin.etag(for: "/avatar") != oldETag)
        #expect(response.header("ETag") == origin.etag(for: "/avatar"))
        #expect(try #require(origin.lastModified(for: "/avatar")) > oldModified)
    }

    @Test("A throttled body cancelled by the client is logged as clientClosedEarly")
    func throttleAndCancel() async throws {
        // Given
        let body = OriginTestSupport.payload(count: 1 << 20)
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/slow": body])
        defer { OriginTestSupport.close(origin, session) }
        // The body stalls after 64 KiB, so it cannot end before the cancel however late the test's task runs.
        let throttle = SampleOrigin.Behavior.Throttle(pieceSize: 2 * 1024, delay: .milliseconds(50))
        origin.setBehavior("/slow", .init(stallAfterBodyBytes: 64 << 10, throttle: throttle))
        let task = session.dataTask(with: origin.url(for: "/slow")) { _, _, _ in }
        task.resume()
        try await origin.waitForInFlight(path: "/slow", count: 1)

        // When
        task.cancel()

        // Then
        try await origin.waitUntilClientClosed(path: "/slow")
        let record = try #require(origin.requests(for: "/slow").first)
        #expect(record.clientClosedEarly)
        #expect(!record.bodyCompleted)
        #expect(record.bodyBytesSent < body.count)
    }

    @Test("A stalled body sends its first bytes, then holds the rest until the client closes")
    func stallUntilTheClientCloses() async throws {
        // Given a body that stalls after 100,000 of its 256 KiB, and a client that has read those
        let body = OriginTestSupport.payload(count: 256 << 10)
        let origin = try OriginTestSupport.startedOrigin(["/stall": body])
        defer { origin.stop() }
        origin.setBehavior("/stall", .init(stallAfterBodyBytes: 100_000))
        var client: RawHTTPConnection? = try RawHTTPConnection(port: origin.port)
        client?.send("GET /stall HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let response = try #require(try client?.readResponse(firstBodyBytes: 100_000))
        #expect(response.status == 200 && response.headers["content-length"] == "\(body.count)")
        #expect(response.body == body.prefix(100_000))
        #expect(origin.inFlight(for: "/stall") == 1)

        // When the client hangs up
        client = nil

        // Then the origin logs it, with exactly the bytes before the stall sent
        try await origin.waitUntilClientClosed(path: "/stall")
        let record = try #require(origin.requests(for: "/stall").first)
        #expect(record.clientClosedEarly && !record.bodyCompleted)
        #expect(record.bodyBytesSent == 100_000)
    }

    @Test("stop ends a stalled body at once, and that is not logged as the client closing")
    func stallEndsAtStop() async throws {
        // Given a client holding a stalled body
        let origin = try OriginTestSupport.startedOrigin(["/stall": OriginTestSupport.payload(count: 256 << 10)])
        origin.setBehavior("/stall", .init(stallAfterBodyBytes: 0))
        let client = try RawHTTPConnection(port: origin.port)
        client.send("GET /stall HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try client.readResponse(firstBodyBytes: 0).status == 200)

        // When the origin stops
        origin.stop()

        // Then the request ends without the rest of its body, and every thread is joined
        let record = try #require(origin.requests(for: "/stall").first)
        #expect(record.isFinished && !record.bodyCompleted && !record.clientClosedEarly)
        #expect(record.bodyBytesSent == 0)
        #expect(origin.runningThreadCount == 0)
        #expect(client.isClosedByServer())
    }

    @Test("A gate holds requests until release; later requests wait again until the gate is removed")
    func gateAndRelease() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/gated": Data("done".utf8)])
        defer { OriginTestSupport.close(origin, session) }
        origin.setBehavior("/gated", .init(gated: true))
        let url = origin.url(for: "/gated")
        let firstWave = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<3 { group.addTask { try await session.fetch(url).1.statusCode } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await origin.waitForInFlight(path: "/gated", count: 3)
        #expect(origin.requests(for: "/gated").allSatisfy { $0.status == nil && !$0.isFinished })

        // When
        origin.release("/gated")
        let statuses = try await firstWave.value
        let late = Task { try await session.fetch(url).1.statusCode }
        try await origin.waitForInFlight(path: "/gated", count: 1)
        origin.setBehavior("/gated", .normal)

        // Then
        #expect(statuses == [200, 200, 200])
        #expect(try await late.value == 200)
        #expect(origin.requestCount(for: "/gated") == 4)
    }
}
