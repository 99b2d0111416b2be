import Foundation
import MediaAssetsImage

/// The avatar pipeline ImageUtil runs on a miss (JPEG bytes → decoded → 96×96 aspect-fill circle → PNG
/// bytes) through `VariantRenderer`, with and without downsampling on decode, plus its PNG step alone.
func runAvatarPipelineBenchmarks(table: BenchmarkTable) async throws {
    let sizes = [(512, 384), (1024, 768), (1600, 1200), (2048, 1536), (3024, 2268), (3648, 2736)]
    let photos = try sizes.enumerated().map { index, size in
        try makePhotoLikeJPEG(width: size.0, height: size.1, seed: UInt64(index + 11))
    }
    // For comparisons with other libraries on the same files (see the README's benchmark notes).
    if let directory = ProcessInfo.processInfo.environment["MEDIAASSETS_EXPORT_PHOTOS"] {
        for (index, photo) in photos.enumerated() {
            try photo.write(to: URL(fileURLWithPath: directory).appendingPathComponent("photo-\(index).jpg"))
        }
    }
    let style = AvatarStyle.circle(diameter: 96)
    let renderer = VariantRenderer()
    func runPipeline(downsampling: Bool) throws {
        for photo in photos {
            let decoded = try renderer.decode(photo, for: style, downsampling: downsampling)
            blackHole(try renderer.encode(try renderer.render(decoded, style: style)))
        }
    }

    let count = Double(photos.count)
    let withDownsampling = try medianSeconds(repetitions: 9) { try runPipeline(downsampling: true) }
    let fullDecode = try medianSeconds(repetitions: 5) { try runPipeline(downsampling: false) }
    table.add(
        "avatar pipeline jpeg 512px-10MP -> circle 96 png (mean)", unit: "ms",
        median: withDownsampling / count * 1e3,
        baseline: "full decode, then resize (same set)", baselineMedian: fullDecode / count * 1e3
    )

    // The PNG step alone, at the variant's level against libpng's default.
    let variant = try renderer.render(try renderer.decode(photos[3], for: style), style: style)
    var defaultLevel = renderer
    defaultLevel.pngCompressionLevel = 6
    let fast = try medianSeconds(repetitions: 101) { blackHole(try renderer.encode(variant)) }
    let standard = try medianSeconds(repetitions: 101) { blackHole(try defaultLevel.encode(variant)) }
    let fastSize = try renderer.encode(variant).data.count
    let standardSize = try defaultLevel.encode(variant).data.count
    table.add(
        "png encode circle 96 (level \(renderer.pngCompressionLevel), \(fastSize) B)", unit: "µs", median: fast * 1e6,
        baseline: "zlib level 6, libpng default (\(standardSize) B)", baselineMedian: standard * 1e6
    )
}
