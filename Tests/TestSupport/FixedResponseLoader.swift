import Foundation
import MediaAssets
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A loader that answers every request with one response, counting calls: for the guards a real
/// HTTP client never lets a test reach (a body longer than its Content-Length).
public final class FixedResponseLoader: DataLoading {
    private let response: DataResponse
    private let calls = Mutex(0)

    /// Creates a loader that always returns `response`.
    public init(_ response: DataResponse) {
        self.response = response
    }

    /// How many requests it answered.
    public var callCount: Int { calls.withLock { $0 } }

    public func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse
    {
        calls.withLock { $0 += 1 }
        return response
    }
}
