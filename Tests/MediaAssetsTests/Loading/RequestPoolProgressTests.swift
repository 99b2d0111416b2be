import MediaAssets
import Synchronization
import TestSupport
import Testing

/// Collects the bytes of each progress report an asker receives.
private final class ReportLog: Sendable {
    private let reports = Mutex<[Int64]>([])
    var values: [Int64] { reports.withLock { $0 } }
    func record(_ progress: FetchProgress) { reports.withLock { $0.append(progress.receivedBytes) } }
}

@Suite struct RequestPoolProgressTests {
    @Test func progressReachesTheAskersWaitingAtEachReport() async throws {
        // Given a flight that reports 10 bytes, waits, then reports 20 bytes
        let pool = RequestPool<Int, String>()
        let afterFirstReport = OperationGate()
        let (first, second) = (ReportLog(), ReportLog())
        let leaving = Task {
            try await pool.value(for: 1, progress: first.record) { report in
                report(FetchProgress(receivedBytes: 10, expectedBytes: 30))
                await afterFirstReport.pass([1])
                report(FetchProgress(receivedBytes: 20, expectedBytes: 30))
                return "done"
            }
        }
        try await waitUntil("the first report arrived") { first.values == [10] }

        // When an asker with a handler and one without join, and the first asker leaves
        let staying = Task { try await pool.value(for: 1, progress: second.record) { _ in "unused" } }
        try await waitUntil("the second asker joined") { pool.joinCount == 1 }
        let silent = Task { try await pool.value(for: 1) { _ in "unused" } }
        try await waitUntil("the third asker joined") { pool.joinCount == 2 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        afterFirstReport.open()

        // Then the later report reaches only the asker still waiting with a handler
        #expect(try await staying.value == "done")
        #expect(try await silent.value == "done")
        #expect(first.values == [10])
        #expect(second.values == [20])
    }
}
