import Foundation
import MediaAssets

/// `ImageUtil`'s decode stage for animations: every frame of a GIF or animated WebP (a still image is
/// one frame), with styled variants stored as animated WebP.
public struct AnimatedImageDecoder: AssetDecoding {
    /// The decoders and limits (`maxFrameCount`, `maxAnimationPixelCount`) from `ImageUtil.Configuration`.
    public let codecs: ImageCodecRegistry
    /// The decoding limits.
    public let options: ImageDecodingOptions

    /// Creates the animation decoder of a util configured by `configuration`.
    public init(configuration: ImageUtil.Configuration = ImageUtil.Configuration()) {
        self.codecs = configuration.codecs
        self.options = configuration.decodingOptions
    }

    /// `animation(<decoders>)`.
    public var identifier: String { "animation(\(codecs.identifier))" }

    /// Decodes every frame, refusing animations over the frame-count and total-pixel limits first.
    public func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> AnimatedImage {
        try codecs.decodeAnimation(data, options: options)
    }

    /// All frames' bytes.
    public func cost(of animation: AnimatedImage) -> Int { animation.cost }

    /// An animated WebP (lossy, quality 80): typically several times smaller than the frames as PNG.
    public func encodeVariant(_ animation: AnimatedImage) throws -> EncodedVariant? {
        let data = try WebPEncoder(compression: .lossy(quality: 80)).encode(animation)
        return EncodedVariant(data: data, contentType: ImageFormat.webp.mimeType)
    }

    /// `ImageUtilError.undecodable` with the codec's reason.
    public func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error {
        guard let reason = error as? ImageError else {
            return AssetsError.undecodable(key: key, url: url, decoder: identifier, reason: "\(error)")
        }
        return ImageUtilError.undecodable(url: url, key: key, reason: reason)
    }
}

/// An image style applied to every frame of an animation: the process stage of
/// `ImageUtil.animatedImage(for:style:)`, keyed `<style>,animated-webp`.
struct AnimatedStyle<Style: ImageProcessing>: AssetProcessing {
    let style: Style

    var identifier: String { style.identifier + ",animated-webp" }

    func process(_ animation: AnimatedImage) throws -> AnimatedImage {
        try animation.processed(by: style)
    }
}
