import Foundation
import MediaAssets

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
