import Foundation
import MediaAssetsHTTPServer
import Testing

@testable import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Byte ranges")
struct RangeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var header: String
        var expectedStatus: Int
        var expectedBytes: Range<Int>?
        var expectedContentRange: String?
        var testDescription: String { header }
    }

    static let cases: [Case] = [
        Case(
            header: "bytes=10-19", expectedStatus: 206, expectedBytes: 10..<20,
            expectedContentRange: "bytes 10-19/100"),
        Case(
            header: "bytes=90-", expectedStatus: 206, expectedBytes: 90..<100,
            expectedContentRange: "bytes 90-99/100"),
        Case(header: "bytes=-5", expectedStatus: 206, expectedBytes: 95..<100, expectedContentRange: "bytes 95-99/100"),
        Case(
            header: "bytes=95-500", expectedStatus: 206, expectedBytes: 95..<100,
            expectedContentRange: "bytes 95-99/100"),
        Case(header: "bytes=100-", expectedStatus: 416, expectedBytes: nil, expectedContentRange: "bytes */100"),
        Case(header: "bytes=0-1,5-6", expectedStatus: 200, expectedBytes: 0..<100, expectedContentRange: nil),
    ]

    @Test("Each Range form over URLSession", arguments: cases)
    func rangeForms(_ testCase: Case) async throws {
        // Given
        let body = OriginTestSupport.payload(count: 100)
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(["/video.mp4": body])
        defer { OriginTestSupport.close(origin, session) }

        // When
        let (data, response) = try await session.fetch(
            origin.url(for: "/video.mp4"),
            headers: ["Range": testCase.header])

        // Then
        #expect(response.statusCode == testCase.expectedStatus)
        #expect(response.header("Content-Range") == testCase.expectedContentRange)
        if let bytes = testCase.expectedBytes {
            let bytesMatch = data == body.subdata(in: bytes)
            #expect(bytesMatch, "body is bytes \(bytes)")
        }
        #expect(origin.requests(for: "/video.mp4").first?.headers["range"] == testCase.header)
    }

    @Test(
        "Resolving Range headers, including hostile ones",
        arguments: [
            ("bytes=0-0", 10, HTTPRangeRequest.partial(0..<1)),
            ("bytes=-0", 10, .unsatisfiable),
            ("bytes=-50", 10, .partial(0..<10)),
            ("bytes=5-2", 10, .whole),
            ("items=0-1", 10, .whole),
            ("bytes=abc", 10, .whole),
            ("bytes=99999999999999999999999-", 10, .unsatisfiable),
            ("bytes=0-99999999999999999999999", 10, .partial(0..<10)),
            ("bytes=0-", 0, .unsatisfiable),
        ])
    func resolving(header: String, length: Int, expected: HTTPRangeRequest) {
        // Given a header and a length / When resolved / Then
        #expect(HTTPRangeRequest(header: header, length: length) == expected)
    }
}
