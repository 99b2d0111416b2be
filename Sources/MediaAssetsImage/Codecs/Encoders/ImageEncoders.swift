import Foundation

/// PNG through libpng: lossless, RGBA when any pixel is transparent.
public struct PNGEncoder: ImageEncoding, Hashable {
    /// The zlib level 0...9, or `nil` for libpng's default (6).
    public var compressionLevel: Int?

    /// Creates an encoder at `compressionLevel`.
    public init(compressionLevel: Int? = nil) { self.compressionLevel = compressionLevel }

    /// "png" or "png-<level>".
    public var identifier: String { compressionLevel.map { "png-\($0)" } ?? "png" }
    /// `.png`.
    public var format: ImageFormat { .png }

    /// See `ImageEncoder.png(_:compressionLevel:)`.
    public func encode(_ image: Image) throws -> Data {
        try ImageEncoder.png(image, compressionLevel: compressionLevel)
    }
}

/// JPEG through libjpeg-turbo at a quality; transparency is composited over black.
public struct JPEGEncoder: ImageEncoding, Hashable {
    /// 1...100.
    public var quality: Int

    /// Creates an encoder at `quality`.
    public init(quality: Int = 85) { self.quality = quality }

    /// "jpeg-q<quality>".
    public var identifier: String { "jpeg-q\(quality)" }
    /// `.jpeg`.
    public var format: ImageFormat { .jpeg }

    /// See `ImageEncoder.jpeg(_:quality:)`.
    public func encode(_ image: Image) throws -> Data {
        try ImageEncoder.jpeg(image, quality: quality)
    }
}
