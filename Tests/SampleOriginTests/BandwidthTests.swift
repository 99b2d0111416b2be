import Foundation
import Testing

@testable import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bandwidth shared by all connections")
struct BandwidthTests {
    @Test func aPieceKeepsTheLinkBusyForItsSizeAtTheRate() {
        // Given a link of 16 KiB/s
        let link = BandwidthLimit()
        link.setRate(16 * 1024)

        // When one piece of 16 KiB takes it, and two more ask at once (as other connections would)
        let first = link.take(16 * 1024)
        let second = link.take(16 * 1024)
        let third = link.take(16 * 1024)

        // Then the first goes at once and the others are told to wait about a second, holding nothing
        #expect(first == .zero)
        #expect(second > .milliseconds(990) && second <= .seconds(1))
        #expect(third > .milliseconds(990) && third <= second)
        link.setRate(nil)
        #expect(link.take(1 << 20) == .zero)
    }

    @Test func bodiesArriveWholeUnderALimit() async throws {
        let bodies = (0..<3).map { index in Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &+ index) }) }
        let (origin, session) = try OriginTestSupport.startedOriginAndSession(
            Dictionary(uniqueKeysWithValues: bodies.enumerated().map { ("/b\($0.offset)", $0.element) }))
        defer { OriginTestSupport.close(origin, session) }
        origin.setBandwidthLimit(bytesPerSecond: 4 << 20)

        let received = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for index in bodies.indices {
                group.addTask { (index, try await session.fetch(origin.url(for: "/b\(index)")).0) }
            }
            var received: [Int: Data] = [:]
            for try await (index, data) in group { received[index] = data }
            return received
        }

        for index in bodies.indices { #expect(received[index] == bodies[index]) }
        let finished = origin.requests(for: "/b0").allSatisfy { $0.isFinished }
        #expect(finished)
    }
}
