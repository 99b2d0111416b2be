import Foundation
import MediaAssets

// README: "Quick start: AssetsManager"
func quickStartManager() async throws {
    let manager = try AssetsManager()  // memory partitions + a disk cache in ~/.cache/MediaAssets

    // Bytes by key, routed by storage type (the seed's API).
    try await manager.writeData(Data("hello".utf8), forKey: "greeting", storageType: .hybrid(.image))
    let bytes = try await manager.readData(forKey: "greeting", storageType: .disk)
    try await manager.removeData(forKey: "greeting", storageType: .hybrid(.image))

    // A fetch: from the cache when fresh, else downloaded once (concurrent asks share it) and stored.
    let url = URL(string: "https://example.com/data.json")!
    let entry = try await manager.entry(for: AssetRequest(url: url), storageType: .disk)
    print(bytes?.count ?? 0, entry.data.count, entry.metadata.etag ?? "no ETag", manager.fetchStatistics)
}

// README: "Configuration and limits"
func configuredManager(cacheDirectory: URL) throws -> AssetsManager {
    var configuration = AssetsManager.Configuration(
        disk: .init(directory: cacheDirectory, sizeLimit: 256 << 20),  // default: ~/.cache/MediaAssets, 512 MiB
        retryPolicy: RetryPolicy(maxAttempts: 4),
        maxResponseSize: 64 << 20  // larger responses fail and nothing is stored
    )
    configuration.memoryPartitions[.image] = MemoryCache.Limits(costLimit: 64 << 20, countLimit: 500)
    configuration.keyFactory = .removingQueryItems(["token", "signature", "expires"])
    return try AssetsManager(configuration: configuration)
}

// README: "Fetching URLs that users give: the fetch policy"
func serviceManager(cacheDirectory: URL) throws -> AssetsManager {
    var policy = FetchPolicy.service  // public addresses only, checked on every hop, redirects included
    policy.allowedSchemes = ["https"]  // nothing in clear text
    policy.maxConnectionsPerHost = 4  // one slow host never holds every download slot
    // The service's own image store on its private network stays reachable; nothing else there is.
    policy = policy.allowing(FetchPolicy.AddressRange("10.20.0.0/16")!)
    return try AssetsManager(configuration: .init(disk: .init(directory: cacheDirectory), fetchPolicy: policy))
}

// Its tests, against a loopback origin (SampleOrigin): loopback is allowed explicitly.
func serviceTestManager(cacheDirectory: URL) throws -> AssetsManager {
    try AssetsManager(
        configuration: .init(disk: .init(directory: cacheDirectory), fetchPolicy: .service.allowing(.loopback)))
}

func fetchUserGivenURL(manager: AssetsManager, url: URL) async throws -> Data? {
    do {
        return try await manager.entry(for: AssetRequest(url: url)).data
    } catch AssetsError.fetchRefused(let refusedURL, let refusal) {
        // e.g. "http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a link-local address, …"
        print("refused \(refusedURL): \(refusal)")
        return nil
    }
}

// README: "Errors"
func errorHandling(manager: AssetsManager, url: URL) async {
    do {
        _ = try await manager.entry(for: AssetRequest(url: url)).data
    } catch let error as AssetsError {
        switch error {
        case .httpStatus(let code, let url): print("the server answered \(code) for \(url)")
        case .networkFailure(let url, _, let reason): print("no response from \(url): \(reason)")
        default: print(error)  // every case has a description a person can act on
        }
    } catch {
        print(error)  // CancellationError, or a util's own error
    }
}
