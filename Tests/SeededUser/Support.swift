import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin
import Synchronization
import TestSupport

/// What every scenario gets: its seed's generator, a running loopback origin, a directory of its own and a log.
struct ScenarioContext {
    let seed: UInt64
    var random: SeededGenerator
    let origin: SampleOrigin
    let directory: TemporaryDirectory
    let log: ScenarioLog
    /// This program, started again as the child of the restart scenarios.
    let executable: URL

    /// A manager caching in `directory/name`, through a session that waits as long as the runner does, with
    /// limits no scenario reaches (nothing is evicted, so every refetch is the package's doing).
    func makeManager(_ name: String, retryPolicy: RetryPolicy = Limits.retryPolicy) throws -> AssetsManager {
        try AssetsManager(configuration: Limits.configuration(directory: directory.appending(name), retry: retryPolicy))
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &random) < probability }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
}

/// The limits every manager of the runner is configured with; the invariants are stated against them.
enum Limits {
    /// The image partition: far above what a scenario's pictures take decoded (60 pictures of at most
    /// 480×360 in four styles, about 60 MiB), so nothing in memory is evicted during a scenario.
    static let imagePartition = 192 << 20
    static let videoPartition = 32 << 20
    /// The disk cache: far above a scenario's bytes (at most 64 MiB of video chunks and images).
    static let diskSize = 1 << 30
    static let stagedWriteLimit = 16 << 20
    /// Fast retries: `Retry-After` is honoured up to `maxDelay`.
    static let retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.3)
    /// The longest any one scenario may run before it counts as hung.
    static let scenarioTimeout = Duration.seconds(150)

    /// The restart scenario's children: smaller partitions and staged writes, still above what a child holds (16
    /// pictures of at most 480×360 and their variants, about 12 MiB decoded), so their memory bound is tight.
    static let childImagePartition = 32 << 20
    static let childVideoPartition = 8 << 20
    static let childStagedWriteLimit = 4 << 20

    static func configuration(directory: URL, retry: RetryPolicy = retryPolicy) -> AssetsManager.Configuration {
        configuration(
            directory: directory, retry: retry, image: imagePartition, video: videoPartition, staged: stagedWriteLimit)
    }

    static func childConfiguration(directory: URL) -> AssetsManager.Configuration {
        configuration(
            directory: directory, retry: retryPolicy, image: childImagePartition, video: childVideoPartition,
            staged: childStagedWriteLimit)
    }

    private static func configuration(
        directory: URL, retry: RetryPolicy, image: Int, video: Int, staged: Int
    ) -> AssetsManager.Configuration {
        AssetsManager.Configuration(
            memoryPartitions: [
                .image: MemoryCache.Limits(costLimit: image, countLimit: 10_000),
                .video: MemoryCache.Limits(costLimit: video, countLimit: 1_000),
            ],
            disk: .init(directory: directory, sizeLimit: diskSize),
            loader: URLSessionLoader.forTesting(maxResponseSize: 256 << 20),
            retryPolicy: retry, stagedWriteLimit: staged)
    }
}

extension SampleOrigin {
    /// Body bytes the origin sent for `path` in answers carrying the resource (200 and 206).
    func resourceBytesSent(_ path: String) -> Int {
        requests(for: path).filter { $0.status == 200 || $0.status == 206 }.reduce(0) { $0 + $1.bodyBytesSent }
    }

    /// Body bytes the origin sent for `path` in every answer, errors' included (what `bytesDownloaded` counts).
    func bodyBytesSent(_ path: String) -> Int {
        requests(for: path).reduce(0) { $0 + $1.bodyBytesSent }
    }

    /// GET requests for `path` that reached the origin.
    func getCount(_ path: String) -> Int {
        requests(for: path).filter { $0.method == "GET" }.count
    }

    /// Waits until every request the origin received has ended (bounded), so the log's byte counts are final.
    func settle(paths: [String]) async {
        try? await waitUntil("the origin's requests end", timeout: .seconds(30)) { [self] in
            paths.allSatisfy { inFlight(for: $0) == 0 }
        }
    }
}

/// Pictures a scenario serves: seeded gradients, a disc and texture, different for every seed and index.
enum Pictures {
    static func picture(width: Int, height: Int, seed: UInt64) -> Image {
        var mixer = SeededGenerator(seed: seed)
        var generator = SeededGenerator(seed: mixer.next())
        let cx = Int.random(in: 0..<width, using: &generator)
        let cy = Int.random(in: 0..<height, using: &generator)
        let radius = Int.random(in: 10...max(11, min(width, height) / 2), using: &generator)
        let tint = UInt8.random(in: 0...255, using: &generator)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    let (dx, dy) = (x - cx, y - cy)
                    let inDisc = dx * dx + dy * dy < radius * radius
                    buffer[offset] = UInt8(truncatingIfNeeded: x * 255 / width &+ Int(tint))
                    buffer[offset + 1] = inDisc ? 240 &- tint : UInt8(truncatingIfNeeded: y * 255 / height)
                    buffer[offset + 2] = UInt8(truncatingIfNeeded: (x + y) / 3 + ((x ^ y) & 15))
                }
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// The mean absolute difference per channel of two images, or `nil` when their sizes differ.
    static func meanDifference(_ a: Image, _ b: Image) -> Double? {
        guard a.width == b.width, a.height == b.height, a.pixels.count == b.pixels.count else { return nil }
        let total = a.pixels.withUnsafeBufferPointer { left in
            b.pixels.withUnsafeBufferPointer { right in
                var sum = 0
                for index in 0..<left.count { sum &+= abs(Int(left[index]) &- Int(right[index])) }
                return sum
            }
        }
        return Double(total) / Double(max(1, a.pixels.count))
    }

    /// What the codec may change: a JPEG variant read back from storage differs from the render by its
    /// quantisation (a mean of about 1 per channel at quality 85); a wrong picture differs by tens.
    static let tolerance = 4.0
}

/// Waits for `process` to exit off the cooperative pool; `nil` when `timeout` passed (the process is then killed).
func exitStatus(of process: SpawnedProcess, timeout: Duration) async -> Int32? {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            let deadline = DispatchTime.now() + .nanoseconds(Int(timeout / .nanoseconds(1)))
            let status = process.exit.wait(until: deadline)
            if status == nil { kill(process.processIdentifier, SIGKILL) }
            continuation.resume(returning: status)
        }
    }
}

/// The lines a child writes to its standard output, read on a thread of their own.
final class ChildLines: Sendable {
    private let lines = Mutex<[String]>([])
    private let ended = Mutex(false)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                pending.append(data)
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lines.withLock { $0.append(line) }
                }
            }
            ended.withLock { $0 = true }
        }
        thread.name = "child output"
        thread.start()
    }

    var all: [String] { lines.withLock { $0 } }
    var hasEnded: Bool { ended.withLock { $0 } }

    /// The last line starting with `prefix`, without it.
    func last(_ prefix: String) -> String? {
        all.last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// Waits (bounded) until a line starts with `prefix` or the child's output ends; returns whether one did.
    func wait(for prefix: String, timeout: Duration = .seconds(60)) async -> Bool {
        try? await waitUntil("a line \(prefix)", timeout: timeout) { [self] in
            last(prefix) != nil || hasEnded
        }
        return last(prefix) != nil
    }
}

/// The resident high-water mark of this process, in bytes (`VmHWM` of `/proc/self/status`).
func statusBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
    else { return 0 }
    return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1_024
}

/// Whether `error` is a cancellation as the package reports one.
func isCancellation(_ error: any Error) -> Bool {
    error is CancellationError
}

/// A short name of an error for a scenario's line.
func errorName(_ error: any Error) -> String {
    let text = String(describing: error)
    return String(text.prefix(160))
}
