import Foundation

/// One printed row: a measured median against a baseline measured in the same run.
struct BenchmarkRow: Codable, Sendable {
    var name: String
    var unit: String
    var median: Double
    var baseline: String
    var baselineMedian: Double
    var ratio: Double
    /// The target ratio the issue sets, if any (`ratio` should stay at or below it).
    var target: Double?
}

/// Collects rows and prints them as a table (and optionally JSON).
final class BenchmarkTable {
    private(set) var rows: [BenchmarkRow] = []

    /// Adds a row comparing `median` against `baselineMedian`; both in `unit`.
    func add(
        _ name: String, unit: String, median: Double,
        baseline: String, baselineMedian: Double, target: Double? = nil
    ) {
        let ratio = baselineMedian > 0 ? median / baselineMedian : .nan
        let row = BenchmarkRow(
            name: name, unit: unit, median: median, baseline: baseline,
            baselineMedian: baselineMedian, ratio: ratio, target: target
        )
        rows.append(row)
        print(Self.format(row))
        fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
    }

    static var header: String {
        pad("benchmark", 52) + pad("median", 14) + pad("baseline", 44) + pad("base median", 14) + pad("ratio", 8)
            + "target"
    }

    static func format(_ row: BenchmarkRow) -> String {
        let targetText =
            row.target.map { "≤ " + String(format: "%.2f", $0) + (row.ratio <= $0 ? " ok" : " MISS") } ?? ""
        return pad(row.name, 52)
            + pad(formatValue(row.median, unit: row.unit), 14)
            + pad(row.baseline, 44)
            + pad(formatValue(row.baselineMedian, unit: row.unit), 14)
            + pad(String(format: "%.2f", row.ratio), 8)
            + targetText
    }

    func writeJSON(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(rows).write(to: URL(fileURLWithPath: path))
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func formatValue(_ value: Double, unit: String) -> String {
        switch unit {
        case "ns": return String(format: "%.1f ns", value)
        case "µs": return String(format: "%.2f µs", value)
        case "ms": return String(format: "%.3f ms", value)
        default: return String(format: "%.3f %@", value, unit)
        }
    }
}

/// Monotonic time in seconds.
@inline(__always)
func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// The CPU time this thread has used, in seconds: unlike wall-clock time it leaves out the time other processes
/// run, so a row that runs on one thread stays comparable on a busy machine (on a quiet one the two agree).
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Runs `body` `warmup` times unmeasured, then `repetitions` times, and returns the median seconds.
func medianSeconds(repetitions: Int = 7, warmup: Int = 1, _ body: () throws -> Void) rethrows -> Double {
    for _ in 0..<warmup { try body() }
    var samples: [Double] = []
    samples.reserveCapacity(repetitions)
    for _ in 0..<repetitions {
        let start = now()
        try body()
        samples.append(now() - start)
    }
    return median(samples)
}

/// The async twin of `medianSeconds`.
func medianSecondsAsync(
    repetitions: Int = 7, warmup: Int = 1, _ body: () async throws -> Void
) async rethrows -> Double {
    for _ in 0..<warmup { try await body() }
    var samples: [Double] = []
    samples.reserveCapacity(repetitions)
    for _ in 0..<repetitions {
        let start = now()
        try await body()
        samples.append(now() - start)
    }
    return median(samples)
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Keeps the optimizer from discarding a computed value.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A scratch directory for one benchmark, removed by the caller.
func makeScratchDirectory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("mediaassets-bench-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The sample at `fraction` (0.5 the median, 0.95 the p95) of `samples`, or NaN for none.
func percentile(_ samples: [Double], _ fraction: Double) -> Double {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}
