import Foundation
import MediaAssets
import MediaAssetsVideo
import SampleOrigin

#if canImport(Glibc)
import Glibc
#endif

/// Video chunk cache rows: cached range reads against plain file reads, and bytes on the wire for a
/// partial hit against the ideal.
func runVideoBenchmarks(table: BenchmarkTable) async throws {
    try await benchmarkCachedRangeReads(table: table)
    try await benchmarkPartialHitWireBytes(table: table)
}

/// Deterministic pseudo-random bytes (SplitMix64), generated a word at a time.
private func videoBenchmarkBytes(count: Int, seed: UInt64) -> Data {
    var state = seed
    var words = [UInt64](repeating: 0, count: (count + 7) / 8)
    for index in words.indices {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        words[index] = value ^ (value >> 31)
    }
    return words.withUnsafeBytes { Data($0.prefix(count)) }
}

/// An origin serving `source`, a manager with a disk cache in a scratch directory, and a video util.
private struct VideoBench {
    let origin = SampleOrigin()
    let directory: URL
    let manager: AssetsManager
    let video: VideoUtil
    let path = "/bench.mp4"

    init(name: String, source: Data, chunkSize: Int) throws {
        origin.register(path, data: source, contentType: "video/mp4")
        try origin.start()
        directory = try makeScratchDirectory(name)
        manager = try AssetsManager(
            configuration: .init(
                disk: .init(directory: directory.appendingPathComponent("cache"), sizeLimit: 1 << 30)))
        video = VideoUtil(manager: manager, configuration: .init(chunkSize: chunkSize))
    }

    var url: URL { origin.url(for: path) }

    func tearDown() {
        origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

private func benchmarkCachedRangeReads(table: BenchmarkTable) async throws {
    let mebibyte = 1 << 20
    let count = 64
    let source = videoBenchmarkBytes(count: count * mebibyte, seed: 64)
    let bench = try VideoBench(name: "video-cached", source: source, chunkSize: mebibyte)
    defer { bench.tearDown() }
    try await bench.video.prefetch(for: bench.url, byteCount: source.count)
    let first = try await bench.video.data(for: bench.url, range: 0..<mebibyte)
    guard first == source[0..<mebibyte] else { throw CocoaError(.fileReadCorruptFile) }

    let cached = try await medianSecondsAsync(repetitions: 7) {
        for index in 0..<count {
            blackHole(try await bench.video.data(for: bench.url, range: (index * mebibyte)..<((index + 1) * mebibyte)))
        }
    }

    // The floor under the util: the backend reads of the same chunks, with nothing of the util around them.
    let key = bench.manager.cacheKey(for: AssetRequest(url: bench.url))
    let entries = try await medianSecondsAsync(repetitions: 7) {
        for index in 0..<count {
            blackHole(try await bench.manager.cachedEntry(forKey: key.chunk(index), storageType: .disk))
        }
    }
    let filePath = bench.directory.appendingPathComponent("plain.bin").path
    try source.write(to: URL(fileURLWithPath: filePath))
    let descriptor = open(filePath, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
    defer { close(descriptor) }
    let plain = medianSeconds(repetitions: 7) {
        for index in 0..<count {
            var chunk = Data(count: mebibyte)
            let read = chunk.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, mebibyte, off_t(index * mebibyte))
            }
            blackHole((chunk, read))
        }
    }
    table.add(
        "video: cached 64 MiB by 1 MiB data(for:range:)", unit: "ms", median: cached * 1_000,
        baseline: "plain file, 1 MiB preads", baselineMedian: plain * 1_000, target: 1.25
    )
    table.add(
        "video: cached 64 MiB, util over its backend reads", unit: "ms", median: cached * 1_000,
        baseline: "manager.entry of the same 64 chunks", baselineMedian: entries * 1_000
    )
}

private func benchmarkPartialHitWireBytes(table: BenchmarkTable) async throws {
    let mebibyte = 1 << 20
    let source = videoBenchmarkBytes(count: 16 * mebibyte + 12_345, seed: 16)
    let bench = try VideoBench(name: "video-partial", source: source, chunkSize: mebibyte)
    defer { bench.tearDown() }
    // Chunks 0-3, 6 and 9-10 cached; 4-5, 7-8 and 11-16 (the last one short) missing.
    for cached in [0..<4, 6..<7, 9..<11] {
        let range = (cached.lowerBound * mebibyte)..<(cached.upperBound * mebibyte)
        _ = try await bench.video.data(for: bench.url, range: range)
    }
    try await bench.origin.waitForFinishedRequests(path: bench.path, count: bench.origin.requestCount(for: bench.path))
    bench.origin.resetLog()
    let ideal = source.count - 7 * mebibyte

    let data = try await bench.video.data(for: bench.url, range: 0..<source.count)
    guard data == source else { throw CocoaError(.fileReadCorruptFile) }
    try await bench.origin.waitForFinishedRequests(path: bench.path, count: 3)
    let onTheWire = bench.origin.requests(for: bench.path).map(\.bodyBytesSent).reduce(0, +)
    table.add(
        "video: partial hit, bytes on the wire", unit: "B", median: Double(onTheWire),
        baseline: "missing bytes (ideal)", baselineMedian: Double(ideal), target: 1.0
    )
}
