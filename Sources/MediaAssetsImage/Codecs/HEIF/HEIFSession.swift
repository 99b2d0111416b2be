import CDynamicCodecs
import CMediaAssetsIO
import Foundation

/// One libheif context over borrowed bytes.
struct HEIFSession {
    let library: HEIFLibrary
    let format: ImageFormat

    /// Thumbnails beyond this many are not looked at (phones write one).
    static let maximumThumbnails = 16

    /// A derived image's side may be at most √(this × `maxPixelCount`) (and at most the primary image's longer
    /// side): libheif 1.15 allocates a grid at the size its grid descriptor names, which the declared size
    /// (what the pixel limit checked) need not match, before it decodes a tile.
    static let derivedImageAreaFactor = 16.0

    /// Reads `data` into a context, refuses derivations libheif would follow without end (`HEIFDerivations`),
    /// and calls `body` with the primary image's handle. With `maxPixelCount`, a derived image (grid or
    /// overlay) larger than the primary image declares is refused before libheif allocates it.
    func withPrimaryImage<Result>(
        _ data: Data, maxPixelCount: Int? = nil, _ body: (UnsafeRawPointer) throws -> Result
    ) throws -> Result {
        guard let context = library.contextAlloc() else {
            throw ImageError.outOfMemory(format: format, reason: "could not allocate a libheif context")
        }
        defer { library.contextFree(context) }
        return try data.withUnsafeBytes { bytes in
            try check(library.readFromMemory(context, bytes.baseAddress, bytes.count, nil))
            if HEIFDerivations.mayHaveDerivations(bytes) { try checkDerivations(of: context) }
            var handle: UnsafeMutableRawPointer?
            try check(library.primaryHandle(context, &handle))
            guard let handle else { throw ImageError.corrupt(format: format, reason: "the file has no primary image") }
            defer { library.handleRelease(handle) }
            if let maxPixelCount, let setSizeLimit = library.setSizeLimit {
                let longerSide = max(library.handleWidth(handle), library.handleHeight(handle))
                let side = (Self.derivedImageAreaFactor * Double(max(maxPixelCount, 0))).squareRoot()
                setSizeLimit(context, Int32(min(Double(longerSide), side, Double(Int32.max - 1))) + 1)
            }
            return try body(UnsafeRawPointer(handle))
        }
    }

    /// Throws `ImageError.corrupt` when the references libheif read make a derivation cycle, or one too deep or
    /// too wide to decode.
    private func checkDerivations(of context: UnsafeMutableRawPointer) throws {
        let file = ma_memory_file("heif-boxes")
        guard file >= 0 else {
            throw ImageError.outOfMemory(
                format: format, reason: "no memory file for libheif's box dump: \(String(cString: strerror(errno)))")
        }
        defer { close(file) }
        library.dumpBoxes(context, file)
        let size = lseek(file, 0, SEEK_END)
        guard size > 0 else { return }
        let dump = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(size), alignment: 1)
        defer { dump.deallocate() }
        guard pread(file, dump.baseAddress, dump.count, 0) == dump.count else {
            throw ImageError.outOfMemory(
                format: format, reason: "could not read libheif's box dump: \(String(cString: strerror(errno)))")
        }
        if let reason = HEIFDerivations(dump: UnsafeRawBufferPointer(dump)).refusal() {
            throw ImageError.corrupt(format: format, reason: reason)
        }
    }

    /// The smallest thumbnail of `primary` whose region of interest covers `targetSize × headroom` and whose
    /// proportions are the primary's (within a pixel), or `nil`. The caller releases it.
    func thumbnail(of primary: UnsafeRawPointer, covering options: ImageDecodingOptions) throws -> UnsafeRawPointer? {
        guard let target = options.targetSize else { return nil }
        let count = min(Int(library.thumbnailCount(primary)), Self.maximumThumbnails)
        guard count > 0 else { return nil }
        var ids = [UInt32](repeating: 0, count: count)
        let listed = min(Int(library.thumbnailIDs(primary, &ids, Int32(count))), count)
        let primarySize = PixelSize(
            width: Int(library.handleWidth(primary)), height: Int(library.handleHeight(primary)))
        let needed = JPEGRegionPlan.neededSize(target: target, headroom: options.downsamplingHeadroom)
        var best: (handle: UnsafeMutableRawPointer, pixels: Int)?
        for id in ids.prefix(listed) {
            var thumbnail: UnsafeMutableRawPointer?
            guard library.thumbnail(primary, id, &thumbnail).code == 0, let thumbnail else { continue }
            let size = PixelSize(
                width: Int(library.handleWidth(thumbnail)), height: Int(library.handleHeight(thumbnail)))
            let region = options.regionOfInterest?.rect(in: size) ?? PixelRect(wholeOf: size)
            let pixels = size.width * size.height
            let fits =
                size.width > 0 && size.height > 0 && pixels <= options.maxPixelCount
                && Self.sameProportions(size, primarySize) && region.width >= needed.width
                && region.height >= needed.height
            if fits, pixels < best?.pixels ?? .max {
                best.map { library.handleRelease($0.handle) }
                best = (thumbnail, pixels)
            } else {
                library.handleRelease(thumbnail)
            }
        }
        return best.map { UnsafeRawPointer($0.handle) }
    }

    /// Whether `thumbnail` shows the same proportions as `primary`, to within one thumbnail pixel.
    static func sameProportions(_ thumbnail: PixelSize, _ primary: PixelSize) -> Bool {
        let (cross, overflow) = thumbnail.width.multipliedReportingOverflow(by: primary.height)
        let (other, otherOverflow) = thumbnail.height.multipliedReportingOverflow(by: primary.width)
        guard !overflow, !otherOverflow else { return false }
        return abs(cross - other) <= max(primary.width, primary.height)
    }

    /// Decodes `handle` (upright, libheif applies the transforms) as RGB, or RGBA when it has alpha, and reduces
    /// it row by row to `options`' display size and region without copying it whole.
    func decode(_ handle: UnsafeRawPointer, hasAlpha: Bool, options: ImageDecodingOptions) throws -> Image {
        var decoded: UnsafeMutableRawPointer?
        let chroma = hasAlpha ? MA_HEIF_CHROMA_INTERLEAVED_RGBA : MA_HEIF_CHROMA_INTERLEAVED_RGB
        try check(library.decodeImage(handle, &decoded, MA_HEIF_COLORSPACE_RGB, chroma, nil))
        guard let decoded else { throw ImageError.corrupt(format: format, reason: "libheif returned no image") }
        defer { library.imageRelease(decoded) }
        let width = Int(library.imageWidth(decoded, MA_HEIF_CHANNEL_INTERLEAVED))
        let height = Int(library.imageHeight(decoded, MA_HEIF_CHANNEL_INTERLEAVED))
        let channels = hasAlpha ? 4 : 3
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = library.imagePlane(decoded, MA_HEIF_CHANNEL_INTERLEAVED, &stride),
            Int(stride) >= width * channels
        else { throw ImageError.invalidDimensions(format: format, width: width, height: height) }
        // A derived image is as large as its grid descriptor says, which may not be what the file declared.
        try ImageDecoder.checkPixelLimit(
            of: ImageHeader(format: format, width: width, height: height, orientation: .identity, hasAlpha: hasAlpha),
            options: options)
        let reducer = RowBoxReducer(
            plan: DisplaySizePlan(sourceSize: PixelSize(width: width, height: height), options: options))
        var row = [UInt8](repeating: 255, count: width * 4)
        row.withUnsafeMutableBufferPointer { row in
            let target = row.baseAddress!
            for y in reducer.plan.sourceRows {
                let source = plane + y * Int(stride)
                if hasAlpha {
                    target.update(from: source, count: width * 4)
                    PixelConversion.premultiply(row)
                } else {
                    for x in 0..<width {
                        target[x * 4] = source[x * 3]
                        target[x * 4 + 1] = source[x * 3 + 1]
                        target[x * 4 + 2] = source[x * 3 + 2]
                    }
                }
                reducer.add(row: target, y: y)
            }
        }
        return reducer.image()
    }

    /// heif_error: code 0 is success; sub-error 100 (end of data) means the file was cut; sub-error 1000 (a
    /// security limit, such as a grid larger than the image declares) is a hostile or broken file, not a lack
    /// of memory that a retry could help.
    private func check(_ error: ma_heif_error) throws {
        guard error.code != 0 else { return }
        let reason = error.message.map { String(cString: $0) } ?? "libheif error \(error.code)"
        switch (error.code, error.subcode) {
        case (_, 100): throw ImageError.truncated(format: format, reason: reason)
        case (_, 1000): throw ImageError.corrupt(format: format, reason: reason)
        case (3, _), (4, _): throw ImageError.unsupported(format: format, reason: reason)
        case (6, _): throw ImageError.outOfMemory(format: format, reason: reason)
        default: throw ImageError.corrupt(format: format, reason: reason)
        }
    }
}
