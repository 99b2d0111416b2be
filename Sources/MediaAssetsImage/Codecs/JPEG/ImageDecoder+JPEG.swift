import CJPEG

extension ImageDecoder {
    static func jpegHeader(_ bytes: UnsafeRawBufferPointer) throws -> ImageHeader {
        let decoder = try JPEGDecoderHandle(bytes)
        defer { decoder.close() }
        return try decoder.readHeader()
    }

    /// Decodes upright, at the DCT scale that leaves the region of interest `targetSize × headroom`, and only
    /// that region; an image that must be turned goes through a pooled buffer first.
    static func decodeJPEG(
        _ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions, pool: DecodeBufferPool = .shared
    ) throws -> Image {
        let decoder = try JPEGDecoderHandle(bytes)
        defer { decoder.close() }
        let header = try decoder.readHeader()
        try checkPixelLimit(of: header, options: options)
        let plan = JPEGRegionPlan(
            orientation: options.appliesOrientation ? header.orientation : .identity,
            region: options.regionOfInterest
        )
        let scale: Int32 =
            try options.targetSize.map { target -> Int32 in
                let needed = JPEGRegionPlan.neededSize(target: target, headroom: options.downsamplingHeadroom)
                return try decoder.smallestScale { storedSize in
                    let region = plan.uprightRect(storedSize: storedSize)
                    return region.width >= needed.width && region.height >= needed.height
                }
            } ?? 8
        let storedSize = try decoder.start(scaleNumerator: scale)
        let rect = plan.storedRect(storedSize: storedSize)
        let byteCount = rect.width * rect.height * 4
        guard plan.orientation != .identity else {
            let pixels = try [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initializedCount in
                try decoder.read(rect, into: UnsafeMutableRawBufferPointer(buffer))
                initializedCount = byteCount
            }
            return Image(width: rect.width, height: rect.height, pixels: pixels)
        }
        return try pool.withBuffer(byteCount: byteCount) { buffer in
            try decoder.read(rect, into: buffer)
            return OrientationTransform.apply(
                plan.orientation, toPixels: UnsafeRawBufferPointer(buffer), width: rect.width, height: rect.height
            )
        }
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
