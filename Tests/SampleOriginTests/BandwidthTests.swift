import Foundation
import Synchronization
import Testing

@testable import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bandwidth shared by all connections")
struct BandwidthTests {
    @Test func aPieceKeepsTheLinkBusyForItsSizeAtTheRate() {
        // Given a link of 16 KiB/s on a clock the test moves
        let clock = ManualClock()
        let link = BandwidthLimit(now: clock.now)
        link.setRate(16 * 1024)

        // When one piece of 16 KiB takes it, and two more ask at once (as other connections would)
        let first = link.take(16 * 1024)
        let second = link.take(16 * 1024)
        let third = link.take(16 * 1024)

        // Then the first goes at once and the others are told to wait a second, holding nothing
        #expect(first == .zero)
        #expect(second == .seconds(1))
        #expect(third == .seconds(1))

        // When a quarter of a second passes, Then the wait is what is left of the first piece's second
        clock.advance(by: .milliseconds(250))
        #expect(link.take(16 * 1024) == .milliseconds(750))

        // When the first piece's second is over, Then a piece of 4 KiB goes and keeps the link for 250 ms
        clock.advance(by: .milliseconds(750))
        #expect(link.take(4 * 1024) == .zero)
        #expect(link.take(1) == .milliseconds(250))

        // When the limit is lifted, Then every piece goes at once
        link.setRate(nil)
        #expect(link.take(1 << 20) == .zero)
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

/// A continuous-clock time that moves only when the test moves it.
private final class ManualClock: Sendable {
    private let current = Mutex(ContinuousClock.now)

    /// A closure for `BandwidthLimit(now:)`.
    var now: @Sendable () -> ContinuousClock.Instant { { self.current.withLock { $0 } } }

    func advance(by duration: Duration) {
        current.withLock { $0 += duration }
    }
}
