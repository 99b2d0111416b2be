import CDynamicCodecs
import Foundation

@testable import MediaAssetsImage

/// HEIC and AVIF files for tests, encoded through libheif.
enum HEIFFixtures {
    static func encode(
        _ image: Image, compression: Int32 = MA_HEIF_COMPRESSION_HEVC, lossless: Bool = false,
        orientation: ImageOrientation = .identity
    ) throws -> Data {
        try HEIFFixtureEncoder.encode(image, compression: compression, lossless: lossless, orientation: orientation)
    }
}
