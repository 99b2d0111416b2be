import Foundation

/// A tiny stand-in for an image, shown while the image itself loads: a ThumbHash (about 25 bytes) and the
/// image's average colour.
///
/// Compute one when an original is first decoded and store `thumbHash` beside it; a list UI can then render
/// `image()` (at most 32×32, blurred by construction) without decoding the original. All functions are pure.
/// The format is Evan Wallace's ThumbHash (MIT), so hashes are interchangeable with other implementations.
public struct ImagePlaceholder: Sendable, Hashable {
    /// Why bytes are not a ThumbHash.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The hash is shorter than its header says (`required` bytes).
        case truncated(byteCount: Int, required: Int)

        /// A sentence a person can act on.
        public var description: String {
            switch self {
            case .truncated(let byteCount, let required):
                return
                    "ThumbHash of \(byteCount) bytes is too short: its header needs \(required); store the whole hash"
            }
        }
    }

    /// The ThumbHash bytes (5–25 or so): what to store.
    public let thumbHash: Data
    /// The image's average colour (straight alpha), exact when computed from an image.
    public private(set) var averageColor: RGBA

    /// Computes the placeholder of `image` (shrunk to fit 100×100 first: larger adds nothing).
    ///
    /// - Complexity: O(pixels) plus a DCT over at most 100×100 pixels.
    public init(image: Image) throws {
        let sample =
            image.width > 100 || image.height > 100
            ? try ImageProcessors.Resize(size: .square(100), contentMode: .aspectFit).process(image) : image
        thumbHash = ThumbHash.encode(sample)
        averageColor = Self.averageColor(of: image)
    }

    /// Reads a stored ThumbHash.
    ///
    /// - Throws: `ImagePlaceholder.Failure.truncated` when the bytes are shorter than their header says.
    public init(thumbHash: Data) throws {
        let hash = Array(thumbHash)
        let required = ThumbHash.requiredByteCount(hash)
        guard hash.count >= required else { throw Failure.truncated(byteCount: hash.count, required: required) }
        self.thumbHash = thumbHash
        averageColor = ThumbHash.averageColor(hash)
    }

    /// Reads a stored ThumbHash with the exact average colour computed beside it.
    ///
    /// - Throws: `ImagePlaceholder.Failure.truncated` when the bytes are shorter than their header says.
    package init(thumbHash: Data, averageColor: RGBA) throws {
        try self.init(thumbHash: thumbHash)
        self.averageColor = averageColor
    }

    /// The placeholder picture: at most 32×32, in the image's approximate aspect ratio, premultiplied.
    public func image() -> Image {
        ThumbHash.decode(Array(thumbHash))
    }

    /// The image's width / height, as the hash approximates it.
    public var approximateAspectRatio: Double { ThumbHash.aspectRatio(Array(thumbHash)) }

    /// The mean colour of `image`, weighted by alpha, with the mean alpha (straight, rounded).
    ///
    /// - Complexity: O(pixels)
    package static func averageColor(of image: Image) -> RGBA {
        var sums = (red: 0, green: 0, blue: 0, alpha: 0)
        let pixels = image.pixels
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            sums.red += Int(pixels[offset])
            sums.green += Int(pixels[offset + 1])
            sums.blue += Int(pixels[offset + 2])
            sums.alpha += Int(pixels[offset + 3])
        }
        guard sums.alpha > 0 else { return .transparent }
        // Premultiplied sums divided by the alpha sum give the alpha-weighted straight mean.
        func channel(_ sum: Int) -> UInt8 { UInt8(min(255, (sum * 255 + sums.alpha / 2) / sums.alpha)) }
        let count = pixels.count / 4
        return RGBA(
            red: channel(sums.red), green: channel(sums.green), blue: channel(sums.blue),
            alpha: UInt8((sums.alpha + count / 2) / count)
        )
    }
}
