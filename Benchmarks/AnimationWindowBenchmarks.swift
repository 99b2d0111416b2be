import Foundation
import MediaAssetsImage

/// The frame window (`AnimationFrames`) against a whole decode (`AnimatedImage`) of the same 200-frame
/// 1000×1000 GIF at 200 px: peak memory and time per frame, each run in a process of its own (as the burst
/// rows are) so that neither inherits the other's heap. A whole decode at full size would hold 800 MB and is
/// refused by the default limits; at 200 px it holds every reduced frame.
func runAnimationWindowBenchmarks(table: BenchmarkTable) async throws {
    guard case .success = GIFLibrary.system else {
        print("(animation-window rows skipped: libgif.so.7 is not installed)")
        return
    }
    var window: [(seconds: Double, peakGrowth: Double)] = []
    var whole: [(seconds: Double, peakGrowth: Double)] = []
    for _ in 0..<3 {
        window.append(try runBenchmarkChild(["--animation-window", "window"]))
        whole.append(try runBenchmarkChild(["--animation-window", "whole"]))
    }
    table.add(
        "gif 200×1000² at 200 px: window, peak RSS growth", unit: "MiB",
        median: median(window.map(\.peakGrowth)) / 1_048_576,
        baseline: "AnimatedImage at 200 px", baselineMedian: median(whole.map(\.peakGrowth)) / 1_048_576
    )
    table.add(
        "gif 200×1000² at 200 px: window, per frame", unit: "ms",
        median: median(window.map(\.seconds)) / Double(animationWindowFrames) * 1e3,
        baseline: "AnimatedImage at 200 px, per frame",
        baselineMedian: median(whole.map(\.seconds)) / Double(animationWindowFrames) * 1e3
    )
}

private let animationWindowFrames = 200

/// The child side: `benchmarks --animation-window window|whole` plays (or decodes whole) every frame of the GIF
/// at 200 px and prints the seconds it took and how far the peak resident size rose while it did.
func runAnimationWindowInThisProcess(mode: String) async throws {
    let options = ImageDecodingOptions(targetSize: .square(200))
    // Warm-up: giflib loaded, the cooperative pool's threads started.
    let small = try GIFWriter().bands(side: 64, frameCount: 3)
    for try await frame in try AnimationFrames(data: small, options: options).prefix(3) { blackHole(frame) }

    let gif = try GIFWriter().bands(side: 1000, frameCount: animationWindowFrames)
    let before = currentResidentMemory()
    resetPeakResidentMemory()
    let start = now()
    var frames = 0
    switch mode {
    case "window":
        for try await frame in try AnimationFrames(data: gif, options: options).prefix(animationWindowFrames) {
            blackHole(frame)
            frames += 1
        }
    default:
        var whole = options
        whole.maxAnimationPixelCount = .max
        frames = try ImageCodecRegistry.standard.decodeAnimation(gif, options: whole).frames.count
    }
    let seconds = now() - start
    guard frames == animationWindowFrames else { throw BenchmarkError("\(mode) made \(frames) frames") }
    print(seconds, peakResidentMemory() - before)
}
