import Foundation
import MediaAssets

/// `ImageUtil`'s decode stage for animations kept whole: every frame of a GIF or animated WebP (a still image
/// is one frame), reduced toward a target size as it is composited, with styled variants stored as animated
/// WebP.
///
/// The options are the size the frames must cover (`nil`: full size); a decode toward 192 px answers a 96 px
/// ask, never the reverse. For long or large animations, play them through `ImageUtil.animationFrames(for:)`.
@usableFromInline package struct AnimatedImageDecoder: AssetDecoding {
    /// The decoders and limits (`maxFrameCount`, `maxAnimationPixelCount`) from `ImageUtil.Configuration`.
    package let codecs: ImageCodecRegistry
    /// The decoding limits.
    package let options: ImageDecodingOptions

    /// Creates the animation decoder of a util configured by `configuration`.
    package init(configuration: ImageUtil.Configuration = ImageUtil.Configuration()) {
        self.codecs = configuration.codecs
        self.options = configuration.decodingOptions
    }

    /// `animation(<decoders>)`.
    @usableFromInline package var identifier: String { "animation(\(codecs.identifier))" }

    /// Decodes every frame toward `targetSize`, after refusing, from the headers alone, an animation whose
    /// frame count or pixels of all frames (at the size they are kept) are over the limits.
    @usableFromInline package func decode(_ data: Data, options targetSize: PixelSize?) throws -> AnimatedImage {
        var options = options
        options.targetSize = targetSize
        return try codecs.decodeAnimation(data, options: options)
    }

    /// All frames' bytes.
    @usableFromInline package func cost(of animation: AnimatedImage) -> Int { animation.cost }

    /// Whether frames decoded toward `provided` are at least as large as ones toward `requested`.
    @usableFromInline package func options(_ provided: PixelSize?, satisfy requested: PixelSize?) -> Bool {
        guard let provided else { return true }
        guard let requested else { return false }
        return provided.width >= requested.width && provided.height >= requested.height
    }

    /// Stored variants are decoded at their own size: they are stored as they are shown.
    @usableFromInline package var variantOptions: PixelSize? { nil }

    /// An animated WebP (lossy, quality 80), written frame by frame: typically several times smaller than the
    /// frames as PNG.
    @usableFromInline package func encodeVariant(_ animation: AnimatedImage) throws -> EncodedVariant? {
        let data = try WebPEncoder(compression: .lossy(quality: 80)).encode(animation)
        return EncodedVariant(data: data, contentType: ImageFormat.webp.mimeType)
    }

    /// `ImageUtilError.undecodable` with the codec's reason.
    @usableFromInline package func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error {
        guard let reason = error as? ImageError else {
            return AssetsError.undecodable(key: key, url: url, decoder: identifier, reason: "\(error)")
        }
        return ImageUtilError.undecodable(url: url, key: key, reason: reason)
    }
}

/// An image style applied to every frame of an animation: the process stage of
/// `ImageUtil.animatedImage(for:style:)`, keyed `<style>,animated-webp` (the key
/// `ImageUtil.animationFrames(for:style:)` records its variants under too).
struct AnimatedStyle<Style: ImageProcessing>: AssetProcessing {
    let style: Style

    var identifier: String { style.identifier + ",animated-webp" }

    func process(_ animation: AnimatedImage) throws -> AnimatedImage {
        try animation.processed(by: style)
    }
}

/// An animation's bytes as played: the file, and what its headers say.
struct AnimationSource: Sendable {
    var data: Data
    var info: AnimationInfo
}

/// The decode stage of `ImageUtil.animationFrames(for:)`: the bytes are checked from their headers (a GIF's
/// blocks walked to the trailer, WebP's container parsed, the canvas against the pixel limit) and kept as they
/// are; frames are decoded while they play. Bytes that fail the check are never stored.
struct AnimationSourceDecoder: AssetDecoding {
    let codecs: ImageCodecRegistry
    let options: ImageDecodingOptions

    /// `animation-source(<decoders>)`.
    var identifier: String { "animation-source(\(codecs.identifier))" }

    func decode(_ data: Data, options _: DefaultDecodeOptions) throws -> AnimationSource {
        let info = try codecs.animationInfo(of: data)
        try info.checkCanvas(within: options)
        return AnimationSource(data: data, info: info)
    }

    /// The encoded bytes: what a kept source holds.
    func cost(of source: AnimationSource) -> Int { source.data.count }

    /// `ImageUtilError.undecodable` with the codec's reason.
    func decodingError(_ error: any Error, key: CacheKey, url: URL) -> any Error {
        guard let reason = error as? ImageError else {
            return AssetsError.undecodable(key: key, url: url, decoder: identifier, reason: "\(error)")
        }
        return ImageUtilError.undecodable(url: url, key: key, reason: reason)
    }
}
