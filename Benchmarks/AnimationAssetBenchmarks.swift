import Foundation
import MediaAssets
import MediaAssetsAnimation
import MediaAssetsImage

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Benchmarks animations loaded with their image assets.
///
/// Rows:
/// - cold load of an animation naming 10 external 256×256 PNGs (fresh managers, memory-only caches,
///   an in-memory loader) vs the JSON alone plus the 10 images concurrently through `ImageUtil`
///   (target ≤ 1.1);
/// - a memory hit of that animation with its assets, per call (target ≤ 2 µs), vs a plain
///   `AnimationUtil` memory hit of the model alone.
func runAnimationAssetBenchmarks(table: BenchmarkTable) async throws {
    let base = "https://cdn.example.com/assets/"
    var files: [String: Data] = [:]
    var assets: [String] = []
    for index in 0..<10 {
        var image = Image(width: 256, height: 256, fill: RGBA(red: UInt8(index * 20), green: 90, blue: 200))
        for offset in stride(from: 0, to: image.pixels.count, by: 4 * 97) { image.pixels[offset] = UInt8(offset % 251) }
        files[base + "images/img_\(index).png"] = try ImageEncoder.png(image)
        assets.append(#"{"id":"image_\#(index)","w":256,"h":256,"u":"images/","p":"img_\#(index).png","e":0}"#)
    }
    let layers = (0..<10).map { #"{"ty":2,"ind":\#($0 + 1),"refId":"image_\#($0)","ip":0,"op":60,"st":0}"# }
    let json =
        #"{"v":"5.7.0","fr":30,"ip":0,"op":60,"w":512,"h":512,"assets":[\#(assets.joined(separator: ","))],"#
        + #""layers":[\#(layers.joined(separator: ","))]}"#
    let animationURL = URL(string: base + "animation.json")!
    files[animationURL.absoluteString] = Data(json.utf8)
    let loader = InMemoryFilesLoader(files: files)
    let imageURLs = (0..<10).map { URL(string: base + "images/img_\($0).png")! }
    let options = AnimationAssetOptions(imageStorageType: .lru(.image))

    func makeUtil() throws -> AnimationUtil {
        AnimationUtil(manager: try AssetsManager(configuration: .init(disk: nil, loader: loader)))
    }
    let withAssets = try await medianSecondsAsync(repetitions: 15, warmup: 2) {
        let util = try makeUtil()
        let loaded = try await util.loadedAnimation(for: animationURL, options: options, storageType: .lru(.lottie))
        precondition(loaded.images.count == 10)
    }
    let separately = try await medianSecondsAsync(repetitions: 15, warmup: 2) {
        let util = try makeUtil()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { blackHole(try await util.animation(for: animationURL, storageType: .lru(.lottie))) }
            for url in imageURLs {
                group.addTask { blackHole(try await util.images.image(for: url, storageType: .lru(.image))) }
            }
            try await group.waitForAll()
        }
    }
    table.add(
        "animation + 10 image assets, cold load", unit: "ms", median: withAssets * 1000,
        baseline: "JSON alone + 10 images via ImageUtil", baselineMedian: separately * 1000, target: 1.1
    )

    let util = try makeUtil()
    _ = try await util.loadedAnimation(for: animationURL, options: options, storageType: .lru(.lottie))
    _ = try await util.animation(for: animationURL, storageType: .lru(.lottie))
    let calls = 10_000
    let hit = try await medianSecondsAsync(repetitions: 9) {
        for _ in 0..<calls {
            blackHole(try await util.loadedAnimation(for: animationURL, options: options, storageType: .lru(.lottie)))
        }
    }
    let plainHit = try await medianSecondsAsync(repetitions: 9) {
        for _ in 0..<calls { blackHole(try await util.animation(for: animationURL, storageType: .lru(.lottie))) }
    }
    precondition(util.statistics.processes == 1, "memory hits must not load again")
    table.add(
        "animation + 10 assets, memory hit (target ≤ 2 µs)", unit: "µs", median: hit * 1e6 / Double(calls),
        baseline: "AnimationUtil memory hit, model alone", baselineMedian: plainHit * 1e6 / Double(calls)
    )
}

/// Answers every request from a dictionary of URL strings to bytes (404 for the rest).
struct InMemoryFilesLoader: DataLoading {
    let files: [String: Data]

    func load(_ request: URLRequest, progress: (@Sendable (FetchProgress) -> Void)?) async throws -> DataResponse {
        let url = request.url!
        guard let data = files[url.absoluteString] else {
            return DataResponse(url: url, statusCode: 404, headers: [:], data: Data())
        }
        return DataResponse(url: url, statusCode: 200, headers: ["Content-Length": String(data.count)], data: data)
    }
}
