import Foundation
import Testing

@testable import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Serving resources")
struct ServingTests {
    @Test("A full GET returns the bytes with content type, validators and cache control")
    func fullGet() async throws {
        // Given
        let body = OriginTestSupport.payload(count: 10_000)
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        let origin = SampleOrigin()
        origin.register(
            "/cat.png", data: body, contentType: "image/png", cacheControl: "max-age=60",
            lastModified: modified)
        try origin.start()
        defer { origin.stop() }
        let session = OriginTestSupport.makeSession()
        defer { session.invalidateAndCancel() }

        // When
        let (data, response) = try await session.fetch(origin.url(for: "/cat.png"))

        // Then
        #expect(response.statusCode == 200)
        let bodyMatches = data == body
        #expect(bodyMatches, "the registered bytes")
        #expect(response.header("Content-Type") == "image/png")
        #expect(response.header("Content-Length") == "10000")
        #expect(response.header("ETag") == origin.etag(for: "/cat.png"))
        #expect(response.header("Last-Modified") == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(response.header("Cache-Control") == "max-age=60")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(origin.etag(for: "/cat.png")?.hasPrefix("\"") == true)
    }

    @Test("HEAD answers the headers of GET without a body")
    func head() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(
            ["/clip.mp4": OriginTestSupport.payload(count: 4096)])
        defer { OriginTestSupport.close(origin, session) }

        // When
        let (data, response) = try await session.fetch(origin.url(for: "/clip.mp4"), method: "HEAD")

        // Then
        #expect(response.statusCode == 200)
        #expect(data.isEmpty)
        #expect(response.header("Content-Length") == "4096")
        try await origin.waitForFinishedRequests(path: "/clip.mp4", count: 1)
        let record = try #require(origin.requests(for: "/clip.mp4").first)
        #expect(record.method == "HEAD")
        #expect(record.bodyBytesSent == 0)
    }

    @Test("An unknown path is 404")
    func unknownPath() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession()
        defer { OriginTestSupport.close(origin, session) }

        // When
        let (_, response) = try await session.fetch(origin.url(for: "/missing.png"))

        // Then
        try await origin.waitForFinishedRequests(path: "/missing.png", count: 1)
        #expect(response.statusCode == 404)
        #expect(origin.requests(for: "/missing.png").map(\.status) == [404])
    }

    @Test("A query is ignored when only the bare path is registered, and unregister makes a path 404")
    func queryAndUnregister() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/avatar.png": Data("avatar".utf8)])
        defer { OriginTestSupport.close(origin, session) }

        // When
        let (data, response) = try await session.fetch(origin.url(for: "/avatar.png?token=abc"))
        origin.unregister("/avatar.png")
        let (_, afterRemoval) = try await session.fetch(origin.url(for: "/avatar.png"))

        // Then
        #expect(response.statusCode == 200)
        #expect(data == Data("avatar".utf8))
        #expect(origin.requests(for: "/avatar.png").first?.target == "/avatar.png?token=abc")
        #expect(afterRemoval.statusCode == 404)
    }

    @Test("Sequential requests of one session share one keep-alive connection")
    func keepAliveWithURLSession() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(
            ["/a": Data("a".utf8), "/b": Data("bb".utf8)])
        defer { OriginTestSupport.close(origin, session) }

        // When
        for path in ["/a", "/b", "/a"] {
            let (_, response) = try await session.fetch(origin.url(for: path))
            #expect(response.statusCode == 200)
        }

        // Then
        let connections = Set((origin.requests(for: "/a") + origin.requests(for: "/b")).map(\.connectionID))
        #expect(connections.count == 1)
        #expect(origin.acceptedConnectionCount == 1)
    }

    @Test("Pipelined requests on one socket are answered in order; Connection: close ends the connection")
    func keepAliveOnRawSocket() throws {
        // Given
        let origin = try OriginTestSupport.startedOrigin(["/one": Data("1".utf8), "/two": Data("22".utf8)])
        defer { origin.stop() }
        let connection = try RawHTTPConnection(port: origin.port)

        // When
        connection.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try connection.readResponse()
        let second = try connection.readResponse()
        connection.send("GET /one HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let third = try connection.readResponse()

        // Then
        #expect(first.body == Data("1".utf8))
        #expect(second.body == Data("22".utf8))
        #expect(first.headers["connection"] == "keep-alive")
        #expect(third.headers["connection"] == "close")
        #expect(connection.isClosedByServer())
        #expect(origin.acceptedConnectionCount == 1)
    }

    @Test("A 64 MiB body streams out whole")
    func largeBody() throws {
        // Given
        let size = 64 << 20
        let origin = try OriginTestSupport.startedOrigin(["/big.bin": Data(count: size)])
        defer { origin.stop() }
        let connection = try RawHTTPConnection(port: origin.port)

        // When
        connection.send("GET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let head = try connection.readResponse(expectBody: false)
        let received = connection.countBytesUntilClosed()

        // Then
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "\(size)")
        #expect(received == size)
    }
}
