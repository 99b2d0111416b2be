import Foundation
import MediaAssets
import SampleOrigin

/// What most fetch tests need: a running loopback origin, a temporary directory, and a manager
/// whose disk cache lives in that directory. Call `tearDown()` in a `defer`.
public struct OriginEnvironment: Sendable {
    /// The origin, started.
    public let origin: SampleOrigin
    /// The test's temporary directory.
    public let directory: TemporaryDirectory
    /// A manager over `directory` (see `AssetsManager.forTesting`).
    public let manager: AssetsManager

    /// Starts an origin and makes a manager; the parameters are `AssetsManager.forTesting`'s.
    public init(
        clock: TestClock? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05),
        maxResponseSize: Int = 256 << 20,
        keyFactory: CacheKeyFactory = .absoluteURL,
        loader: (any DataLoading)? = nil,
        fetchPolicy: FetchPolicy = .app,
        stageLimits: AssetsManager.Configuration.StageLimits = .init(),
        staleIfError: TimeInterval = 0
    ) throws {
        origin = SampleOrigin()
        try origin.start()
        directory = try TemporaryDirectory()
        manager = try AssetsManager.forTesting(
            directory: directory, clock: clock, retryPolicy: retryPolicy, maxResponseSize: maxResponseSize,
            keyFactory: keyFactory, loader: loader, fetchPolicy: fetchPolicy, staleIfError: staleIfError,
            stageLimits: stageLimits
        )
    }

    /// Stops the origin and removes the directory.
    public func tearDown() {
        origin.stop()
        directory.remove()
    }

    /// Serves `data` at `path` (with an optional behaviour) and returns its URL.
    @discardableResult
    public func serve(
        _ path: String, _ data: Data, contentType: String = "application/octet-stream",
        cacheControl: String? = nil, behavior: SampleOrigin.Behavior? = nil
    ) -> URL {
        origin.register(path, data: data, contentType: contentType, cacheControl: cacheControl)
        if let behavior { origin.setBehavior(path, behavior) }
        return origin.url(for: path)
    }

    /// The cache key of a plain request for `path`.
    public func key(_ path: String) -> CacheKey {
        manager.cacheKey(for: AssetRequest(url: origin.url(for: path)))
    }

    /// Whether the disk cache holds the entry for `path`.
    public func isOnDisk(_ path: String) async throws -> Bool {
        try await manager.readData(forKey: key(path), storageType: .disk) != nil
    }
}
