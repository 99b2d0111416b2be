import CJPEG

extension ImageDecoder {
    static func jpegHeader(_ bytes: UnsafeRawBufferPointer) throws -> ImageHeader {
        let decoder = try JPEGDecoderHandle(bytes)
        defer { decoder.close() }
        return try decoder.readHeader()
    }

    /// Decodes upright, at the DCT scale that leaves the region of interest `targetSize × headroom`, and only
    /// that region; an image that must be turned goes through a pooled buffer first.
    ///
    /// A progressive file decoded at a reduced scale leaves out the scans that refine only coefficients the
    /// reduced inverse DCT never reads (`skipsUnneededScans`; the DC scans alone at 1/8), after checking that
    /// the file still reaches its EOI marker.
    static func decodeJPEG(
        _ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions, pool: DecodeBufferPool = .shared,
        skipsUnneededScans: Bool = true
    ) throws -> Image {
        let decoder = try JPEGDecoderHandle(bytes)
        defer { decoder.close() }
        let header = try decoder.readHeader()
        try checkPixelLimit(of: header, options: options)
        let plan = JPEGRegionPlan(
            orientation: options.appliesOrientation ? header.orientation : .identity,
            region: options.regionOfInterest
        )
        let scale = try decoder.scale(for: options, plan: plan)
        if skipsUnneededScans, scale < 8 { cjpeg_decoder_set_skips_unneeded_scans(decoder.pointer, 1) }
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
