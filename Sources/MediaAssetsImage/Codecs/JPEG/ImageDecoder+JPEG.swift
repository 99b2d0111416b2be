import CJPEG

extension ImageDecoder {
    static func jpegHeader(_ bytes: UnsafeRawBufferPointer) throws -> ImageHeader {
        let decoder = try JPEGDecoderHandle(bytes)
        defer { decoder.close() }
        return try decoder.readHeader()
    }

    static func decodeJPEG(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> Image {
        let decoder = try JPEGDecoderHandle(bytes)
        defer { decoder.close() }
        let header = try decoder.readHeader()
        try checkPixelLimit(of: header, options: options)
        let orientation = options.appliesOrientation ? header.orientation : .identity
        // The target is upright; the DCT scale applies to the stored pixels, so compare against them.
        let storedTarget = options.targetSize.map { orientation.swapsDimensions ? $0.transposed : $0 }
        let scale = try storedTarget.map { try decoder.smallestScale(covering: $0) } ?? 8
        let size = try decoder.start(scaleNumerator: scale)
        let stride = size.width * 4
        let byteCount = stride * size.height
        let pixels = try [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initializedCount in
            try decoder.check(cjpeg_read_pixels(decoder.pointer, buffer.baseAddress, stride, buffer.count))
            initializedCount = byteCount
        }
        let image = Image(width: size.width, height: size.height, pixels: pixels)
        return OrientationTransform.apply(orientation, to: image)
    }
}

/// One libjpeg decompression over borrowed bytes; `close()` releases it.
private struct JPEGDecoderHandle {
    let pointer: OpaquePointer

    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard let pointer = cjpeg_decoder_create(ImageDecoder.firstByte(of: bytes), bytes.count) else {
            throw ImageError.outOfMemory(format: .jpeg, reason: "could not create the decoder")
        }
        self.pointer = pointer
    }

    func close() {
        cjpeg_decoder_destroy(pointer)
    }

    func readHeader() throws -> ImageHeader {
        var raw = cjpeg_header()
        try check(cjpeg_read_header(pointer, &raw))
        return ImageHeader(
            format: .jpeg, width: Int(raw.width), height: Int(raw.height),
            orientation: ImageOrientation(rawValue: Int(raw.orientation)) ?? .identity, hasAlpha: false
        )
    }

    /// The smallest n in 1...8 whose n/8 output covers `target` in both dimensions (8 when none smaller does).
    func smallestScale(covering target: PixelSize) throws -> Int32 {
        for numerator: Int32 in 1..<8 {
            var width: Int32 = 0
            var height: Int32 = 0
            try check(cjpeg_scaled_size(pointer, numerator, &width, &height))
            if Int(width) >= target.width && Int(height) >= target.height { return numerator }
        }
        return 8
    }

    func start(scaleNumerator: Int32) throws -> PixelSize {
        var width: Int32 = 0
        var height: Int32 = 0
        try check(cjpeg_start(pointer, scaleNumerator, &width, &height))
        guard width > 0, height > 0 else {
            throw ImageError.invalidDimensions(format: .jpeg, width: Int(width), height: Int(height))
        }
        return PixelSize(width: Int(width), height: Int(height))
    }

    func check(_ status: cjpeg_status) throws {
        guard status != CJPEG_OK else { return }
        let reason = String(cString: cjpeg_decoder_message(pointer))
        switch status {
        case CJPEG_ERROR_TRUNCATED: throw ImageError.truncated(format: .jpeg, reason: reason)
        case CJPEG_ERROR_UNSUPPORTED: throw ImageError.unsupported(format: .jpeg, reason: reason)
        case CJPEG_ERROR_OUT_OF_MEMORY: throw ImageError.outOfMemory(format: .jpeg, reason: reason)
        default: throw ImageError.corrupt(format: .jpeg, reason: reason)
        }
    }
}
