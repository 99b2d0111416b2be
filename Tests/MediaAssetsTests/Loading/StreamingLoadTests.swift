import Foundation
import MediaAssets
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `DataLoading.stream(_:)` and `AssetsManager.stream(_:)`: the head first, then the body as it arrives,
/// checked and counted like every fetch.
@Suite struct StreamingLoadTests {
    @Test func theFirstBytesArriveWhileTheRestOfTheBodyIsStalled() async throws {
        // Given an origin that sends 64 KiB of a 1 MiB body, then nothing until the client hangs up
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let body = testBytes(count: 1 << 20)
        let url = environment.serve("/stalled.bin", body, behavior: .init(stallAfterBodyBytes: 64 << 10))

        // When the body is read until those bytes are in
        let response = try await URLSessionLoader.forTesting(maxResponseSize: 256 << 20).stream(URLRequest(url: url))
        var received = Data()
        for try await piece in response.body {
            received.append(piece)
            if received.count >= 64 << 10 { break }
        }

        // Then the reader has exactly the bytes sent so far, and leaving the body cancelled the transfer
        #expect(response.head.statusCode == 200)
        #expect(response.head.contentLength == body.count)
        #expect(received == body.prefix(64 << 10))
        // (URLSession would give up on the stalled body after its 60 s idle timeout: the bound is below it.)
        try await environment.origin.waitUntilClientClosed(path: "/stalled.bin", timeout: .seconds(45))
    }

    @Test func theManagerCountsAndChecksAStreamedBody() async throws {
        // Given a 3 MiB resource
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let body = testBytes(count: 3 << 20)
        let url = environment.serve("/whole.bin", body)

        // When it is streamed through the manager
        let response = try await environment.manager.runtime.stream(URLRequest(url: url))
        let received = try await response.body.collect()

        // Then the body is whole and counted once
        #expect(received == body)
        let statistics = environment.manager.fetchStatistics
        #expect(statistics.originRequests == 1)
        #expect(statistics.bytesDownloaded == body.count)
    }

    @Test func aTransientStatusIsRetriedBeforeTheHeadIsHandedOn() async throws {
        // Given a resource whose first request fails with 503
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let body = testBytes(count: 10_000)
        let url = environment.serve("/flaky.bin", body, behavior: .init(failNext: 1, failStatus: 503))

        // When it is streamed
        let response = try await environment.manager.runtime.stream(URLRequest(url: url))

        // Then the caller sees only the second answer
        #expect(response.head.statusCode == 200)
        #expect(try await response.body.collect() == body)
        #expect(environment.manager.fetchStatistics.originRequests == 2)
        #expect(environment.manager.fetchStatistics.retries == 1)
    }

    @Test func aBodyShorterThanItsContentLengthFailsTheStream() async throws {
        // Given a server that declares 40 bytes more than it sends, then closes
        let environment = try OriginEnvironment()
        defer { environment.tearDown() }
        let url = environment.serve("/liar.bin", testBytes(count: 5_000), behavior: .init(contentLengthOffset: 40))

        // When it is streamed, then the body ends with a typed error, never quietly short
        let response = try await environment.manager.runtime.stream(URLRequest(url: url))
        await #expect(throws: AssetsError.self) { _ = try await response.body.collect() }
    }

    @Test func aResponseOverTheLimitIsRefusedByItsContentLength() async throws {
        // Given a manager that accepts at most 4 KiB and a 64 KiB resource
        let environment = try OriginEnvironment(maxResponseSize: 4_096)
        defer { environment.tearDown() }
        let url = environment.serve("/large.bin", testBytes(count: 64 << 10))

        // When it is streamed, then it is refused before any body byte is handed on
        await #expect(throws: AssetsError.responseTooLarge(url: url, limit: 4_096)) {
            _ = try await environment.manager.runtime.stream(URLRequest(url: url))
        }
    }

    @Test func aLoaderWithoutStreamingPassesTheWholeBodyAsOnePiece() async throws {
        // Given a loader that implements only load(_:progress:)
        let url = URL(string: "https://cdn.example.com/a.bin")!
        let body = testBytes(count: 2_000)
        let loader = FixedResponseLoader(
            DataResponse(url: url, statusCode: 200, headers: ["Content-Length": "2000"], data: body))

        // When it streams
        let response = try await loader.stream(URLRequest(url: url))
        var pieces: [Data] = []
        for try await piece in response.body { pieces.append(piece) }

        // Then the head and the one piece are its response's
        #expect(response.head.statusCode == 200)
        #expect(response.head.contentLength == 2_000)
        #expect(pieces == [body])
        #expect(loader.callCount == 1)
    }
}
