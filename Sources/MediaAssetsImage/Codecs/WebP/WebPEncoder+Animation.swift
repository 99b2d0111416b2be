import Foundation

extension WebPEncoder {
    /// An animated WebP of `animation`: every frame encoded by libwebp as `compression` says, wrapped in the
    /// WebP container's `VP8X`, `ANIM` and `ANMF` chunks (full-canvas frames, no blending, no disposal).
    ///
    /// Only the container is written here; every bitstream comes from libwebp. Frame durations are rounded
    /// to milliseconds (at most 16777215 ms each); `loopCount` 0 loops forever.
    ///
    /// - Throws: `ImageError.encodingFailed`, `.libraryMissing`.
    public func encode(_ animation: AnimatedImage) throws -> Data {
        let canvas = animation.size
        var body = Data("WEBP".utf8)
        let hasAlpha = animation.frames.contains { $0.image.hasTransparency }
        var header = Data([0x02 | (hasAlpha ? 0x10 : 0), 0, 0, 0])
        header.append(Self.uint24(canvas.width - 1))
        header.append(Self.uint24(canvas.height - 1))
        body.append(Self.chunk("VP8X", header))
        let loops = min(max(0, animation.loopCount), 0xFFFF)
        body.append(Self.chunk("ANIM", Data([0, 0, 0, 0, UInt8(loops & 0xFF), UInt8(loops >> 8)])))
        for frame in animation.frames {
            var payload = Data()
            payload.append(Self.uint24(0))
            payload.append(Self.uint24(0))
            payload.append(Self.uint24(canvas.width - 1))
            payload.append(Self.uint24(canvas.height - 1))
            let milliseconds =
                frame.duration.components.seconds * 1000
                + frame.duration.components.attoseconds / 1_000_000_000_000_000
            payload.append(Self.uint24(Int(min(max(0, milliseconds), 0xFF_FFFF))))
            payload.append(0b10)  // do not blend: each frame is the whole canvas
            payload.append(try Self.frameChunks(of: encode(frame.image)))
            body.append(Self.chunk("ANMF", payload))
        }
        return Self.chunk("RIFF", body)
    }

    /// The bitstream chunks (`ALPH`, `VP8 `, `VP8L`) of a still WebP file, without its RIFF header and `VP8X`.
    private static func frameChunks(of file: Data) throws -> Data {
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
