import Foundation

extension ImageCodecRegistry {
    /// What the headers of `data` say about its animation (format, canvas, frame count, loop count), without
    /// decoding any frame: GIF's blocks are walked to the trailer with no pixel decompressed, animated WebP's
    /// container is parsed by libwebpdemux. A still image, and a format without animation headers (JPEG, PNG,
    /// HEIF, a decoder you register), is one frame of its upright size.
    ///
    /// This is how to learn an animation's size before deciding to decode it; a truncated GIF or WebP
    /// container is refused here.
    ///
    /// - Throws: `ImageError`
    /// - Complexity: O(encoded bytes) for GIF (a copy of each block, no decompression); O(header) otherwise.
    public func animationInfo(of data: Data) throws -> AnimationInfo {
        let decoder = try decoder(for: data)
        if let animated = decoder as? any AnimationFrameSourceMaking {
            return try animated.animationInfo(of: data)
        }
        let header = try header(of: data)
        return AnimationInfo(format: header.format, canvas: header.orientedSize, frameCount: 1, loopCount: 0)
    }

    /// A source decoding the frames of `data` (whose headers said `info`) one at a time; a still image, or a
    /// format without a frame reader, is one frame decoded toward `options.targetSize`.
    func makeFrameSource(
        _ data: Data, info: AnimationInfo, options: ImageDecodingOptions
    ) throws -> any AnimationFrameSource {
        let decoder = try decoder(for: data)
        if let animated = decoder as? any AnimationFrameSourceMaking {
            return try animated.makeFrameSource(data, info: info, options: options)
        }
        return StillFrameSource(info: info) { try decoder.decode(data, options: options) }
    }
}
