import Foundation
import MediaAssetsImage

extension DotLottie {
    /// Decodes every image of the archive through the image format plugins (JPEG, PNG, WebP, GIF,
    /// HEIF/AVIF — the optional ones loaded at run time), keyed like `images`.
    ///
    /// - Throws: `AnimationAssetError.undecodable` naming the first failing image (in name order) by its path
    ///   (`ImageError.libraryMissing` names the Debian package of a missing codec library).
    public func decodedImages(
        codecs: ImageCodecRegistry = .standard, options: ImageDecodingOptions = .init()
    ) throws -> [String: Image] {
        var decoded: [String: Image] = [:]
        for name in images.keys.sorted() {
            guard let data = images[name] else { continue }
            do {
                decoded[name] = try codecs.decode(data, options: options)
            } catch let error as ImageError {
                throw AnimationAssetError.undecodable(assetID: name, url: nil, reason: error)
            }
        }
        return decoded
    }
}
