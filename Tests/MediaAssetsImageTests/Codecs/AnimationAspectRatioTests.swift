import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

/// A canvas far longer than it is wide, read frame by frame toward a small target: covering the target keeps
/// the canvas's aspect ratio, so each reduced frame would be a strip of millions of pixels resampled per frame.
/// Such a canvas is refused from its headers when its frames would be reduced (`maxAspectRatio`).
@Suite(
    "Animation aspect ratio bound",
    .enabled(if: CodecAvailability.webpDemux, "install libwebp7, libwebpdemux2"), .offThePool)
struct AnimationAspectRatioTests {
    /// The fuzz input (Fuzz/Regressions/animation-frames): a 362-byte animated WebP declaring a 9×458759
    /// canvas (4,128,831 pixels) with three 9×7 lossless frames at its top. Made on each use: held in a global
    /// initialised on the suite's executor thread, LeakSanitizer reported its storage as leaked at exit.
    static var tallStrip: Data {
        Data(
            base64Encoded: """
                UklGRmIBAABXRUJQVlA4WAoAAAASAAAACAAABgAHQU5JTQYAAAAAAAAAAgBBTk1GTAAAAAAAAAAAAAgAAAYAACgAAAJWUDhMNAAA\
                AC8IgAEAzWRE/2NT9yh4/wMK2rZhgqflz7C7CAQCKczkBQLJJvlTHgSTNNV2DCIslSv26zFBTk1GjgAAAAAAAAAAAAgAAAYAACgA\
                AAJWUDhMdgAAAC8IgAEQmQpE9D82BJK2eNtfieh/3MCwbdtIGsf52rv9p2umSBS1bQOnTKO/7lDctm0cy1+yexJk2+Ke5DtBA2aE\
                8zvGaGIabdRowzAQrJQLo3HCMCoIlRAwSUFNgAunIKeH+8oWMCHWRdOTg1HQ44eCAwlBOwNBTk1GTAAAAAAAAAAAAAgAAAYAACgA\
                AAJWUDhMNAAAAC8IgAEAzWRE/2NT9yh4/wMK2rZhgqflz7C7CAQCKczkBQLJJvlTHgSTNNV2DCIslSv26zE=
                """)!
    }

    /// The fuzz target's options: a 4 Mpx canvas limit and a 7×5 target.
    static let fuzzOptions = ImageDecodingOptions(maxPixelCount: 1 << 22, targetSize: PixelSize(width: 7, height: 5))

    /// `tallStrip` with its VP8X canvas height set to `height` (the frames stay 9×7 at the top).
    static func strip(height: Int) -> Data {
        var bytes = Array(tallStrip)
        bytes.replaceSubrange(27..<30, with: [0, 8, 16].map { UInt8(truncatingIfNeeded: (height - 1) >> $0) })
        return Data(bytes)
    }

    /// Whether `error` is `.unsupported` for WebP, naming `canvas` and `frame`.
    static func isUnsupportedWebP(_ error: ImageError?, canvas: String, frame: String) -> Bool {
        guard case .unsupported(format: .webp, let reason) = error else { return false }
        return reason.contains(canvas) && reason.contains(frame)
    }

    @Test("a 9×458759 canvas reduced toward 7×5 is refused from its headers, no frame decoded")
    func hostileStripRefused() throws {
        // Given the fuzz input, whose frames reduced toward 7×5 would each be 7×356813 (2,497,691 pixels)
        let data = Self.tallStrip
        let info = try ImageCodecRegistry.standard.animationInfo(of: data)
        #expect(info.canvas == PixelSize(width: 9, height: 458_759) && info.frameCount == 3)
        #expect(
            AnimationFrameScaling.frameSize(canvas: info.canvas, target: Self.fuzzOptions.targetSize)
                == PixelSize(width: 7, height: 356_813))

        // When a reader or a frame window is made at the fuzz target's options
        let counter = AnimationFrameCounter()
        try AnimationFrameCounter.$current.withValue(counter) {
            // Then both refuse it with a typed error naming the canvas and the frame, before any frame is decoded
            let readerError = #expect(throws: ImageError.self) {
                try AnimationFrameReader(data: data, options: Self.fuzzOptions)
            }
            let windowError = #expect(throws: ImageError.self) {
                try AnimationFrames(data: data, options: Self.fuzzOptions)
            }
            #expect(Self.isUnsupportedWebP(readerError, canvas: "9×458759", frame: "7×356813"))
            #expect(Self.isUnsupportedWebP(windowError, canvas: "9×458759", frame: "7×356813"))
            // and without a target its frames are the canvas itself (not reduced): a reader is made
            let whole = try AnimationFrameReader(data: data, options: ImageDecodingOptions(maxPixelCount: 1 << 22))
            #expect(whole.frameSize == info.canvas)
        }
        #expect(counter.count == 0)
    }

    @Test("a canvas 1000 times as tall as wide is reduced; one pixel taller is refused")
    func boundIsInclusive() throws {
        // Given the same frames on a 9×9000 canvas (exactly maxAspectRatio) and a 9×9001 one
        #expect(AnimationFrameReader.maxAspectRatio == 1000)
        let atBound = Self.strip(height: 9000)
        let overBound = Self.strip(height: 9001)

        // When each is read toward 7×5
        let reader = try AnimationFrameReader(data: atBound, options: Self.fuzzOptions)
        var frames: [AnimatedImage.Frame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }

        // Then the first plays its 3 frames at 7×7000, and the second is refused before decoding
        #expect(reader.frameSize == PixelSize(width: 7, height: 7000))
        #expect(frames.count == 3)
        #expect(frames.allSatisfy { $0.image.width == 7 && $0.image.height == 7000 })
        let error = #expect(throws: ImageError.self) {
            try AnimationFrameReader(data: overBound, options: Self.fuzzOptions)
        }
        #expect(Self.isUnsupportedWebP(error, canvas: "9×9001", frame: "7×7001"))
    }
}
