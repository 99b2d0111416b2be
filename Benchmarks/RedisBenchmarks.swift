import Foundation
import MediaAssets
import MediaAssetsRedis

#if canImport(Glibc)
import Glibc
#endif

/// RedisBackend against like-for-like baselines on a redis-server this group starts on loopback:
/// a hit vs a bare RESP GET of the same bytes on one socket, a batch read vs one read per round
/// trip, a 304's metadata update vs a store, pipelined stores vs one SET per round trip, and a tiered
/// read served by disk (Redis behind it) vs DiskCache alone.
func runRedisBenchmarks(table: BenchmarkTable) async throws {
    guard let server = try await BenchmarkRedisServer.start() else {
        print("redis: skipped, redis-server is not on PATH (apt-get install redis-server)")
        return
    }
    defer { server.stop() }
    let operations = 500
    let perOperation = 1e6 / Double(operations)
    let redis = RedisBackend(
        configuration: .init(
            servers: .single(.tcp(host: "127.0.0.1", port: server.port)), options: .init(poolSize: 1),
            keyPrefix: "bench:"))
    let entry = backendBenchmarkEntry()
    let keys = backendBenchmarkKeys(operations)
    for key in keys { try await redis.store(entry, forKey: key) }

    // A hit against the bare round trip of the same stored value on one blocking socket. The two
    // alternate run by run, so a busy neighbour slows both alike.
    let socket = try BareRESPSocket(port: server.port)
    defer { socket.close() }
    let requests = keys.map { BareRESPSocket.get(Data("bench:".utf8) + Data($0.rawValue.utf8)) }
    let replyLength = try socket.roundTrip(requests[0], replyUntilBulkEnds: true)
    let (hit, bare) = try await alternatingMedians {
        for key in keys { blackHole(try await redis.entry(forKey: key)) }
    } baseline: {
        for request in requests { _ = try socket.roundTrip(request, expecting: replyLength) }
    }
    table.add(
        "RedisBackend hit, 16 KiB entry", unit: "µs", median: hit * perOperation,
        baseline: "bare RESP GET of the value, one socket", baselineMedian: bare * perOperation, target: 1.3)

    // 16 entries read in one call (pipelined GETs) against 16 reads one after another.
    let window = Array(keys.prefix(16))
    let (batchRead, readsOneByOne) = try await alternatingMedians {
        for _ in 0..<20 { blackHole(try await redis.entries(forKeys: window)) }
    } baseline: {
        for _ in 0..<20 { for key in window { blackHole(try await redis.entry(forKey: key)) } }
    }
    table.add(
        "RedisBackend entries(forKeys:), 16 × 16 KiB", unit: "µs", median: batchRead / 20 * 1e6,
        baseline: "16 × RedisBackend entry(forKey:)", baselineMedian: readsOneByOne / 20 * 1e6)

    // A 304 (new dates, the same validators) against storing the entry again.
    try await addMetadataUpdateRow(to: table, redis, name: "RedisBackend", entry: entry, keys: keys)

    // 1,000 stores pipelined against one SET per round trip.
    let batch = (0..<1_000).map { (key: CacheKey("batch-\($0)"), entry: CacheEntry(data: Data(count: 1_024))) }
    let pipelined = try await medianSecondsAsync(repetitions: 5, warmup: 1) { try await redis.store(batch) }
    let oneByOne = try await medianSecondsAsync(repetitions: 5, warmup: 1) {
        for item in batch { try await redis.store(item.entry, forKey: item.key) }
    }
    table.add(
        "RedisBackend 1,000 stores pipelined, 1 KiB", unit: "ms", median: pipelined * 1e3,
        baseline: "1,000 stores, one SET per round trip", baselineMedian: oneByOne * 1e3)

    // One asset (original, 10 variants, 64 chunks) removed with one call against a removal per key.
    let asset = try await timedAssetRemoval(redis)
    table.add(
        "RedisBackend removeEntries(.asset), 75 keys", unit: "µs", median: asset.batch * 1e6,
        baseline: "75 × RedisBackend removeEntry", baselineMedian: asset.oneByOne * 1e6)

    // A tiered read served by the disk tier, Redis behind it, against the disk cache alone.
    let scratch = try makeScratchDirectory("redis-tiered")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let disk = try DiskCache(directory: scratch.appendingPathComponent("disk"), sizeLimit: 256 << 20)
    for key in keys { try await disk.store(entry, forKey: key) }
    let tiered = TieredBackend(tiers: [.required(disk), .bestEffort(redis)])
    let (tieredHit, diskHit) = try await alternatingMedians {
        for key in keys { blackHole(try await tiered.entry(forKey: key)) }
    } baseline: {
        for key in keys { blackHole(try await disk.entry(forKey: key)) }
    }
    table.add(
        "TieredBackend disk → Redis, hit served by disk", unit: "µs", median: tieredHit * perOperation,
        baseline: "DiskCache hit, 16 KiB entry", baselineMedian: diskHit * perOperation, target: 1.05)
    await disk.close()
}

/// Medians of `measured` and `baseline` run alternately (after two warm-up rounds of each).
func alternatingMedians(
    repetitions: Int = 9, _ measured: () async throws -> Void, baseline: () async throws -> Void
) async throws -> (measured: Double, baseline: Double) {
    var samples: (measured: [Double], baseline: [Double]) = ([], [])
    for round in 0..<(repetitions + 2) {
        let start = now()
        try await measured()
        let middle = now()
        try await baseline()
        let end = now()
        if round >= 2 {
            samples.measured.append(middle - start)
            samples.baseline.append(end - middle)
        }
    }
    return (median(samples.measured), median(samples.baseline))
}

/// A blocking loopback socket speaking just enough RESP for the baseline: send a GET, read the reply.
private final class BareRESPSocket {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)

    init(port: Int) throws {
        descriptor = try connectedLoopbackSocket(port: port)
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    static func get(_ key: Data) -> [UInt8] {
        Array("*2\r\n$3\r\nGET\r\n$\(key.count)\r\n".utf8) + key + Array("\r\n".utf8)
    }

    /// Sends `request` and reads the bulk reply whose total length is first learned from its header.
    func roundTrip(_ request: [UInt8], replyUntilBulkEnds: Bool) throws -> Int {
        try send(request)
        var received = 0
        var total: Int?
        while total.map({ received < $0 }) ?? true {
            received += try receive()
            if total == nil, let lineEnd = buffer[..<received].firstIndex(of: UInt8(ascii: "\r")),
                let length = Int(String(decoding: buffer[1..<lineEnd], as: UTF8.self))
            {
                total = lineEnd + 2 + length + 2
            }
        }
        return total ?? received
    }

    /// Sends `request` and reads exactly `length` reply bytes.
    func roundTrip(_ request: [UInt8], expecting length: Int) throws -> Int {
        try send(request)
        var received = 0
        while received < length { received += try receive() }
        return received
    }

    private func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw BenchmarkRedisServer.Failure(reason: "short send") }
    }

    private func receive() throws -> Int {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw BenchmarkRedisServer.Failure(reason: "recv: errno \(errno)") }
        return count
    }

    func close() { Glibc.close(descriptor) }
}

/// A throwaway redis-server on a free loopback port for the Redis rows.
private final class BenchmarkRedisServer {
    struct Failure: Error { var reason: String }

    let port: Int
    private let process: Process
    private let directory: URL

    private init(port: Int, process: Process, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    /// Starts a server, or returns nil when redis-server is not installed.
    static func start() async throws -> BenchmarkRedisServer? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map { "\($0)/redis-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { return nil }
        let directory = try makeScratchDirectory("redis-server")
        let port = try freeLoopbackPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [
            "--bind", "127.0.0.1", "--port", String(port), "--protected-mode", "yes", "--save", "",
            "--appendonly", "no", "--dir", directory.path, "--maxmemory", "512mb", "--maxmemory-policy", "allkeys-lru",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = BenchmarkRedisServer(port: port, process: process, directory: directory)
        let client = RedisClient(
            endpoint: .tcp(host: "127.0.0.1", port: port), options: .init(initialBackoff: .milliseconds(1)))
        for _ in 0..<2_000 {
            if (try? await client.send(RESPCommand("PING"))) != nil { return server }
            try await Task.sleep(for: .milliseconds(5))
        }
        server.stop()
        throw Failure(reason: "redis-server did not answer on port \(port)")
    }

    func stop() {
        // SIGKILL: a child of Process may start with SIGTERM blocked, and nothing here needs saving.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
