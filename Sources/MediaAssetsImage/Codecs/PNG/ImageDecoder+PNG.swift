import CPNG
import Foundation

extension ImageDecoder {
    static func pngHeader(_ bytes: UnsafeRawBufferPointer) throws -> ImageHeader {
        let decoder = try PNGDecoderHandle(bytes)
        defer { decoder.close() }
        return try decoder.readHeader().header
    }

    /// Decodes at display size: the rows are read one at a time and box-reduced toward `targetSize ×
    /// downsamplingHeadroom`, keeping only `regionOfInterest`, so memory is the output plus a row. An
    /// interlaced file is decoded whole first (its passes fill every row), then reduced. PNG carries no EXIF
    /// orientation here.
    static func decodePNG(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> Image {
        let decoder = try PNGDecoderHandle(bytes)
        defer { decoder.close() }
        let (header, interlaced) = try decoder.readHeader()
        try checkPixelLimit(of: header, options: options)
        let plan = DisplaySizePlan(sourceSize: header.storedSize, options: options)
        if plan.isWholeSource { return try decoder.readWhole(header) }
        let reducer = RowBoxReducer(plan: plan)
        if interlaced {
            let whole = try decoder.readWhole(header)
            whole.pixels.withUnsafeBufferPointer { pixels in
                for y in plan.sourceRows { reducer.add(row: pixels.baseAddress! + y * header.width * 4, y: y) }
            }
            return reducer.image()
        }
        var rowBytes = 0
        try decoder.check(cpng_start_rows(decoder.pointer, &rowBytes))
        var row = [UInt8](repeating: 0, count: rowBytes)
        try row.withUnsafeMutableBufferPointer { row in
            for y in 0..<header.height {
                try decoder.check(cpng_read_next_row(decoder.pointer, row.baseAddress))
                guard reducer.needs(row: y) else { continue }
                if header.hasAlpha { PixelConversion.premultiply(row) }
                reducer.add(row: row.baseAddress!, y: y)
            }
        }
        try decoder.check(cpng_finish_rows(decoder.pointer))
        return reducer.image()
    }
}

/// One libpng read over borrowed bytes; `close()` releases it.
private struct PNGDecoderHandle {
    let pointer: OpaquePointer

    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard let pointer = cpng_decoder_create(ImageDecoder.firstByte(of: bytes), bytes.count) else {
            throw ImageError.outOfMemory(format: .png, reason: "could not create the decoder")
        }
        self.pointer = pointer
    }

    func close() {
        cpng_decoder_destroy(pointer)
    }

    func readHeader() throws -> (header: ImageHeader, interlaced: Bool) {
        var raw = cpng_header()
        try check(cpng_read_header(pointer, &raw))
        let header = ImageHeader(
            format: .png, width: Int(raw.width), height: Int(raw.height),
            orientation: .identity, hasAlpha: raw.has_alpha != 0
        )
        return (header, raw.interlaced != 0)
    }

    /// Every pixel at full size, premultiplied.
    func readWhole(_ header: ImageHeader) throws -> Image {
        let stride = header.width * 4
        let byteCount = stride * header.height
        let pixels = try [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initializedCount in
            try check(cpng_read_rgba(pointer, buffer.baseAddress, stride, buffer.count))
            initializedCount = byteCount
            if header.hasAlpha { PixelConversion.premultiply(buffer) }
        }
        return Image(width: header.width, height: header.height, pixels: pixels)
    }

    func check(_ status: cpng_status) throws {
        guard status != CPNG_OK else { return }
        let reason = String(cString: cpng_decoder_message(pointer))
        switch status {
        case CPNG_ERROR_TRUNCATED: throw ImageError.truncated(format: .png, reason: reason)
        case CPNG_ERROR_UNSUPPORTED: throw ImageError.unsupported(format: .png, reason: reason)
        case CPNG_ERROR_OUT_OF_MEMORY: throw ImageError.outOfMemory(format: .png, reason: reason)
        default: throw ImageError.corrupt(format: .png, reason: reason)
        }
    }
}

/// Decodes PNG through the linked libpng into premultiplied RGBA, at display size: rows are read one at a time
/// and box-reduced toward `targetSize` (with `downsamplingHeadroom`), keeping only `regionOfInterest`.
package struct PNGDecoder: ImageDecoding, Hashable {
    /// "png".
    package var identifier: String { ImageFormat.png.rawValue }

    /// Creates the decoder.
    package init() {}

    /// Whether `data` starts with PNG's eight-byte signature.
    package func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .png }

    /// The IHDR size and whether the image has alpha (an alpha channel or tRNS).
    package func header(of data: Data) throws -> ImageHeader {
        try data.withUnsafeBytes { try ImageDecoder.pngHeader($0) }
    }

    /// `true`: only the region of interest is kept, row by row.
    package var decodesRegions: Bool { true }

    /// Decodes toward `options.targetSize`, cut to `options.regionOfInterest` (APNG's extra frames are ignored:
    /// libpng reads the default image). Peak memory is the output plus a few rows, except for an interlaced file,
    /// which is decoded whole (4 bytes a pixel) before it is reduced.
    package func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try data.withUnsafeBytes { try ImageDecoder.decodePNG($0, options: options) }
    }
}
