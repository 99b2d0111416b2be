import CPNG

extension ImageDecoder {
    static func pngHeader(_ bytes: UnsafeRawBufferPointer) throws -> ImageHeader {
        let decoder = try PNGDecoderHandle(bytes)
        defer { decoder.close() }
        return try decoder.readHeader()
    }

    /// PNG decodes at full size (no `targetSize` scaling) and carries no EXIF orientation here.
    static func decodePNG(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> Image {
        let decoder = try PNGDecoderHandle(bytes)
        defer { decoder.close() }
        let header = try decoder.readHeader()
        try checkPixelLimit(of: header, options: options)
        let stride = header.width * 4
        let byteCount = stride * header.height
        let pixels = try [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initializedCount in
            try decoder.check(cpng_read_rgba(decoder.pointer, buffer.baseAddress, stride, buffer.count))
            initializedCount = byteCount
            if header.hasAlpha { PixelConversion.premultiply(buffer) }
        }
        return Image(width: header.width, height: header.height, pixels: pixels)
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

    func readHeader() throws -> ImageHeader {
        var raw = cpng_header()
        try check(cpng_read_header(pointer, &raw))
        return ImageHeader(
            format: .png, width: Int(raw.width), height: Int(raw.height),
            orientation: .identity, hasAlpha: raw.has_alpha != 0
        )
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
