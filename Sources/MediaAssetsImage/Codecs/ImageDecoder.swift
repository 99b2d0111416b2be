import Foundation

/// Decodes image bytes into premultiplied RGBA `Image`s through `ImageCodecRegistry.standard`.
///
/// The format comes from the magic bytes: JPEG and PNG through the linked libjpeg-turbo and libpng; WebP, GIF,
/// HEIC and AVIF through libwebp, giflib and libheif loaded at run time (a missing one throws
/// `ImageError.libraryMissing` naming the Debian package). Every failure is a thrown `ImageError`: corrupt,
/// truncated or hostile input never ends the process (libjpeg's and libpng's longjmp-based errors are caught in
/// the C shims). The header is read first and its size checked against `ImageDecodingOptions.maxPixelCount`
/// before any pixel memory is allocated.
///
/// Truncation policy: a file that ends early throws `ImageError.truncated` instead of returning a partial
/// image (libjpeg would fill the missing rows with grey), so a cut download is never cached as if it were
/// whole. A JPEG must reach its EOI marker and a PNG its IEND chunk. JPEG warnings other than a premature end
/// (stray bytes between markers, one bad Huffman code) are tolerated, as browsers do. Progressive JPEGs with
/// more than 1000 scans are refused as corrupt (a CPU bomb).
///
/// Still images decode at display size: toward `targetSize × downsamplingHeadroom` and only the
/// `regionOfInterest` (JPEG by DCT scaling and libjpeg-turbo's cropping, reading only the scans a progressive
/// file's scale shows; WebP by libwebp's scaling and cropping; PNG row by row into a box-reduced buffer; HEIC
/// and AVIF from an embedded thumbnail that covers the target, else reduced from libheif's decoded plane), so
/// peak memory follows the output, not the source. An interlaced PNG and a HEIC or AVIF without a large enough
/// thumbnail are decoded whole first. A decoder that cannot cut a region has it cut by the registry. PNG's
/// orientation is not read (no eXIf support).
public enum ImageDecoder {
    /// Decodes `data` into an upright (unless told otherwise), premultiplied RGBA image; the first frame of an
    /// animation.
    ///
    /// - Throws: `ImageError`
    /// - Complexity: O(encoded bytes + output pixels); decoding at display size shrinks the second term.
    public static func decode(_ data: Data, options: ImageDecodingOptions = .init()) throws -> Image {
        try ImageCodecRegistry.standard.decode(data, options: options)
    }

    /// Reads only the header of `data`: format, stored size, EXIF orientation and whether it has alpha.
    ///
    /// - Throws: `ImageError` (never `.tooManyPixels`: the header of a huge image is readable).
    public static func header(of data: Data) throws -> ImageHeader {
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
