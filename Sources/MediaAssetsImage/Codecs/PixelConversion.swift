/// Premultiplies and un-premultiplies RGBA8 buffers in place, for the codecs.
///
/// The rounding matches `RGBA.premultiplied`, and un-premultiplying then premultiplying again gives back the
/// same bytes, so a PNG round trip is lossless.
enum PixelConversion {
    /// Multiplies each colour channel by its alpha / 255 (rounded).
    static func premultiply(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        let end = buffer.count - buffer.count % 4
        while offset < end {
            let alpha = UInt32(base[offset + 3])
            if alpha != 255 {
                base[offset] = UInt8(truncatingIfNeeded: (UInt32(base[offset]) * alpha + 127) / 255)
                base[offset + 1] = UInt8(truncatingIfNeeded: (UInt32(base[offset + 1]) * alpha + 127) / 255)
                base[offset + 2] = UInt8(truncatingIfNeeded: (UInt32(base[offset + 2]) * alpha + 127) / 255)
            }
            offset += 4
        }
    }

    /// Divides each colour channel by its alpha / 255 (rounded, clamped to 255); fully transparent stays 0.
    static func unpremultiply(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        let end = buffer.count - buffer.count % 4
        while offset < end {
            let alpha = UInt32(base[offset + 3])
            if alpha == 0 {
                base[offset] = 0
                base[offset + 1] = 0
                base[offset + 2] = 0
            } else if alpha != 255 {
                let half = alpha / 2
                base[offset] = UInt8(truncatingIfNeeded: min(255, (UInt32(base[offset]) * 255 + half) / alpha))
                base[offset + 1] = UInt8(truncatingIfNeeded: min(255, (UInt32(base[offset + 1]) * 255 + half) / alpha))
                base[offset + 2] = UInt8(truncatingIfNeeded: min(255, (UInt32(base[offset + 2]) * 255 + half) / alpha))
            }
            offset += 4
        }
    }
}
