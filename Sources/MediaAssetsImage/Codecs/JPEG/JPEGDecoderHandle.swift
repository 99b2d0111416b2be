import CJPEG

/// One libjpeg decompression over borrowed bytes (or, incremental, over appended pieces); `close()` releases it.
struct JPEGDecoderHandle {
    let pointer: OpaquePointer

    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard let pointer = cjpeg_decoder_create(ImageDecoder.firstByte(of: bytes), bytes.count) else {
            throw ImageError.outOfMemory(format: .jpeg, reason: "could not create the decoder")
        }
        self.pointer = pointer
    }

    /// An incremental decoder (`cjpeg_decoder_create_incremental`).
    init() throws {
        guard let pointer = cjpeg_decoder_create_incremental() else {
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
        return Self.header(raw)
    }

    static func header(_ raw: cjpeg_header) -> ImageHeader {
        ImageHeader(
            format: .jpeg, width: Int(raw.width), height: Int(raw.height),
            orientation: ImageOrientation(rawValue: Int(raw.orientation)) ?? .identity, hasAlpha: false
        )
    }

    /// The DCT scale numerator (n/8) whose output leaves `plan`'s upright region `targetSize × headroom`, or 8.
    func scale(for options: ImageDecodingOptions, plan: JPEGRegionPlan) throws -> Int32 {
        guard let target = options.targetSize else { return 8 }
        let needed = JPEGRegionPlan.neededSize(target: target, headroom: options.downsamplingHeadroom)
        return try smallestScale { storedSize in
            let region = plan.uprightRect(storedSize: storedSize)
            return region.width >= needed.width && region.height >= needed.height
        }
    }

    /// The smallest n in 1...8 whose n/8 (stored) output size `suffices` (8 when none smaller does).
    func smallestScale(where suffices: (PixelSize) -> Bool) throws -> Int32 {
        for numerator: Int32 in 1..<8 {
            var width: Int32 = 0
            var height: Int32 = 0
            try check(cjpeg_scaled_size(pointer, numerator, &width, &height))
            if suffices(PixelSize(width: Int(width), height: Int(height))) { return numerator }
        }
        return 8
    }

    /// Decodes the stored pixels in `rect` (of the started output) into `buffer`, rows without padding.
    func read(_ rect: PixelRect, into buffer: UnsafeMutableRawBufferPointer) throws {
        let pixels = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        try check(
            cjpeg_read_region(
                pointer, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height), pixels,
                rect.width * 4, buffer.count
            )
        )
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
