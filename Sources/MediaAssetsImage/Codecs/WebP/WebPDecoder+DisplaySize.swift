import CDynamicCodecs
import Foundation

extension WebPDecoder {
    /// Decodes a still WebP at display size through libwebp's own cropping and scaling (`WebPDecode` with
    /// `use_cropping` and `use_scaling`): the region of interest is cut first, then scaled while it is
    /// decoded to `targetSize × downsamplingHeadroom` (never up), so a lossy file costs the output plus a few
    /// rows of macroblocks. A lossless (VP8L) file, or the alpha plane of a lossy one, is held whole inside
    /// libwebp while it decodes (backward references may reach any earlier pixel).
    func decodeStill(
        _ data: Data, header: ImageHeader, library: WebPLibrary, options: ImageDecodingOptions
    ) throws -> Image {
        let plan = WebPDisplaySizePlan(sourceSize: header.storedSize, options: options)
        var config = ma_webp_decoder_config()
        guard library.initDecoderConfig(&config, MA_WEBP_DECODER_ABI_VERSION) != 0 else {
            throw ImageError.libraryMissing(
                format: .webp, library: WebPLibrary.defaultSoname, debianPackage: WebPLibrary.debianPackage,
                reason: "its decoder ABI does not match the 1.x this build declares"
            )
        }
        if let crop = plan.crop {
            config.options.use_cropping = 1
            config.options.crop_left = Int32(crop.x)
            config.options.crop_top = Int32(crop.y)
            config.options.crop_width = Int32(crop.width)
            config.options.crop_height = Int32(crop.height)
        }
        if plan.outputSize != plan.croppedSize {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(plan.outputSize.width)
            config.options.scaled_height = Int32(plan.outputSize.height)
        }
        let stride = plan.outputSize.width * 4
        let byteCount = stride * plan.outputSize.height
        let pixels = try [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initializedCount in
            config.output.colorspace = MA_WEBP_MODE_RGBA
            config.output.is_external_memory = 1
            config.output.u.RGBA = ma_webp_rgba_buffer(rgba: buffer.baseAddress, stride: Int32(stride), size: byteCount)
            let status = data.withUnsafeBytes { bytes in
                library.decodeWithConfig(ImageDecoder.firstByte(of: bytes), bytes.count, &config)
            }
            library.freeDecBuffer(&config.output)
            switch status {
            case 0: break
            case 1: throw ImageError.outOfMemory(format: .webp, reason: "libwebp ran out of memory")
            case 4: throw ImageError.unsupported(format: .webp, reason: "libwebp does not support this feature")
            case 7: throw ImageError.truncated(format: .webp, reason: "the bitstream ends early")
            default: throw failure(data, reason: "libwebp could not decode the bitstream (status \(status))")
            }
            initializedCount = byteCount
            if header.hasAlpha { PixelConversion.premultiply(buffer) }
        }
        return Image(width: plan.outputSize.width, height: plan.outputSize.height, pixels: pixels)
    }
}

/// What libwebp is asked to crop and scale to: the region of interest of the stored image (its origin on even
/// pixels, as libwebp snaps it), scaled to the smallest size that still covers `targetSize × headroom`.
struct WebPDisplaySizePlan: Hashable {
    /// The part of the stored image decoded, or `nil` for all of it.
    let crop: PixelRect?
    /// The crop's size (the stored size when there is no crop).
    let croppedSize: PixelSize
    /// The decoded size: `croppedSize` scaled down, never up.
    let outputSize: PixelSize

    init(sourceSize: PixelSize, options: ImageDecodingOptions) {
        var region = options.regionOfInterest?.rect(in: sourceSize) ?? PixelRect(wholeOf: sourceSize)
        // libwebp rounds an odd origin down (4:2:0 chroma); keeping the width moves the region by one pixel.
        region.x &= ~1
        region.y &= ~1
        crop = region == PixelRect(wholeOf: sourceSize) ? nil : region
        croppedSize = region.size
        guard let target = options.targetSize else {
            outputSize = region.size
            return
        }
        let needed = JPEGRegionPlan.neededSize(target: target, headroom: options.downsamplingHeadroom)
        let scale = max(
            Double(max(needed.width, 1)) / Double(region.width), Double(max(needed.height, 1)) / Double(region.height)
        )
        guard scale < 1 else {
            outputSize = region.size
            return
        }
        func scaled(_ side: Int) -> Int { min(side, max(1, Int((Double(side) * scale).rounded(.up)))) }
        outputSize = PixelSize(width: scaled(region.width), height: scaled(region.height))
    }
}
