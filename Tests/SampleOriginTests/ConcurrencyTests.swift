import Foundation
import SampleOrigin
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Concurrent load")
struct ConcurrencyTests {
    @Test("200 concurrent URLSession requests all succeed")
    func twoHundredConcurrentRequests() async throws {
        // Given
        let bodies = (0..<10).map { OriginTestSupport.payload(count: 1000 + $0 * 997, seed: UInt8($0)) }
        var resources: [String: Data] = [:]
        for (index, body) in bodies.enumerated() { resources["/asset/\(index)"] = body }
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(resources)
        defer { OriginTestSupport.close(origin, session) }
        let urls = (0..<10).map { origin.url(for: "/asset/\($0)") }

        // When
        let matches = try await withThrowingTaskGroup(of: Bool.self) { group in
            for request in 0..<200 {
                group.addTask {
                    let (data, response) = try await session.fetch(urls[request % 10])
                    return response.statusCode == 200 && data == bodies[request % 10]
                }
            }
            return try await group.reduce(into: 0) { count, matched in count += matched ? 1 : 0 }
        }

        // Then
        #expect(matches == 200)
        #expect(origin.totalRequestCount == 200)
    }

    @Test("Behaviours can change while requests run")
    func behaviourChangesUnderLoad() async throws {
        // Given
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(
            ["/x": OriginTestSupport.payload(count: 5000)])
        defer { OriginTestSupport.close(origin, session) }
        let url = origin.url(for: "/x")

        // When
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for request in 0..<60 {
                group.addTask { try await session.fetch(url).1.statusCode }
                if request % 10 == 0 {
                    origin.setBehavior("/x", .init(failNext: 1, failStatus: 503))
                    origin.replace("/x", data: OriginTestSupport.payload(count: 5000, seed: UInt8(request)))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then
        #expect(statuses.count == 60)
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 })
        #expect(origin.requestCount(for: "/x") == 60)
    }
}
