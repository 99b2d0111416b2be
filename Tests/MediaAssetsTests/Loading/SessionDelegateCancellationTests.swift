import Foundation
import Testing

@testable import MediaAssets

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cancellation that reaches the session after the last byte of a body and before the transfer's end: on a
/// busy machine the session's callbacks lag, and a row cancelled once its progress read 1.0 lands there. The
/// delegate is driven by hand here, in the order the session reports such a transfer.
@Suite struct SessionDelegateCancellationTests {
    /// Feeds `delegate` a 200 response declaring `declared` bytes, then `body`, then the session's cancellation,
    /// and returns what the hop's caller receives.
    private static func cancelledTransfer(declared: Int, body: Data) async throws -> HopOutcome<DataResponse> {
        let delegate = SessionDelegate()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:9/photo.jpg")!
        let task = session.dataTask(with: url)  // never resumed: the delegate is told what the session would say
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "\(declared)"]))
        return try await withCheckedThrowingContinuation { continuation in
            delegate.begin(
                task, consumer: .collecting(continuation, progress: nil, url: url), maxResponseSize: 1 << 20)
            delegate.urlSession(session, dataTask: task, didReceive: response) { _ in }
            delegate.urlSession(session, dataTask: task, didReceive: body)
            delegate.urlSession(session, task: task, didCompleteWithError: URLError(.cancelled))
        }
    }

    @Test func aBodyWhoseEveryByteArrivedBeforeTheCancellationIsReturnedWhole() async throws {
        // Given a 5,000-byte body that arrived whole, when the cancellation reaches the session after it
        let body = Data((0..<5_000).map { UInt8($0 % 251) })
        let outcome = try await Self.cancelledTransfer(declared: body.count, body: body)

        // Then the caller gets the response and its body, not the cancellation
        guard case .answered(let response) = outcome else {
            Issue.record("expected the response, got \(outcome)")
            return
        }
        #expect(response.statusCode == 200 && response.data == body)
    }

    @Test func aBodyCutShortByTheCancellationIsStillCancelled() async throws {
        // Given 4,999 of 5,000 declared bytes, when the cancellation reaches the session
        let body = Data(count: 4_999)

        // Then the caller gets the session's cancellation
        await #expect {
            _ = try await Self.cancelledTransfer(declared: 5_000, body: body)
        } throws: { error in
            (error as? URLError)?.code == .cancelled
        }
    }
}
