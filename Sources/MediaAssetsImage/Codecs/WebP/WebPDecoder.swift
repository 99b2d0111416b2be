import CDynamicCodecs
import Foundation

/// Decodes WebP (lossy, lossless, alpha) through libwebp, and animated WebP through libwebpdemux, both loaded
/// at run time; a missing library throws `ImageError.libraryMissing` naming libwebp7 or libwebpdemux2.
package struct WebPDecoder: ImageDecoding {
    private let codec: Result<WebPLibrary, ImageError>
    let animation: Result<WebPDemuxLibrary, ImageError>

    /// Creates the decoder over the installed libwebp.so.7 and libwebpdemux.so.2.
    package init() {
        self.init(codec: WebPLibrary.system, animation: WebPDemuxLibrary.system)
    }

    /// A decoder over given loads (tests pass a bogus soname to simulate a missing library).
    package init(codec: Result<WebPLibrary, ImageError>, animation: Result<WebPDemuxLibrary, ImageError>) {
        self.codec = codec
        self.animation = animation
    }

    /// "webp".
    package var identifier: String { ImageFormat.webp.rawValue }

    /// Whether `data` starts with `RIFF????WEBP`.
    package func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .webp }

    /// The canvas size and whether it has alpha, from the VP8/VP8L/VP8X header.
    package func header(of data: Data) throws -> ImageHeader {
        let features = try features(of: data, library: codec.get())
        return ImageHeader(
            format: .webp, width: Int(features.width), height: Int(features.height), orientation: .identity,
            hasAlpha: features.has_alpha != 0
        )
    }

    /// `true`: libwebp crops a still image itself; the first frame of an animation is cut after decoding.
    package var decodesRegions: Bool { true }

    /// Decodes a still WebP at display size (see `decodeStill`), or the first frame of an animated one at full
    /// size.
    package func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let library = try codec.get()
        let features = try features(of: data, library: library)
        if features.has_animation != 0 {
            let frame = try animationFrames(data, options: options, frameLimit: 1).frames[0].image
            guard let region = options.regionOfInterest else { return frame }
            return frame.cropped(to: region.rect(in: PixelSize(width: frame.width, height: frame.height)))
        }
        let header = ImageHeader(
            format: .webp, width: Int(features.width), height: Int(features.height), orientation: .identity,
            hasAlpha: features.has_alpha != 0
        )
        try ImageDecoder.checkPixelLimit(of: header, options: options)
        return try decodeStill(data, header: header, library: library, options: options)
    }

    /// Decodes every frame of an animated WebP (a still WebP is one frame).
    package func decodeAnimation(_ data: Data, options: ImageDecodingOptions) throws -> AnimatedImage {
        let features = try features(of: data, library: codec.get())
        guard features.has_animation != 0 else { return AnimatedImage(still: try decode(data, options: options)) }
        return try animationFrames(data, options: options, frameLimit: Int.max)
    }

    private func features(of data: Data, library: WebPLibrary) throws -> ma_webp_bitstream_features {
        var features = ma_webp_bitstream_features()
        let status = data.withUnsafeBytes { bytes in
            library.getFeatures(
                ImageDecoder.firstByte(of: bytes), bytes.count, &features, MA_WEBP_DECODER_ABI_VERSION
            )
        }
        switch status {
        case 0: break
        case 7: throw ImageError.truncated(format: .webp, reason: "the header ends early")
        case 4: throw ImageError.unsupported(format: .webp, reason: "libwebp does not support this feature")
        default: throw ImageError.corrupt(format: .webp, reason: "libwebp rejected the header (status \(status))")
        }
        guard features.width > 0, features.height > 0 else {
            throw ImageError.invalidDimensions(
                format: .webp, width: Int(features.width), height: Int(features.height)
            )
        }
        return features
    }

    /// Truncated when the RIFF header promises more bytes than there are, else corrupt.
    func failure(_ data: Data, reason: String) -> ImageError {
        guard data.count >= 8 else { return .truncated(format: .webp, reason: reason) }
        let bytes = Array(data[data.startIndex + 4..<data.startIndex + 8])
        let riffSize = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        return riffSize + 8 > data.count
            ? .truncated(format: .webp, reason: reason) : .corrupt(format: .webp, reason: reason)
    }

    private func animationFrames(_ data: Data, options: ImageDecodingOptions, frameLimit: Int) throws -> AnimatedImage {
        try WebPAnimationReader(library: animation.get(), decoder: self).read(
            data, options: options, frameLimit: frameLimit
        )
    }
}
