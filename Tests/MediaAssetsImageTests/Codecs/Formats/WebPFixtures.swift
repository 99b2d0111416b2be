import Foundation

@testable import MediaAssetsImage

/// WebP files for tests: stills encoded through libwebp, animations assembled by `WebPContainer` around frames
/// libwebp encoded, placed anywhere on the canvas (which `WebPEncoder` never does), so hostile layouts can be
/// written too.
enum WebPFixtures {
    /// A frame of an animation: pixels at an offset, shown for `milliseconds`.
    struct Frame {
        var image: Image
        var x = 0
        var y = 0
        var milliseconds = 100
        /// ANMF flags: bit 1 set = do not blend, bit 0 set = dispose to background.
        var flags: UInt8 = 0b10
    }

    static func lossless(_ image: Image) throws -> Data {
        try WebPEncoder(compression: .lossless).encode(image)
    }

    static func lossy(_ image: Image, quality: Int = 90) throws -> Data {
        try WebPEncoder(compression: .lossy(quality: quality)).encode(image)
    }

    /// An animated WebP of `frames` on a `canvas`-sized canvas, looping `loopCount` times (0 = forever).
    static func animated(canvas: PixelSize, frames: [Frame], loopCount: Int = 0) throws -> Data {
        var encoded: [Data: Data] = [:]
        let containerFrames = try frames.map { frame in
            let key = Data(frame.image.pixels)
            let chunks = try encoded[key] ?? WebPContainer.bitstreamChunks(of: lossless(frame.image))
            encoded[key] = chunks
            return WebPContainer.Frame(
                chunks: chunks, x: frame.x, y: frame.y, width: frame.image.width, height: frame.image.height,
                milliseconds: frame.milliseconds, flags: frame.flags
            )
        }
        return WebPContainer.animation(canvas: canvas, hasAlpha: true, loopCount: loopCount, frames: containerFrames)
    }
}
