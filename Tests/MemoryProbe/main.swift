import Foundation
import MediaAssetsImage

// The child process of the peak-memory tests: does one piece of work after a warm-up and prints how far its
// resident high-water mark rose above its resident size just before the work, so a test asserts a peak that
// no other test's allocations blur.
//
//   memory-probe decode FILE [--circle SIZE] [--headroom H]
//       reads FILE, then decodes it for a `.circle(diameter: SIZE)` avatar and renders it as `ImageUtil` does on
//       a miss (`VariantRenderer`: the style's target size and region), or at full size without `--circle`.
//       Output: `peak-growth <bytes> size <decoded width> <decoded height>`.
//   memory-probe gif-window SIDE FRAMES TARGET [PLAYED]
//       plays the first PLAYED frames (default: all) of a SIDE×SIDE GIF of FRAMES frames through
//       AnimationFrames at TARGET px. Output: `peak-growth <bytes> frames <count>`.
//   memory-probe gif-whole SIDE FRAMES TARGET
//       decodes the same GIF whole (AnimatedImage) at TARGET px. Output as gif-window's.
//
// Exit status 1 with the error on standard error when the work throws, 2 for a usage error.

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

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            ("usage: memory-probe decode FILE [--circle SIZE] [--headroom H]\n"
                + "       memory-probe gif-window|gif-whole SIDE FRAMES TARGET [PLAYED]\n").utf8))
    exit(2)
}

/// Runs `work` after `warmUp` and prints the peak growth above the resident size just before it.
func measure(_ warmUp: () async throws -> Void, _ work: () async throws -> String) async {
    do {
        try await warmUp()
        let before = statusBytes("VmRSS")
        resetPeakResidentMemory()
        let result = try await work()
        print("peak-growth \(statusBytes("VmHWM") - before) \(result)")
    } catch {
        FileHandle.standardError.write(Data("memory-probe: \(error)\n".utf8))
        exit(1)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

switch arguments.first {
case "decode":
    guard arguments.count > 1 else { usage() }
    var renderer = VariantRenderer()
    if let headroom = option("--headroom").flatMap(Double.init) {
        renderer.decodingOptions.downsamplingHeadroom = headroom
    }
    let style = option("--circle").flatMap(Int.init).map { AvatarStyle.circle(diameter: $0) }
    var data = Data()
    await measure {
        data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
        // What every decode loads once (the codec libraries, their tables) stays outside the measurement.
        _ = try? ImageDecoder.header(of: data)
    } _: {
        let decoded = try style.map { try renderer.decode(data, for: $0) } ?? renderer.decode(data, targetSize: nil)
        if let style { _ = try renderer.render(decoded, style: style) }
        return "size \(decoded.width) \(decoded.height)"
    }
case "gif-window", "gif-whole":
    guard (4...5).contains(arguments.count), let side = Int(arguments[1]), let frameCount = Int(arguments[2]),
        let target = Int(arguments[3]), let played = arguments.count == 5 ? Int(arguments[4]) : frameCount
    else { usage() }
    let options = ImageDecodingOptions(targetSize: .square(target), maxFrameCount: 100_000)
    var gif = Data()
    await measure {
        // giflib loaded, the cooperative pool's threads started, the resampler's code paged in.
        let small = try GIFWriter().bands(side: 64, frameCount: 3)
        for try await frame in try AnimationFrames(data: small, options: options).prefix(3) { _ = frame.image.cost }
        gif = try GIFWriter().bands(side: side, frameCount: frameCount)
    } _: {
        var frames = 0
        if arguments[0] == "gif-window" {
            for try await frame in try AnimationFrames(data: gif, options: options).prefix(played) {
                frames += frame.image.width > 0 ? 1 : 0
            }
        } else {
            var whole = options
            whole.maxAnimationPixelCount = Int.max
            frames = try ImageCodecRegistry.standard.decodeAnimation(gif, options: whole).frames.count
        }
        return "frames \(frames)"
    }
default:
    usage()
}
