import Foundation
import MediaAssetsImage

// The child process of the peak-memory tests: does one piece of work after a warm-up and prints how far its
// resident high-water mark rose above its resident size just before the work, so a test asserts a peak that
// no other test's allocations blur.
//
//   memory-probe gif-window SIDE FRAMES TARGET [PLAYED]   plays the first PLAYED frames (default: all) of a
//                                                         SIDE×SIDE GIF of FRAMES frames through
//                                                         AnimationFrames at TARGET px
//   memory-probe gif-whole SIDE FRAMES TARGET             decodes the same GIF whole (AnimatedImage) at
//                                                         TARGET px
//
// Output: `peak-growth <bytes> frames <count>`.

/// Resets the kernel's resident high-water mark of this process (Linux `clear_refs`).
func resetPeakResidentMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// A `/proc/self/status` field in bytes (`VmHWM`, `VmRSS`).
func statusBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
    else { return 0 }
    return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1_024
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard (4...5).contains(arguments.count), let side = Int(arguments[1]), let frameCount = Int(arguments[2]),
    let target = Int(arguments[3]), let played = arguments.count == 5 ? Int(arguments[4]) : frameCount
else {
    FileHandle.standardError.write(
        Data("usage: memory-probe gif-window|gif-whole SIDE FRAMES TARGET [PLAYED]\n".utf8))
    exit(2)
}
let options = ImageDecodingOptions(targetSize: .square(target), maxFrameCount: 100_000)

// Warm-up: giflib loaded, the cooperative pool's threads started, the resampler's code paged in.
let small = try GIFWriter().bands(side: 64, frameCount: 3)
for try await frame in try AnimationFrames(data: small, options: options).prefix(3) { _ = frame.image.cost }

let gif = try GIFWriter().bands(side: side, frameCount: frameCount)
var frames = 0
let before = statusBytes("VmRSS")
resetPeakResidentMemory()
switch arguments[0] {
case "gif-window":
    for try await frame in try AnimationFrames(data: gif, options: options).prefix(played) {
        frames += frame.image.width > 0 ? 1 : 0
    }
case "gif-whole":
    var whole = options
    whole.maxAnimationPixelCount = Int.max
    frames = try ImageCodecRegistry.standard.decodeAnimation(gif, options: whole).frames.count
default:
    FileHandle.standardError.write(Data("unknown mode \(arguments[0])\n".utf8))
    exit(2)
}
print("peak-growth \(statusBytes("VmHWM") - before) frames \(frames)")
