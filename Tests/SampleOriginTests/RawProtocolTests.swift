import Foundation
import SampleOrigin
import Testing

@Suite("Robust request parsing")
struct RawProtocolTests {
    struct BadRequest: Sendable, CustomTestStringConvertible {
        var raw: String
        var expectedStatus: Int
        var testDescription: String { raw.prefix(40).debugDescription }
    }

    static let badRequests: [BadRequest] = [
        BadRequest(raw: "GARBAGE\r\n\r\n", expectedStatus: 400),
        BadRequest(raw: "GET\r\n\r\n", expectedStatus: 400),
        BadRequest(raw: "GET /a HTTP/1.1\r\nNoColonHere\r\n\r\n", expectedStatus: 400),
        BadRequest(raw: "GET /a HTTP/1.1\r\n folded: header\r\n\r\n", expectedStatus: 400),
        BadRequest(raw: "GET /a HTTP/1.1\r\nContent-Length: -4\r\n\r\n", expectedStatus: 400),
        BadRequest(raw: "GET /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", expectedStatus: 400),
        BadRequest(raw: "GET /a HTTP/2.0\r\n\r\n", expectedStatus: 505),
        BadRequest(
            raw: "GET /a HTTP/1.1\r\nX-Big: " + String(repeating: "x", count: 70_000) + "\r\n\r\n",
            expectedStatus: 431),
        BadRequest(raw: "\u{00}\u{01}\u{FF}\u{7F} \u{0} \u{0}\r\n\r\n", expectedStatus: 400),
    ]

    @Test(
        "A malformed request gets an error status, the connection closes, and the origin keeps serving",
        arguments: badRequests)
    func malformedRequest(_ bad: BadRequest) throws {
        // Given
        let origin = try OriginTestSupport.startedOrigin(["/a": Data("fine".utf8)])
        defer { origin.stop() }
        let connection = try RawHTTPConnection(port: origin.port)

        // When
        connection.send(bad.raw)
        let response = try connection.readResponse()
        let healthy = try RawHTTPConnection(port: origin.port)
        healthy.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let after = try healthy.readResponse()

        // Then
        #expect(response.status == bad.expectedStatus)
        #expect(connection.isClosedByServer())
        #expect(after.status == 200)
        #expect(after.body == Data("fine".utf8))
        #expect(origin.rejectedRequestCount == 1)
    }

    @Test("Other methods get 405 with Allow, and a small request body is skipped")
    func otherMethods() throws {
        // Given
        let origin = try OriginTestSupport.startedOrigin(["/a": Data("fine".utf8)])
        defer { origin.stop() }
        let connection = try RawHTTPConnection(port: origin.port)

        // When
        connection.send(
            "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let post = try connection.readResponse()
        let get = try connection.readResponse()

        // Then
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        #expect(get.status == 200)
        #expect(origin.requests(for: "/a").map(\.method) == ["POST", "GET"])
    }

    @Test("HTTP/1.0 closes after the answer unless it asks for keep-alive; absolute-form targets work")
    func http10AndAbsoluteForm() throws {
        // Given
        let origin = try OriginTestSupport.startedOrigin(["/a": Data("fine".utf8)])
        defer { origin.stop() }
        let connection = try RawHTTPConnection(port: origin.port)

        // When
        connection.send("GET http://127.0.0.1/a HTTP/1.0\r\n\r\n")
        let response = try connection.readResponse()

        // Then
        #expect(response.status == 200)
        #expect(response.body == Data("fine".utf8))
        #expect(connection.isClosedByServer())
    }

    @Test("A client hanging up mid-body does not kill the process (no SIGPIPE)")
    func hangUpMidBody() async throws {
        // Given
        let origin = try OriginTestSupport.startedOrigin(["/big": Data(count: 32 << 20)])
        defer { origin.stop() }

        // When
        do {
            let connection = try RawHTTPConnection(port: origin.port)
            connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try connection.readResponse(expectBody: false)
        }
        try await origin.waitForFinishedRequests(path: "/big", count: 1)

        // Then
        let record = try #require(origin.requests(for: "/big").first)
        #expect(record.clientClosedEarly)
        let healthy = try RawHTTPConnection(port: origin.port)
        healthy.send("HEAD /big HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try healthy.readResponse(expectBody: false).status == 200)
    }
}
