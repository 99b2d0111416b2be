import Foundation
import MediaAssets
import MediaAssetsImage

/// The avatar pipeline ImageUtil runs on a miss (JPEG bytes → decoded → 96×96 aspect-fill circle → PNG
/// bytes) through `VariantRenderer`: decoded with 2× headroom and only the cropped region, against the draft
/// decode to the target size and against a full decode; the avatars' PSNR against a full-resolution Lanczos
/// reference; the PNG step alone.
func runAvatarPipelineBenchmarks(table: BenchmarkTable) async throws {
    let sizes = [(512, 384), (1024, 768), (1600, 1200), (2048, 1536), (3024, 2268), (3648, 2736)]
    // Each picture as a baseline JPEG and as a progressive one (libjpeg's standard script of 10 scans, as web
    // pages and many services serve them); both decode to the same pixels, judged against one reference.
    var photos: [Data] = []
    var progressivePhotos: [Data] = []
    for (index, size) in sizes.enumerated() {
        let picture = makePhotoLikeImage(width: size.0, height: size.1, seed: UInt64(index + 11), fineDetail: true)
        photos.append(try ImageEncoder.jpeg(picture, quality: 90))
        progressivePhotos.append(try ImageEncoder.jpeg(picture, quality: 90, progressive: true))
    }
    let references = try photos.map { referenceAvatar(of: try ImageDecoder.decode($0), size: .square(96)) }
    // For comparisons with other libraries on the same files (see the README's benchmark notes).
    if let directory = ProcessInfo.processInfo.environment["MEDIAASSETS_EXPORT_PHOTOS"] {
        for (index, (photo, progressive)) in zip(photos, progressivePhotos).enumerated() {
            try photo.write(to: URL(fileURLWithPath: directory).appendingPathComponent("photo-\(index).jpg"))
            try progressive.write(
                to: URL(fileURLWithPath: directory).appendingPathComponent("photo-\(index)-progressive.jpg"))
        }
    }
    let style = AvatarStyle.circle(diameter: 96)
    let renderer = VariantRenderer()
    // Today's path before issue 16: decode just down to the target (Pillow's draft rule), the whole image, and
    // a box stage that stops below 2× (an exact 2× being a pure box).
    var draftRenderer = VariantRenderer()
    draftRenderer.decodingOptions.downsamplingHeadroom = 1
    var todaysResize = ImageProcessors.Resize.aspectFillCrop(size: .square(96))
    todaysResize.boxStage = .belowTwice
    let todaysStyle = AvatarStyle(
        identifier: "todays-circle(96)", targetSize: .square(96), processors: [todaysResize, ImageProcessors.Circle()]
    )
    func runPipeline(style: AvatarStyle, _ decode: (Data) throws -> Image) throws {
        for photo in photos {
            blackHole(try renderer.encode(try renderer.render(try decode(photo), style: style)))
        }
    }
    let headroomAndRegion = { (photo: Data) in try renderer.decode(photo, for: style) }
    let draftWhole = { (photo: Data) in try draftRenderer.decode(photo, targetSize: style.targetSize) }

    let count = Double(photos.count)
    let current = try medianSeconds(repetitions: 9) { try runPipeline(style: style, headroomAndRegion) }
    let todays = try medianSeconds(repetitions: 9) { try runPipeline(style: todaysStyle, draftWhole) }
    let fullDecode = try medianSeconds(repetitions: 5) {
        try runPipeline(style: style) { try renderer.decode($0, targetSize: nil) }
    }
    table.add(
        "avatar pipeline jpeg 512px-10MP -> circle 96 png (mean)", unit: "ms", median: current / count * 1e3,
        baseline: "today's: draft decode, whole, box < 2x", baselineMedian: todays / count * 1e3, target: 1
    )
    // The same two paths alternating, timed by this thread's CPU clock: a busy machine's other processes
    // then shift both sides alike and preemption does not count.
    let (currentCPU, todaysCPU) = try interleavedMedianCPUSeconds(repetitions: 15) {
        try runPipeline(style: style, headroomAndRegion)
    } and: {
        try runPipeline(style: todaysStyle, draftWhole)
    }
    table.add(
        "avatar pipeline (mean, thread CPU, interleaved)", unit: "ms", median: currentCPU / count * 1e3,
        baseline: "today's: draft decode, whole, box < 2x", baselineMedian: todaysCPU / count * 1e3, target: 1
    )
    table.add(
        "avatar pipeline, 2x headroom + region decode (mean)", unit: "ms", median: current / count * 1e3,
        baseline: "full decode, then resize (same set)", baselineMedian: fullDecode / count * 1e3
    )
    try addAvatarQualityRow(
        table, photos: photos, references: references, current: headroomAndRegion, draft: draftWhole,
        todaysResize: todaysResize
    )

    try addProgressiveRows(table, photos: progressivePhotos, references: references)

    let named = { (prefix: String, set: [Data]) in
        set.enumerated().map { PillowAvatarComparison.Photo(name: "\(prefix)-\($0)", data: $1, reference: $0) }
    }
    try await addUtilRow(table, photos: photos + progressivePhotos, renderer: renderer, style: style)

    try PillowAvatarComparison(
        photos: named("baseline", photos) + named("progressive", progressivePhotos), references: references,
        renderer: renderer, style: style
    ).addRows(to: table)

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

/// The same avatars through `ImageUtil` (an in-memory loader; `.hybrid(.image)` over a scratch disk cache; each ask a
/// new version, so a miss) against `VariantRenderer` alone: what the pipeline's stages and hand-offs add to the work,
/// with the placeholder each download makes in the background (a small decode of the whole photo). Wall-clock time,
/// samples alternating; the background writes are awaited between samples, untimed.
private func addUtilRow(
    _ table: BenchmarkTable, photos: [Data], renderer: VariantRenderer, style: AvatarStyle
) async throws {
    let urls = photos.indices.map { URL(string: "https://cdn.example.com/photos/\($0).jpg")! }
    let loader = InMemoryFilesLoader(files: Dictionary(uniqueKeysWithValues: zip(urls.map(\.absoluteString), photos)))
    let directory = try makeScratchDirectory("avatar-util")
    defer { try? FileManager.default.removeItem(at: directory) }
    let manager = try AssetsManager(configuration: .init(disk: .init(directory: directory), loader: loader))
    let util = ImageUtil(manager: manager)
    var version = 0
    var utilSamples: [Double] = []
    var rendererSamples: [Double] = []
    for sample in 0..<8 {
        var start = now()
        for url in urls {
            version += 1
            blackHole(try await util.image(for: AssetRequest(url: url, version: String(version)), style: style))
        }
        let throughUtil = now() - start
        await manager.waitForPendingWrites()
        start = now()
        for photo in photos {
            blackHole(try renderer.encode(try renderer.render(try renderer.decode(photo, for: style), style: style)))
        }
        if sample > 0 {
            utilSamples.append(throughUtil)
            rendererSamples.append(now() - start)
        }
    }
    let count = Double(photos.count)
    table.add(
        "avatars through ImageUtil, both sets (mean, wall)", unit: "ms", median: median(utilSamples) / count * 1e3,
        baseline: "VariantRenderer alone (decode, render, encode)",
        baselineMedian: median(rendererSamples) / count * 1e3
    )
}

/// The avatar set as progressive JPEGs (libjpeg's standard script: 10 scans): the pipeline's mean time when the
/// decode reads only the scans the avatar's DCT scale shows, against decoding every scan, and the avatars' PSNR
/// against a Lanczos3 reduction of the full-resolution image (the two are equal pixel for pixel by construction:
/// every coefficient the reduced IDCT reads still arrives at full precision).
private func addProgressiveRows(_ table: BenchmarkTable, photos: [Data], references: [Image]) throws {
    let style = AvatarStyle.circle(diameter: 96)
    let limited = VariantRenderer()
    var everyScan = VariantRenderer()
    var decoder = JPEGDecoder()
    decoder.skipsUnneededScans = false
    everyScan.codecs.register(decoder)
    func runPipeline(_ renderer: VariantRenderer) throws {
        for photo in photos {
            blackHole(try renderer.encode(try renderer.render(try renderer.decode(photo, for: style), style: style)))
        }
    }
    let count = Double(photos.count)
    let (limitedCPU, everyScanCPU) = try interleavedMedianCPUSeconds(repetitions: 9) {
        try runPipeline(limited)
    } and: {
        try runPipeline(everyScan)
    }
    table.add(
        "avatar pipeline, progressive jpeg set (mean, CPU)", unit: "ms", median: limitedCPU / count * 1e3,
        baseline: "decoding every scan", baselineMedian: everyScanCPU / count * 1e3
    )
    let resize = ImageProcessors.Resize.aspectFillCrop(size: .square(96))
    var limitedPSNR: [Double] = []
    var everyScanPSNR: [Double] = []
    for (photo, reference) in zip(photos, references) {
        limitedPSNR.append(psnr(try resize.process(try limited.decode(photo, for: style)), reference))
        everyScanPSNR.append(psnr(try resize.process(try everyScan.decode(photo, for: style)), reference))
    }
    let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
    table.add(
        "progressive avatar 96 px PSNR, scan-limited (mean dB)", unit: "dB", median: mean(limitedPSNR),
        baseline: "decoding every scan", baselineMedian: mean(everyScanPSNR)
    )
}

/// The 96 px aspect-fill avatars against `referenceAvatar` of the full-resolution image: the mean PSNR over the
/// set (higher is sharper and truer) of this path and of today's; the draft decode with this resampler is
/// printed beside them.
private func addAvatarQualityRow(
    _ table: BenchmarkTable, photos: [Data], references: [Image], current: (Data) throws -> Image,
    draft: (Data) throws -> Image, todaysResize: ImageProcessors.Resize
) throws {
    let resize = ImageProcessors.Resize.aspectFillCrop(size: .square(96))
    var currentPSNR: [Double] = []
    var todaysPSNR: [Double] = []
    var draftPSNR: [Double] = []
    for (photo, reference) in zip(photos, references) {
        currentPSNR.append(psnr(try resize.process(try current(photo)), reference))
        todaysPSNR.append(psnr(try todaysResize.process(try draft(photo)), reference))
        draftPSNR.append(psnr(try resize.process(try draft(photo)), reference))
    }
    let detail = (0..<photos.count).map {
        String(format: "%.1f/%.1f/%.1f", currentPSNR[$0], todaysPSNR[$0], draftPSNR[$0])
    }
    print(
        "avatar PSNR per photo (this path / today's / draft decode + this resampler), dB: "
            + detail.joined(separator: " ")
    )
    let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
    table.add(
        "avatar 96 px PSNR vs full-res Lanczos3 (mean dB)", unit: "dB", median: mean(currentPSNR),
        baseline: "today's: draft decode, whole, box < 2x", baselineMedian: mean(todaysPSNR)
    )
}

/// Runs `first` and `second` in turn `repetitions` times (after one warm-up each) and returns the median CPU
/// seconds of this thread for each.
private func interleavedMedianCPUSeconds(
    repetitions: Int, _ first: () throws -> Void, and second: () throws -> Void
) throws -> (Double, Double) {
    try first()
    try second()
    var firstSamples: [Double] = []
    var secondSamples: [Double] = []
    for _ in 0..<repetitions {
        var start = threadCPUSeconds()
        try first()
        firstSamples.append(threadCPUSeconds() - start)
        start = threadCPUSeconds()
        try second()
        secondSamples.append(threadCPUSeconds() - start)
    }
    return (median(firstSamples), median(secondSamples))
}
