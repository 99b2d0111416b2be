import Foundation

/// The standard registry's decode and header read, and the checks every decoder runs before it allocates pixels.
package enum ImageDecoder {
    /// Decodes `data` into an upright (unless told otherwise), premultiplied RGBA image; the first frame of an
    /// animation.
    ///
    /// - Throws: `ImageError`
    /// - Complexity: O(encoded bytes + output pixels); decoding at display size shrinks the second term.
    package static func decode(_ data: Data, options: ImageDecodingOptions = .init()) throws -> Image {
        try ImageCodecRegistry.standard.decode(data, options: options)
    }

    /// Reads only the header of `data`: format, stored size, EXIF orientation and whether it has alpha.
    ///
    /// - Throws: `ImageError` (never `.tooManyPixels`: the header of a huge image is readable).
    package static func header(of data: Data) throws -> ImageHeader {
        try ImageCodecRegistry.standard.header(of: data)
    }

    static func format(of data: Data) throws -> ImageFormat {
        guard let format = ImageFormat.sniff(data) else {
            throw ImageError.unknownFormat(byteCount: data.count, leadingBytes: Array(data.prefix(8)))
        }
        return format
    }

    static func checkDimensions(of header: ImageHeader) throws {
        guard header.width > 0, header.height > 0 else {
            throw ImageError.invalidDimensions(format: header.format, width: header.width, height: header.height)
        }
    }

    /// Refuses a header whose pixel count (or byte count) is above the limit or overflows `Int`.
    static func checkPixelLimit(of header: ImageHeader, options: ImageDecodingOptions) throws {
        try checkDimensions(of: header)
        let (pixelCount, pixelOverflow) = header.width.multipliedReportingOverflow(by: header.height)
        let (_, byteOverflow) = pixelCount.multipliedReportingOverflow(by: 4)
        if pixelOverflow || byteOverflow || pixelCount > options.maxPixelCount {
            throw ImageError.tooManyPixels(width: header.width, height: header.height, limit: options.maxPixelCount)
        }
    }

    /// Refuses an animation whose frame count, or whose frames' total pixels, are above the limits.
    static func checkAnimationLimits(
        format: ImageFormat, frameCount: Int, canvas: PixelSize, options: ImageDecodingOptions
    ) throws {
        if frameCount > options.maxFrameCount {
            throw ImageError.tooManyFrames(format: format, frameCount: frameCount, limit: options.maxFrameCount)
        }
        let (total, overflow) = (canvas.width * canvas.height).multipliedReportingOverflow(by: frameCount)
        if overflow || total > options.maxAnimationPixelCount {
            throw ImageError.animationTooLarge(
                format: format, frameCount: frameCount, canvas: canvas, limit: options.maxAnimationPixelCount
            )
        }
    }

    /// A pointer to the first byte for the C shims (never dereferenced past `bytes.count`).
    static func firstByte(of bytes: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}
