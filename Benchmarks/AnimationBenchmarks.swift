import Foundation
import MediaAssets
import MediaAssetsAnimation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Benchmarks Lottie parsing against `JSONSerialization`, and dotLottie reading against zlib alone.
///
/// Rows:
/// - cold parse of a generated ~2.3 MB animation vs `JSONSerialization.jsonObject` on the same bytes
///   (target ≤ 1.2);
/// - opening a dotLottie holding it (deflated), with CRC check and parse, vs inflating it alone;
/// - an `AnimationUtil` memory hit, per call, vs parsing that animation.
func runAnimationParsingBenchmarks(table: BenchmarkTable) async throws {
    let json = makeLargeLottieJSON(layerCount: 1_000)
    let size = String(format: "%.1f MB", Double(json.count) / 1_000_000)
    try checkAgainstFoundation(json)

    let parse = try medianSeconds(repetitions: 9) {
        blackHole(try LottieDocument.parse(json))
    }
    let serialization = try medianSeconds(repetitions: 9) {
        blackHole(try JSONSerialization.jsonObject(with: json))
    }
    table.add(
        "lottie cold parse (\(size) JSON)", unit: "ms", median: parse * 1000,
        baseline: "JSONSerialization.jsonObject", baselineMedian: serialization * 1000, target: 1.2
    )

    let manifest = Data(#"{"version":"2","animations":[{"id":"large"}]}"#.utf8)
    let archive = BenchmarkZip.archive([("manifest.json", manifest), ("a/large.json", json)])
    let compressed = BenchmarkZip.deflate(json)
    let open = try medianSeconds(repetitions: 9) {
        blackHole(try DotLottie.read(archive))
    }
    let inflate = medianSeconds(repetitions: 9) {
        blackHole(BenchmarkZip.inflate(compressed, size: json.count))
    }
    table.add(
        "dotLottie open + parse (\(archive.count / 1000) kB archive)", unit: "ms", median: open * 1000,
        baseline: "zlib inflate alone", baselineMedian: inflate * 1000
    )
    try await runAnimationMemoryHit(json, table: table)
}

/// One animation fetched once through `AnimationUtil`, then asked for again and again.
private func runAnimationMemoryHit(_ json: Data, table: BenchmarkTable) async throws {
    struct OneAnimationLoader: DataLoading {
        let json: Data
        func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse {
            DataResponse(url: request.url!, statusCode: 200, headers: [:], data: json)
        }
    }
    let manager = try AssetsManager(configuration: .init(disk: nil, loader: OneAnimationLoader(json: json)))
    let util = AnimationUtil(manager: manager)
    let url = URL(string: "https://cdn.example.com/large.json")!
    _ = try await util.animation(for: url, storageType: .lru(.lottie))
    let calls = 10_000
    let hit = try await medianSecondsAsync(repetitions: 9) {
        for _ in 0..<calls { blackHole(try await util.animation(for: url, storageType: .lru(.lottie))) }
    }
    let parse = try medianSeconds(repetitions: 5) { blackHole(try LottieDocument.parse(json)) }
    precondition(util.statistics.decodes == 1, "memory hits must not parse")
    table.add(
        "AnimationUtil memory hit (per call, 0 parses)", unit: "µs", median: hit * 1e6 / Double(calls),
        baseline: "parsing the same animation", baselineMedian: parse * 1e6
    )
}

/// Fails the run if the parser and `JSONSerialization` disagree on the generated animation's shape.
private func checkAgainstFoundation(_ json: Data) throws {
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }
    let animation = try LottieDocument.parse(json)
    let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
    let layers = (object?["layers"] as? [Any])?.count
    let assets = (object?["assets"] as? [Any])?.count
    guard layers == animation.layers.count, assets == animation.assets.count else {
        throw Mismatch(
            description: "parser read \(animation.layers.count) layers and \(animation.assets.count) assets; "
                + "JSONSerialization \(layers ?? -1) and \(assets ?? -1)")
    }
}
