import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
//   memory-probe burst DIRECTORY [ASKS]
//       ASKS (default 10,000) concurrent `ImageUtil` asks over 1,000 generated 512×384 JPEGs served on loopback,
//       in three avatar styles, through a manager with the default configuration (128 MiB image partition, staged
//       writes bounded) caching in DIRECTORY, then `shutdown()`. Output: `peak-growth <bytes> partition <bytes>
//       requests <origin requests>`.
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
                + "       memory-probe gif-window|gif-whole SIDE FRAMES TARGET [PLAYED]\n"
                + "       memory-probe burst DIRECTORY [ASKS]\n").utf8))
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
case "burst":
    guard (2...3).contains(arguments.count) else { usage() }
    let asks = arguments.count == 3 ? Int(arguments[2]) ?? 10_000 : 10_000
    let origin = SampleOrigin()
    var util: ImageUtil?
    await measure {
        try origin.start()
        // 50 distinct pictures behind 1,000 URLs, as the benchmark's burst: every URL is its own download and decode.
        let jpegs = try (0..<50).map { seed in try ImageEncoder.jpeg(burstPicture(seed: seed), quality: 85) }
        for index in 0..<1_000 {
            origin.register("/burst/\(index).jpg", data: jpegs[index % 50], contentType: "image/jpeg")
        }
        var configuration = AssetsManager.Configuration(disk: .init(directory: URL(fileURLWithPath: arguments[1])))
        // The default loader's session, but patient: on a busy machine an ask can wait past its 60 s for a turn.
        let session = URLSessionConfiguration.ephemeral
        session.httpMaximumConnectionsPerHost = 16
        session.timeoutIntervalForRequest = 600
        configuration.loader = URLSessionLoader(configuration: session)
        // The peak is what is measured, not the time: the executor's threads keep the process's own priority, so
        // beside CI's CPU hog the burst takes its share of the cores instead of a tenth of it (nice 10).
        configuration.executor = .threads(ProcessInfo.processInfo.activeProcessorCount, niceness: 0)
        util = ImageUtil(manager: try AssetsManager(configuration: configuration))
    } _: {
        guard let util else { return "" }
        let styles: [AvatarStyle] = [.circle(diameter: 96), .circle(diameter: 48), .rectangle(size: .square(64))]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for ask in 0..<asks {
                let url = origin.url(for: "/burst/\(ask % 1_000).jpg")
                let style = styles[(ask / 1_000) % styles.count]
                group.addTask { _ = try await util.image(for: url, style: style) }
            }
            try await group.waitForAll()
        }
        await util.manager.shutdown()
        let partition = AssetsManager.Configuration.defaultPartitions[.image]?.costLimit ?? 0
        return "partition \(partition) requests \(origin.totalRequestCount)"
    }
    origin.stop()
default:
    usage()
}

/// A 512×384 opaque picture: gradients, a disc and a little texture, different for each seed.
func burstPicture(seed: Int) -> Image {
    let (width, height) = (512, 384)
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    pixels.withUnsafeMutableBufferPointer { buffer in
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                let dx = x - (seed * 37) % width
                let dy = y - (seed * 53) % height
                let inDisc = dx * dx + dy * dy < 90 * 90
                buffer[offset] = UInt8(truncatingIfNeeded: x / 2 + seed * 5 + ((x ^ y) & 7))
                buffer[offset + 1] = UInt8(truncatingIfNeeded: inDisc ? 220 - y / 4 : y / 2 + seed * 3)
                buffer[offset + 2] = UInt8(truncatingIfNeeded: (x + y) / 4 + seed)
            }
        }
    }
    return Image(width: width, height: height, pixels: pixels)
}
