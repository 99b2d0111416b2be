import Foundation
import Testing

@testable import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bandwidth shared by all connections")
struct BandwidthTests {
    @Test func piecesTakeTurnsOnOneLinkAtTheRate() {
        // Given a link of 16 KiB/s
        let link = BandwidthLimit()
        link.setRate(16 * 1024)

        // When three pieces of 16 KiB ask for their turn at once (as three connections would)
        let waits = (0..<3).map { _ in link.reserve(16 * 1024) }

        // Then each waits one second of link time more than the one before it
        #expect(waits[0] == .zero)
        for index in 1..<3 {
            let step = waits[index] - waits[index - 1]
            #expect(step > .milliseconds(990) && step <= .seconds(1))
        }
        link.setRate(nil)
        #expect(link.reserve(1 << 20) == .zero)
    }

    @Test func bodiesArriveWholeUnderALimit() async throws {
        let bodies = (0..<3).map { index in Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &+ index) }) }
        let origin = try OriginTestSupport.startedOrigin(
            Dictionary(uniqueKeysWithValues: bodies.enumerated().map { ("/b\($0.offset)", $0.element) }))
        defer { origin.stop() }
        origin.setBandwidthLimit(bytesPerSecond: 4 << 20)
        let session = OriginTestSupport.makeSession()
        defer { session.invalidateAndCancel() }

        let received = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for index in bodies.indices {
                group.addTask { (index, try await session.fetch(origin.url(for: "/b\(index)")).0) }
            }
            var received: [Int: Data] = [:]
            for try await (index, data) in group { received[index] = data }
            return received
        }

        for index in bodies.indices { #expect(received[index] == bodies[index]) }
        #expect(origin.requests(for: "/b0").allSatisfy(\.isFinished))
    }
}
