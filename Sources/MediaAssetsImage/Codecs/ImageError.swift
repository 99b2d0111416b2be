import Foundation
import MediaAssets

/// Why bytes could not be decoded into an `Image`, or an `Image` could not be encoded.
///
/// Bad input always ends here, never in a crash: corrupt or truncated files, headers that claim more pixels
/// than allowed (decompression bombs), formats that are not images.
public enum ImageError: Hashable, MediaAssetsError {
    /// No registered decoder recognises the bytes (or they are empty). Carries their count and up to the first 8 bytes.
    case unknownFormat(byteCount: Int, leadingBytes: [UInt8])
    /// The header claims a zero (or otherwise impossible) width or height.
    case invalidDimensions(format: ImageFormat, width: Int, height: Int)
    /// The header claims more pixels than `ImageDecodingOptions.maxPixelCount`; nothing was allocated.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The codec library rejected the data; `reason` is its message.
    case corrupt(format: ImageFormat, reason: String)
    /// The data ends before the image does (a cut download). Partial images are never returned.
    case truncated(format: ImageFormat, reason: String)
    /// A valid file this decoder does not handle (for example a JPEG with 2 components or 12-bit samples).
    case unsupported(format: ImageFormat, reason: String)
    /// The codec library ran out of memory.
    case outOfMemory(format: ImageFormat, reason: String)
    /// The animation's headers declare more frames than `ImageDecodingOptions.maxFrameCount`; refused before
    /// decoding any.
    case tooManyFrames(format: ImageFormat, frameCount: Int, limit: Int)
    /// The animation's frames together hold more pixels than `ImageDecodingOptions.maxAnimationPixelCount`.
    case animationTooLarge(format: ImageFormat, frameCount: Int, canvas: PixelSize, limit: Int)
    /// The system library that decodes (or encodes) `format` could not be loaded at run time.
    case libraryMissing(format: ImageFormat, library: String, debianPackage: String, reason: String)
    /// Encoding failed (for example a side longer than the format allows); `reason` says why.
    case encodingFailed(format: ImageFormat, reason: String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .unknownFormat(let byteCount, let leadingBytes):
            if byteCount == 0 { return "Cannot decode an image from empty data" }
            let hex = leadingBytes.map { byte in
                let digits = String(byte, radix: 16, uppercase: true)
                return digits.count == 1 ? "0" + digits : digits
            }.joined(separator: " ")
            return "\(byteCount) bytes are not an image format any registered decoder knows (they start with \(hex))"
        case .invalidDimensions(let format, let width, let height):
            return "\(format) header claims an impossible size of \(width)×\(height) pixels"
        case .tooManyPixels(let width, let height, let limit):
            return "Image of \(width)×\(height) pixels exceeds the limit of \(limit) pixels; refused before decoding"
        case .corrupt(let format, let reason):
            return "Corrupt \(format) data: \(reason)"
        case .truncated(let format, let reason):
            return "Truncated \(format) data (the file ends early): \(reason)"
        case .unsupported(let format, let reason):
            return "Unsupported \(format) variant: \(reason)"
        case .outOfMemory(let format, let reason):
            return "Out of memory while decoding \(format): \(reason)"
        case .tooManyFrames(let format, let frameCount, let limit):
            return "\(format) animation has \(frameCount) frames, over the limit of \(limit); refused before decoding"
        case .animationTooLarge(let format, let frameCount, let canvas, let limit):
            return "\(format) animation of \(frameCount) frames of \(canvas.width)×\(canvas.height) exceeds "
                + "the limit of \(limit) pixels for all frames together; refused before decoding"
        case .libraryMissing(let format, let library, let debianPackage, let reason):
            return "Cannot decode \(format): \(library) could not be loaded (\(reason)). "
                + "Install it with `apt-get install \(debianPackage)`"
        case .encodingFailed(let format, let reason):
            return "Could not encode \(format): \(reason)"
        }
    }
}

/// Why `ImageUtil` could not produce an image from the bytes it has. Network and storage failures arrive as
/// `AssetsError`, a style that cannot be drawn or fails as `AssetProcessingError` (with the style's own error).
public enum ImageUtilError: Hashable, MediaAssetsError {
    /// The string given to `downloadImage(url:…)` is not a URL.
    case invalidURL(String)
    /// The original's bytes are not a decodable image (corrupt, truncated, too many pixels, unknown format).
    /// Nothing was kept in the cache for the original or its variant.
    case undecodable(url: URL, key: CacheKey, reason: ImageError)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .invalidURL(let text):
            return "\"\(text)\" is not a valid URL"
        case let .undecodable(url, key, reason):
            return "The image at \(url.absoluteString) cannot be decoded (\(reason)); nothing was cached for \(key)"
        }
    }
}

/// Why a processor refused its parameters; carries the offending value and the processor's identifier.
public enum ImageProcessingError: Hashable, MediaAssetsError {
    /// A width, height or diameter is zero or negative.
    case invalidSize(PixelSize, processor: String)
    /// A requested or resulting size exceeds `limit` (`ImageProcessors.maximumDimension`) on a side.
    case sizeTooLarge(PixelSize, limit: Int, processor: String)
    /// A corner radius is negative, not finite, or larger than the limit.
    case invalidCornerRadius(Double, processor: String)
    /// A border width is negative, not finite, or larger than the limit.
    case invalidBorderWidth(Double, processor: String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .invalidSize(size, processor):
            return "Processor \(processor): size \(size) must be positive on both sides"
        case let .sizeTooLarge(size, limit, processor):
            return "Processor \(processor): size \(size) exceeds the limit of \(limit) pixels per side"
        case let .invalidCornerRadius(radius, processor):
            return "Processor \(processor): corner radius \(radius) must be finite, >= 0 and <= "
                + "\(ImageProcessors.maximumDimension)"
        case let .invalidBorderWidth(width, processor):
            return "Processor \(processor): border width \(width) must be finite, >= 0 and <= "
                + "\(ImageProcessors.maximumDimension)"
        }
    }
}
