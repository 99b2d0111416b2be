import Foundation

@testable import MediaAssetsImage

/// WebP files for tests: stills encoded through libwebp, animations assembled as a RIFF container around
/// frames libwebp encoded (the container is a few chunk headers; every bitstream comes from libwebp).
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
        var body = Data("WEBP".utf8)
        var vp8x = Data([0x12, 0, 0, 0])  // animation + alpha
        vp8x.append(uint24(canvas.width - 1))
        vp8x.append(uint24(canvas.height - 1))
        body.append(chunk("VP8X", vp8x))
        body.append(chunk("ANIM", Data([0, 0, 0, 0, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8)])))
        var encodedFrames: [Data: Data] = [:]
        for frame in frames {
            let encoded = try encodedFrames[Data(frame.image.pixels)] ?? bitstreamChunks(lossless(frame.image))
            encodedFrames[Data(frame.image.pixels)] = encoded
            var anmf = Data()
            anmf.append(uint24(frame.x / 2))
            anmf.append(uint24(frame.y / 2))
            anmf.append(uint24(frame.image.width - 1))
            anmf.append(uint24(frame.image.height - 1))
            anmf.append(uint24(frame.milliseconds))
            anmf.append(frame.flags)
            anmf.append(encoded)
            body.append(chunk("ANMF", anmf))
        }
        return chunk("RIFF", body)
    }

    /// The chunks after `RIFF size WEBP` of a still file (its VP8L or ALPH+VP8 chunks).
    static func bitstreamChunks(_ file: Data) -> Data { Data(file.dropFirst(12)) }

    static func chunk(_ fourCC: String, _ payload: Data) -> Data {
        var data = Data(fourCC.utf8)
        let size = payload.count
        data.append(contentsOf: [
            UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24),
        ])
        data.append(payload)
        if size % 2 == 1 { data.append(0) }
        return data
    }

    static func uint24(_ value: Int) -> Data {
        Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)])
    }
}
