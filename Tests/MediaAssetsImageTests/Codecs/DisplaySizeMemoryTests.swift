import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

#if canImport(Glibc)
import Glibc
#endif

/// Whether this process runs under AddressSanitizer (its runtime exports `__asan_init`): its redzones and
/// quarantine change every peak.
enum AddressSanitizerProbe {
    static let isActive = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
}

/// A 96 px avatar of a 12 MP photo costs about its output, not the photo's 48 MB of pixels: measured in a child
/// process (`memory-probe decode`: the file's bytes read first, then the decode and render of `.circle(diameter: 96)`,
/// its resident high-water mark above where it stood), for every format that decodes at display size, and the
/// two documented exceptions.
@Suite(
    "Display-size decoding peak memory (child process)",
    .enabled(
        if: HelperProcess.isBuilt("memory-probe"),
        "needs memory-probe built beside the tests: swift build --build-tests"),
    .disabled(if: ThreadSanitizerProbe.isActive || AddressSanitizerProbe.isActive, "sanitizers change every peak"),
    .offThePool)
struct DisplaySizeMemoryTests {
    /// The target of the issue: at most 16 MiB above the process holding the file's bytes.
    static let budget = 16 << 20
    static let size = PixelSize(width: 4000, height: 3000)

    /// A 12 MP opaque picture that compresses like a soft photo: gradients and a little texture.
    static let photo: Image = {
        let (width, height) = (size.width, size.height)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    let texture = (x ^ y) & 15
                    buffer[offset] = UInt8(truncatingIfNeeded: x * 200 / width + texture)
                    buffer[offset + 1] = UInt8(truncatingIfNeeded: y * 200 / height + texture)
                    buffer[offset + 2] = UInt8(truncatingIfNeeded: (x + y) * 100 / (width + height) + 60)
                }
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }()

    /// Makes the file to decode on a thread of its own: the 12 MP picture and its encoding are seconds of CPU in a
    /// debug build, which on the cooperative pool would hold up every other test.
    static func peak(of file: @escaping @Sendable () throws -> Data) async throws -> (growth: Int, decoded: PixelSize) {
        try await peak(of: try await onOwnThread("12 MP fixture", file))
    }

    /// Writes `data` to a file of its own, runs `memory-probe decode` on it for a 96 px circle and returns how far the
    /// probe's peak rose and the size it decoded.
    static func peak(of data: Data) async throws -> (growth: Int, decoded: PixelSize) {
        let directory = try TemporaryDirectory("DisplaySizeMemory")
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("photo").path
        try data.write(to: URL(fileURLWithPath: path))
        let outcome = try await HelperProcess.run("memory-probe", ["decode", path, "--circle", "96"])
        try #require(outcome.status == 0, "memory-probe failed: \(outcome.output)")
        // "peak-growth <bytes> size <width> <height>"
        let fields = outcome.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(fields.count == 3, "unexpected output: \(outcome.output)")
        return (fields[0], PixelSize(width: fields[1], height: fields[2]))
    }

    @Test("a 96 px avatar of a 12 MP PNG (not interlaced) stays within 16 MiB")
    func png() async throws {
        let (growth, decoded) = try await Self.peak { try DisplaySizeFixtures.png(Self.photo, interlaced: false) }
        #expect(growth <= Self.budget, "peak grew by \(growth >> 20) MiB")
        #expect(decoded.height >= 192 && decoded.height < 400)
    }

    @Test("a 96 px avatar of a 12 MP lossy WebP stays within 16 MiB", .enabled(if: CodecAvailability.webp))
    func webp() async throws {
        let (growth, decoded) = try await Self.peak { try WebPFixtures.lossy(Self.photo, quality: 80) }
        #expect(growth <= Self.budget, "peak grew by \(growth >> 20) MiB")
        #expect(decoded.height >= 192 && decoded.height < 400)
    }

    @Test(
        "a 96 px avatar of a 12 MP HEIC carrying a 320×240 thumbnail stays within 16 MiB",
        .enabled(if: CodecAvailability.heif))
    func heicWithThumbnail() async throws {
        let (growth, decoded) = try await Self.peak {
            let thumbnail = try ImageProcessors.Resize(size: PixelSize(width: 320, height: 240)).process(Self.photo)
            return try DisplaySizeFixtures.heic(Self.photo, thumbnail: thumbnail)
        }
        #expect(growth <= Self.budget, "peak grew by \(growth >> 20) MiB")
        #expect(decoded == PixelSize(width: 240, height: 240), "the thumbnail's centred square")
    }

    @Test("the documented exception: an interlaced 12 MP PNG costs its whole image (4 bytes a pixel), no more")
    func interlacedPNG() async throws {
        let (growth, _) = try await Self.peak { try DisplaySizeFixtures.png(Self.photo, interlaced: true) }
        let wholeImage = Self.size.width * Self.size.height * 4
        #expect(growth > Self.budget && growth <= wholeImage + Self.budget, "peak grew by \(growth >> 20) MiB")
    }
}
