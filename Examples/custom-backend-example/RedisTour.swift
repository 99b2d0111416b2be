import ExampleSupport
import Foundation
import MediaAssets
import MediaAssetsRedis

/// `.hybrid(.image)` as memory → disk → Redis, shown across two processes.
///
/// The parent clears the example's keys in Redis, then runs this executable twice as workers, each
/// with its own disk cache and its own embedded origin: the first fetches every image from its
/// origin and writes it through to Redis; the second finds every image in Redis, with 0 origin
/// requests. Each worker prints where every image came from.
enum RedisTour {
    /// The key prefix the example's entries live under in Redis.
    static let keyPrefix = "mediaassets-example:"

    /// Parses `--redis URL` or `--redis-cluster HOST:PORT,...` into a backend configuration.
    static func configuration(redis: String?, cluster: String?) throws -> RedisBackend.Configuration {
        if let cluster {
            let seeds = try cluster.split(separator: ",").map { try RedisEndpoint(hostAndPort: String($0)) }
            return RedisBackend.Configuration(servers: .cluster(seeds: seeds), keyPrefix: keyPrefix)
        }
        return try RedisBackend.Configuration(address: redis ?? "redis://127.0.0.1:6379", keyPrefix: keyPrefix)
    }

    /// Clears the example's keys, runs the two workers one after the other and returns their status.
    static func runParent(arguments: [String], directory: URL, configuration: RedisBackend.Configuration) async throws
        -> Int32
    {
        try await RedisBackend(configuration: configuration).removeEntries(.keyPrefix(""))
        print("custom-backend-example: .hybrid(.image) as memory → disk → Redis, in two processes")
        print("  redis   \(configuration.servers)  (keys under \"\(keyPrefix)\", cleared)")
        print("  cache   \(directory.path)/process-1 and process-2 (separate disk caches)")
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        for worker in 1...2 {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("process-\(worker)"))
            print("")
            let process = Process()
            process.executableURL = executable
            process.arguments =
                arguments + [
                    "--redis-worker", String(worker), "--cache",
                    directory.appendingPathComponent("process-\(worker)").path,
                ]
            ExampleRun.flushStandardOutput()
            let status = try await exitStatus(of: process)
            guard status == 0 else {
                throw ExampleError.failed(
                    reason: "process \(worker) (pid \(process.processIdentifier)) failed with status \(status)")
            }
        }
        return 0
    }

    /// Runs `process` and returns its exit status once it has exited.
    ///
    /// The exit arrives through `terminationHandler`, installed before `run()` so an early exit is not missed.
    /// `waitUntilExit()` would block a thread of the cooperative pool, spinning its run loop until the exit.
    static func exitStatus(of process: Process) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }

    /// One worker: fetches the image list through memory → disk → Redis and reports each source.
    static func runWorker(_ worker: Int, directory: URL, configuration: RedisBackend.Configuration) async throws
        -> Int32
    {
        let media = try await SampleMedia.make(avatarCount: 8, videoByteCount: 0)
        let host = try SampleHost.start(media)
        defer { host.stop() }
        let manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: directory.appendingPathComponent("disk")), loader: LocalFileLoader(),
                keyFactory: host.keyFactory))
        let redis = RedisBackend(configuration: configuration)
        let tiered = TieredBackend(tiers: [
            .required(MemoryCache(limits: .init(costLimit: 64 << 20))),
            .required(try DiskCache(directory: directory.appendingPathComponent("tiered-disk"))),
            .bestEffort(redis),
        ])
        manager.register(tiered, for: .hybrid(.image))

        print(
            "process \(worker) (pid \(getpid())): its own origin \(host.origin.baseURL.absoluteString), "
                + "its own disk \(directory.path)")
        var table = TextTable(header: ["image", "from", "bytes"], indent: 2)
        var sources: [String: Int] = [:]
        let requestsAtStart = host.requestCount
        for avatar in media.avatars {
            let before = tiered.tierStatistics
            let requestsBefore = host.requestCount
            let entry = try await manager.entry(
                for: AssetRequest(url: host.url(for: avatar)), storageType: .hybrid(.image))
            let source = host.requestCount > requestsBefore ? "origin" : servingTier(before, tiered.tierStatistics)
            sources[source, default: 0] += 1
            table.add([avatar.file.path, source, Formatting.bytes(entry.data.count)])
        }
        table.print()
        // Results return before their writes end: the last image's write to Redis may still be under way.
        await manager.waitForPendingWrites()
        let originRequests = host.requestCount - requestsAtStart
        let summary = ["origin", "memory", "disk", "redis"].map { "\($0) \(sources[$0] ?? 0)" }.joined(separator: ", ")
        print("  process \(worker): \(originRequests) origin requests; images from \(summary)")
        await manager.shutdown()
        let statistics = await redis.statistics()
        print(
            "  redis: hits \(statistics.hits), misses \(statistics.misses), writes \(statistics.writes), "
                + "errors \(statistics.errors)")
        if worker == 2, originRequests > 0 {
            throw ExampleError.failed(
                reason: "the second process was not served from Redis: \(originRequests) origin requests")
        }
        return 0
    }

    private static func servingTier(_ before: [TieredBackend.TierCounters], _ after: [TieredBackend.TierCounters])
        -> String
    {
        let names = ["memory", "disk", "redis"]
        for index in before.indices where after[index].hits > before[index].hits { return names[index] }
        return "memory"
    }
}
