import Foundation

/// Writes the RIFF container of an animated WebP around bitstreams libwebp encoded (the container is a few
/// chunk headers; no pixel is coded here). Used by `WebPEncoder.encode(_:)` for animations and by tests.
package enum WebPContainer {
    /// One `ANMF` frame: its bitstream chunks placed at (`x`, `y`), shown for `milliseconds`.
    package struct Frame {
        package var chunks: Data
        package var x: Int
        package var y: Int
        package var width: Int
        package var height: Int
        package var milliseconds: Int
        /// Bit 1: do not blend; bit 0: dispose to background.
        package var flags: UInt8

        /// Creates a frame.
        package init(chunks: Data, x: Int, y: Int, width: Int, height: Int, milliseconds: Int, flags: UInt8) {
            self.chunks = chunks
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.milliseconds = milliseconds
            self.flags = flags
        }
    }

    /// An animated WebP file: `VP8X` (animation, alpha), `ANIM` (loop count, 0 = forever), then the frames.
    package static func animation(canvas: PixelSize, hasAlpha: Bool, loopCount: Int, frames: [Frame]) -> Data {
        var frameChunks = Data()
        for frame in frames { frameChunks.append(frameChunk(frame)) }
        return animation(canvas: canvas, hasAlpha: hasAlpha, loopCount: loopCount, frameChunks: frameChunks)
    }

    /// An animated WebP file around `frameChunks`, the `ANMF` chunks of its frames (`frameChunk(_:)`) in order.
    package static func animation(canvas: PixelSize, hasAlpha: Bool, loopCount: Int, frameChunks: Data) -> Data {
        var body = Data("WEBP".utf8)
        var header = Data([0x02 | (hasAlpha ? 0x10 : 0), 0, 0, 0])
        header.append(uint24(canvas.width - 1))
        header.append(uint24(canvas.height - 1))
        body.append(chunk("VP8X", header))
        let loops = min(max(0, loopCount), 0xFFFF)
        body.append(chunk("ANIM", Data([0, 0, 0, 0, UInt8(loops & 0xFF), UInt8(loops >> 8)])))
        body.append(frameChunks)
        return chunk("RIFF", body)
    }

    /// The `ANMF` chunk of one frame.
    package static func frameChunk(_ frame: Frame) -> Data {
        var payload = Data()
        payload.append(uint24(frame.x / 2))
        payload.append(uint24(frame.y / 2))
        payload.append(uint24(frame.width - 1))
        payload.append(uint24(frame.height - 1))
        payload.append(uint24(min(max(0, frame.milliseconds), 0xFF_FFFF)))
        payload.append(frame.flags)
        payload.append(frame.chunks)
        return chunk("ANMF", payload)
    }

    /// The bitstream chunks (`ALPH`, `VP8 `, `VP8L`) of a still WebP file, without its RIFF header and `VP8X`.
    ///
    /// - Throws: `ImageError.encodingFailed` when a chunk runs past the end.
    package static func bitstreamChunks(of file: Data) throws -> Data {
        let bytes = Array(file)
        var offset = 12
        var chunks = Data()
        while offset + 8 <= bytes.count {
            let fourCC = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size =
                Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let end = offset + 8 + size + size % 2
            guard end <= bytes.count else {
                throw ImageError.encodingFailed(format: .webp, reason: "libwebp wrote a chunk past the file's end")
            }
            if fourCC != "VP8X" { chunks.append(contentsOf: bytes[offset..<end]) }
            offset = end
        }
        return chunks
    }

    private static func chunk(_ fourCC: String, _ payload: Data) -> Data {
        var data = Data(fourCC.utf8)
        let size = payload.count
        data.append(contentsOf: [
            UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24),
        ])
        data.append(payload)
        if size % 2 == 1 { data.append(0) }
        return data
    }

    private static func uint24(_ value: Int) -> Data {
        Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)])
    }
}
